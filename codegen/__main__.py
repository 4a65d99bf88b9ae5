"""python -m codegen: generate or check a vendor backend from specs/<vendor>.yaml."""
from __future__ import annotations

import argparse
import os
import sys
import time

from . import output
from .errors import SpecErrors, one_line
from .pipeline import REPO_ROOT, generate_files
from .schema_drift import ReferenceSchemas

EXIT_SPEC_ERROR = 2
EXIT_DRIFT = 1


def _vendors(args) -> list[str]:
    if args.vendor:
        return [args.vendor]
    specs_dir = os.path.join(REPO_ROOT, "specs")
    return sorted(f[:-5] for f in os.listdir(specs_dir) if f.endswith(".yaml"))


def diff_torch_main(argv: list[str]) -> int:
    import json
    from . import torch_diff
    parser = argparse.ArgumentParser(
        prog="python -m codegen diff-torch",
        description="ATen overloads added, removed and changed between two torch releases' "
                    "native_functions.yaml, and the spec entries each change touches "
                    "(`make diff-torch FROM=2.13.0 TO=2.14.1` finds the files).")
    parser.add_argument("before", help="the older release's native_functions.yaml")
    parser.add_argument("after", help="the newer release's native_functions.yaml")
    parser.add_argument("--names", nargs=2, metavar=("BEFORE", "AFTER"), help="the releases' names (e.g. 2.13.0 2.14.1)")
    parser.add_argument("--json", metavar="FILE", help="also write the diff as JSON")
    args = parser.parse_args(argv)
    for path in (args.before, args.after):
        if not os.path.isfile(path):
            parser.error(f"no such file: {path}")
    names = args.names or [args.before, args.after]
    try:
        specs = torch_diff.load_specs(REPO_ROOT)
    except SpecErrors as exc:
        return _refused(exc)
    result = torch_diff.diff(torch_diff.read_schemas(args.before), torch_diff.read_schemas(args.after), specs, *names)
    print("\n".join(torch_diff.format_report(result)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(torch_diff.as_json(result), f, indent=1)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["diff-torch"]:
        return diff_torch_main(argv[1:])
    parser = argparse.ArgumentParser(
        prog="python -m codegen",
        description="Validate specs/<vendor>.yaml against the installed torch's ATen schemas and emit the "
                    "PrivateUse1 backend sources and support matrix into generated/<vendor>/.")
    parser.add_argument("command", choices=["generate", "check"],
                        help="generate: write generated/<vendor>/ (atomically); "
                             "check: exit 1 if generated/ differs from what the specs produce "
                             "(also: `diff-torch`, first, for ATen's changes between two torch releases)")
    parser.add_argument("--vendor", help="one vendor (default: every specs/*.yaml)")
    parser.add_argument("--spec", help="a spec file to use instead of specs/<vendor>.yaml")
    parser.add_argument("--out", help="output directory (default: generated/<vendor>)")
    parser.add_argument("--reference", metavar="MATRIX",
                        help="the support_matrix.json whose schemas the spec was written against "
                             "(default: generated/<vendor>/'s, the default torch's); an entry whose "
                             "schema changed in a way its kernel cannot carry is a spec error")
    args = parser.parse_args(argv)
    reference = None
    if args.reference:
        if not args.vendor:
            parser.error("--reference is one vendor's matrix: name the vendor (--vendor)")
        reference = ReferenceSchemas.from_file(args.reference)
        if reference is None:
            parser.error(f"--reference {args.reference}: not a support matrix (JSON with `ops`)")
    status = 0
    for vendor in _vendors(args):
        spec_path = args.spec or os.path.join(REPO_ROOT, "specs", f"{vendor}.yaml")
        started = time.perf_counter()
        try:
            plan, files = generate_files(spec_path, reference=reference)
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
            shown = os.path.relpath(out_dir, REPO_ROOT)
            print(f"{shown}: {len(files)} files, {len(changed)} changed ({elapsed:.2f} s)")
            _note_schema_changes(plan.vendor, out_dir, files)
    return status


def _note_schema_changes(vendor: str, out_dir: str, files: dict[str, str]) -> None:
    """Generating for another torch than generated/'s: say which registered schemas differ."""
    import json
    from . import torch_diff
    reference_path = os.path.join(REPO_ROOT, "generated", vendor, "support_matrix.json")
    if os.path.realpath(out_dir) == os.path.realpath(os.path.dirname(reference_path)) or \
            not os.path.isfile(reference_path) or "support_matrix.json" not in files:
        return
    with open(reference_path) as f:
        reference = json.load(f)
    notes = torch_diff.notes_against_reference(reference, json.loads(files["support_matrix.json"]))
    for line in notes:
        print(line)
    if notes:
        print(f"{vendor}: {len(notes)} difference(s) from torch {reference.get('torch_version')}'s registrations")


def _refused(exc: SpecErrors) -> int:
    for line in exc.report():
        print(line, file=sys.stderr)
    print(f"{len(exc.errors)} error(s); nothing was written", file=sys.stderr)
    return EXIT_SPEC_ERROR


if __name__ == "__main__":
    sys.exit(main())
