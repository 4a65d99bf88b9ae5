"""Whether pip's own configuration caps a package below the release asked for.

A machine may pin pip to the torch releases on its disk through a constraint file in
pip's configuration (here /etc/xdg/pip: torch<=2.14.1). Setup installs a newer release
listed in .ci/torch_versions by ignoring that file for that one install, and says so;
the configuration itself is left as it is.

    python3 .ci/pip_cap.py torch==2.15.0 [torchvision==0.30.0 ...]
prints each configured constraint that excludes one of these pins (file:line: text) and
exits 1, or prints nothing and exits 0.
"""
from __future__ import annotations

import os
import subprocess
import sys

from pip._vendor.packaging.requirements import InvalidRequirement, Requirement
from pip._vendor.packaging.utils import canonicalize_name


def configured_constraint_files() -> list[str]:
    """The constraint files pip reads: PIP_CONSTRAINT where set (it overrides the config
    files, as pip's environment variables do), else its config files' `constraint` keys."""
    from_environment = os.environ.get("PIP_CONSTRAINT", "").split()
    if from_environment:
        return [f for f in from_environment if f != os.devnull]
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                            check=False).stdout
    files = []
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if key.rsplit(".", 1)[-1] == "constraint":
            files.extend(value.strip().strip("'\"").split())
    return [f for f in dict.fromkeys(files) if f != os.devnull]


def excluding_lines(package: str, version: str) -> list[str]:
    name = canonicalize_name(package)
    found = []
    for path in configured_constraint_files():
        try:
            with open(path) as f:
                lines = f.readlines()
        except OSError:
            continue  # pip itself reports a missing constraint file
        for number, line in enumerate(lines, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            if canonicalize_name(requirement.name) == name and not requirement.specifier.contains(
                    version, prereleases=True):
                found.append(f"{path}:{number}: {text}")
    return found


def main(argv: list[str]) -> int:
    pins = [arg.split("==", 1) for arg in argv]
    if not pins or any(len(pin) != 2 for pin in pins):
        print("usage: python3 .ci/pip_cap.py NAME==VERSION ...", file=sys.stderr)
        return 2
    lines = [line for name, version in pins for line in excluding_lines(name, version)]
    for line in lines:
        print(line)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
