"""Spec errors that point at file:line:column and say what was expected."""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable, Optional, Union

from .limits import REPORTED_ERRORS

# Characters that would break "one line per error": controls, line and
# paragraph separators. Spec text quoted in a message shows them escaped.
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """text with its control characters escaped (\\n, \\x1b, ...)."""
    return _LINE_BREAKING.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


@dataclass(frozen=True)
class Location:
    path: str
    line: int = 0  # 1-based; 0: the file as a whole (e.g. it could not be read)
    column: int = 0  # 1-based

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}" if self.line else self.path


@dataclass(frozen=True, eq=False)
class Suggestion:
    """'did you mean ...?': the closest candidate, searched for only when the
    error is shown (a spec with thousands of errors shows a hundred)."""
    word: str
    candidates: Iterable[str]  # not copied: callers pass collections they no longer change
    otherwise: Optional[str] = None  # said when nothing is close

    def __str__(self) -> str:
        close = difflib.get_close_matches(self.word, list(self.candidates), n=1, cutoff=0.6)
        if close:
            return f"did you mean '{close[0]}'?"
        return self.otherwise or ""


@dataclass(frozen=True)
class SpecError:
    location: Location
    message: str
    suggestion: Union[str, Suggestion, None] = None

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        suggestion = str(self.suggestion) if self.suggestion is not None else ""
        if suggestion:
            text += f" ({suggestion})"
        return one_line(text)


class SpecErrors(Exception):
    """Raised once validation is complete; carries every error found."""

    def __init__(self, errors: Iterable[SpecError]):
        self.errors = sorted(errors, key=lambda e: (e.location.path, e.location.line, e.location.column))
        super().__init__(f"{len(self.errors)} spec error(s)")

    def report(self) -> list[str]:
        """One line per error, the first REPORTED_ERRORS of them, then a count of the rest."""
        lines = [f"error: {error}" for error in self.errors[:REPORTED_ERRORS]]
        if len(self.errors) > REPORTED_ERRORS:
            lines.append(f"... and {len(self.errors) - REPORTED_ERRORS} more errors")
        return lines

    def __str__(self) -> str:
        return "\n".join(self.report())


class ErrorSink:
    """Collects errors so that one run reports all of them, not just the first."""

    def __init__(self) -> None:
        self.errors: list[SpecError] = []
        self._said: set[tuple[Location, str]] = set()

    def add(self, location: Location, message: str, suggestion: Union[str, Suggestion, None] = None) -> None:
        key = (location, message)
        if key not in self._said:  # an entry's variants share its lines: say each problem once
            self._said.add(key)
            self.errors.append(SpecError(location, message, suggestion))

    def raise_if_any(self) -> None:
        if self.errors:
            raise SpecErrors(self.errors)


def did_you_mean(word: str, candidates: Iterable[str], otherwise: Optional[str] = None) -> Suggestion:
    """The closest of candidates to word, or `otherwise` when none is close."""
    return Suggestion(word, candidates, otherwise)
