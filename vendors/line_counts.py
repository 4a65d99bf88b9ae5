"""How much each vendor wrote to bring its chip up (`make vendor-lines`).

Counts code lines (not blank, not comment-only) per vendor, split by role:
  spec    specs/<vendor>.yaml (and the number of op entries in it)
  driver  the chip's own runtime API (vendors/<vendor>/driver/), if it has one
  sdk     the chip's op library (vendors/<vendor>/sdk/, all but the glue)
  glue    the converters the spec names (vendors/<vendor>/sdk/*_glue.*)
  abi     the driver ABI adapter (vendors/<vendor>/torch_fl_driver.cpp)
  build   vendors/<vendor>/CMakeLists.txt
Shared code (runtime/, codegen/, vendors/sim/) is counted once, apart: it is
what a new vendor does not write.
"""
from __future__ import annotations

import glob
import os
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMENT_PREFIXES = ("//", "#", "/*", "*", "*/")


def code_lines(paths: list[str]) -> int:
    total = 0
    for path in paths:
        with open(path) as f:
            total += sum(1 for line in f if line.strip() and not line.strip().startswith(COMMENT_PREFIXES))
    return total


def files(pattern: str) -> list[str]:
    """Files only: a vendor's kernels may sit in a folder below driver/ or sdk/ (opencl's .cl sources)."""
    return sorted(p for p in glob.glob(os.path.join(REPO, pattern), recursive=True) if os.path.isfile(p))


def vendor_row(vendor: str) -> dict[str, int]:
    # The vendor's spec and the files of its own it includes (specs/<vendor>/, by op family).
    spec_files = files(f"specs/{vendor}.yaml") + files(f"specs/{vendor}/**/*.yaml")
    ops: set[str] = set()
    custom: set[str] = set()
    for path in spec_files:
        with open(path) as f:
            spec = yaml.safe_load(f) or {}
        ops |= set(spec.get("ops") or {})
        custom |= set(spec.get("custom") or {})
    base = f"vendors/{vendor}"
    return {
        "ops": len(ops) + len(custom),
        "spec": code_lines(spec_files),
        "driver": code_lines(files(f"{base}/driver/**/*")),
        "sdk": code_lines([p for p in files(f"{base}/sdk/**/*") if "_glue." not in p]),
        "glue": code_lines(files(f"{base}/sdk/*_glue.*")),
        "abi": code_lines(files(f"{base}/torch_fl_driver.cpp")),
        "build": code_lines(files(f"{base}/CMakeLists.txt")),
    }


def main() -> int:
    vendors = sorted(os.path.basename(p)[:-5] for p in files("specs/*.yaml"))
    columns = ["ops", "spec", "driver", "sdk", "glue", "abi", "build"]
    print(f"{'vendor':<8}" + "".join(f"{c:>8}" for c in columns))
    for vendor in vendors:
        row = vendor_row(vendor)
        print(f"{vendor:<8}" + "".join(f"{row[c]:>8}" for c in columns))
    shared = {
        "runtime/ (C++ and Python)": files("runtime/**/*.cpp") + files("runtime/**/*.h") + files("runtime/**/*.py"),
        "codegen/ + templates/": files("codegen/*.py") + files("templates/*.j2"),
        "vendors/sim/ (simulated chips only)": files("vendors/sim/*.cpp") + files("vendors/sim/*.h"),
    }
    print("\nshared, written once:")
    for name, paths in shared.items():
        print(f"  {name:<38}{code_lines(paths):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
