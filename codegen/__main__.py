"""python -m codegen: generate or check a vendor backend from specs/<vendor>.yaml."""
from __future__ import annotations

import argparse
import os
import sys
import time

from . import layering, output, render, spec_parser
from .aten import AtenRegistry
from .errors import SpecErrors, one_line
from .plan import Planner
from .plan_model import BackendPlan

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXIT_SPEC_ERROR = 2
EXIT_DRIFT = 1


def load_plan(spec_path: str, repo_root: str = REPO_ROOT, display_path: str | None = None):
    rel = display_path or os.path.relpath(spec_path, repo_root)
    root, texts = layering.load(spec_path, rel, repo_root)
    model = spec_parser.parse(rel, root)
    return Planner(model, AtenRegistry.from_installed_torch(), repo_root, "\n".join(texts)).plan()


def generate_files(spec_path: str, repo_root: str = REPO_ROOT,
                   display_path: str | None = None) -> tuple[BackendPlan, dict[str, str]]:
    """Loads, validates and renders one spec; raises SpecErrors, writes nothing.

    display_path is how messages and generated comments name the spec
    (default: its path relative to the repository)."""
    plan = load_plan(spec_path, repo_root, display_path)
    return plan, render.render(plan)


def _vendors(args) -> list[str]:
    if args.vendor:
        return [args.vendor]
    specs_dir = os.path.join(REPO_ROOT, "specs")
    return sorted(f[:-5] for f in os.listdir(specs_dir) if f.endswith(".yaml"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m codegen",
        description="Validate specs/<vendor>.yaml against the installed torch's ATen schemas and emit the "
                    "PrivateUse1 backend sources and support matrix into generated/<vendor>/.")
    parser.add_argument("command", choices=["generate", "check"],
                        help="generate: write generated/<vendor>/ (atomically); "
                             "check: exit 1 if generated/ differs from what the specs produce")
    parser.add_argument("--vendor", help="one vendor (default: every specs/*.yaml)")
    parser.add_argument("--spec", help="a spec file to use instead of specs/<vendor>.yaml")
    parser.add_argument("--out", help="output directory (default: generated/<vendor>)")
    args = parser.parse_args(argv)
    status = 0
    for vendor in _vendors(args):
        spec_path = args.spec or os.path.join(REPO_ROOT, "specs", f"{vendor}.yaml")
        started = time.perf_counter()
        try:
            plan, files = generate_files(spec_path)
        except SpecErrors as exc:
            return _refused(exc)
        out_dir = args.out or os.path.join(REPO_ROOT, "generated", plan.vendor)
        if args.command == "check":
            drift = output.differences(out_dir, files)
            if drift:
                print(f"generated/{plan.vendor} is out of date: {', '.join(drift)} "
                      f"(run `make generate VENDOR={plan.vendor}`)", file=sys.stderr)
                status = EXIT_DRIFT
            else:
                print(f"generated/{plan.vendor}: up to date")
        else:
            try:
                changed = output.write_tree(out_dir, files)
            except output.OutputError as exc:
                print(f"error: {one_line(str(exc))}", file=sys.stderr)
                print("nothing was written", file=sys.stderr)
                return EXIT_SPEC_ERROR
            elapsed = time.perf_counter() - started
            print(f"generated/{plan.vendor}: {len(files)} files, {len(changed)} changed ({elapsed:.2f} s)")
    return status


def _refused(exc: SpecErrors) -> int:
    for line in exc.report():
        print(line, file=sys.stderr)
    print(f"{len(exc.errors)} error(s); nothing was written", file=sys.stderr)
    return EXIT_SPEC_ERROR


if __name__ == "__main__":
    sys.exit(main())
