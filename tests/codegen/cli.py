"""`python -m codegen`, run in the test process: what it printed and returned.

In-process runs share the ATen registry between tests (a subprocess loads it
each time). An exception escapes to the test, which fails with its traceback:
exactly what a spec must never cause."""
from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass

from codegen.__main__ import main


@dataclass(frozen=True)
class CliRun:
    status: int
    stdout: str
    stderr: str

    @property
    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.startswith("error: ")]


def run_cli(*argv: str) -> CliRun:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return CliRun(status, out.getvalue(), err.getvalue())
