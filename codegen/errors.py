"""Spec errors that point at file:line:column and say what was expected."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable, Optional


@dataclass(frozen=True)
class Location:
    path: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True)
class SpecError:
    location: Location
    message: str
    suggestion: Optional[str] = None

    def __str__(self) -> str:
        text = f"{self.location}: {self.message}"
        if self.suggestion:
            text += f" ({self.suggestion})"
        return text


class SpecErrors(Exception):
    """Raised once validation is complete; carries every error found."""

    def __init__(self, errors: Iterable[SpecError]):
        self.errors = sorted(errors, key=lambda e: (e.location.path, e.location.line, e.location.column))
        super().__init__("\n".join(str(e) for e in self.errors))


class ErrorSink:
    """Collects errors so that one run reports all of them, not just the first."""

    def __init__(self) -> None:
        self.errors: list[SpecError] = []

    def add(self, location: Location, message: str, suggestion: Optional[str] = None) -> None:
        error = SpecError(location, message, suggestion)
        if error not in self.errors:  # an entry's variants share its lines: say each problem once
            self.errors.append(error)

    def raise_if_any(self) -> None:
        if self.errors:
            raise SpecErrors(self.errors)


def did_you_mean(word: str, candidates: Iterable[str]) -> Optional[str]:
    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
