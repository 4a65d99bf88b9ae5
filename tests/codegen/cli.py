"""`python -m codegen`, run in the test process: what it printed and returned.

In-process runs share the ATen registry between tests (a subprocess loads it
each time). An exception escapes to the test, which fails with its traceback:
exactly what a spec must never cause."""
from __future__ import annotations

import contextlib
import io
import os
import sys
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
        try:
            status = main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors exit, as the command line would
            if isinstance(exit_.code, str):
                print(exit_.code, file=sys.stderr)
            status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    return CliRun(status, out.getvalue(), err.getvalue())


def assert_spec_error(tmp_path, spec_text: str, line: int, *fragments: str, name: str = "broken.yaml") -> str:
    """Generating spec_text is refused with an error at name:line naming each fragment; nothing is written."""
    spec = tmp_path / name
    spec.write_text(spec_text)
    out_dir = tmp_path / "out"
    run = run_cli("generate", "--vendor", "mlu", "--spec", str(spec), "--out", str(out_dir))
    assert run.status == 2, run.stdout + run.stderr
    assert not os.path.exists(out_dir), "a rejected spec must write nothing"
    located = [error for error in run.error_lines if f"{name}:{line}:" in error]
    assert located, run.stderr
    for fragment in fragments:
        assert any(fragment in error for error in located), run.stderr
    return run.stderr
