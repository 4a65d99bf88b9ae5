"""The torch releases Torch-FL builds against (.ci/torch_versions), and where each one's
environment, build and generated files live.

The one reader of that file and the one statement of the directory rule, for the
Makefile, the set-up script and CI (through the command line below), the codegen and
packaging tests, and torch_fl._backend in the source tree. So it uses only the standard
library and is loaded on its own by path as well as imported as codegen.torch_versions.

    python3 codegen/torch_versions.py default | newest | list
    python3 codegen/torch_versions.py extras|build-root|generated-dir|dist-dir VERSION
    python3 codegen/torch_versions.py newest-with PACKAGE   # the newest release with torchvision
    python3 codegen/torch_versions.py check VERSION     # exit 2, saying what is supported
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VERSIONS_FILE = os.path.join(".ci", "torch_versions")


@dataclass(frozen=True)
class TorchRelease:
    version: str
    extras: tuple[str, ...]  # requirements installed beside this torch (torchvision, ...)
    reason: str  # why the release is listed


class UnsupportedTorch(ValueError):
    pass


def public_version(version: str) -> str:
    """'2.13.0+cpu' → '2.13.0': the local label names a build flavour, not another release."""
    return version.split("+")[0]


def releases(repo: str = REPO_ROOT) -> list[TorchRelease]:
    """The listed releases, the default first. Each line: version | extras or - | reason."""
    path = os.path.join(repo, VERSIONS_FILE)
    found = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = [field.strip() for field in line.split("|")]
            if len(fields) != 3 or not fields[0]:
                raise ValueError(f"{path}:{number}: expected 'version | extras or - | reason', got {line.strip()!r}")
            extras = () if fields[1] == "-" else tuple(fields[1].split())
            found.append(TorchRelease(fields[0], extras, fields[2]))
    if not found:
        raise ValueError(f"{path}: lists no torch release")
    return found


def default_version(repo: str = REPO_ROOT) -> str:
    return releases(repo)[0].version


def newest_version(repo: str = REPO_ROOT) -> str:
    return max((r.version for r in releases(repo)), key=_release_key)


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in public_version(version).split("."))


def newest_with(package: str, repo: str = REPO_ROOT) -> str:
    """The newest listed release installing `package` beside torch (torchvision), or ''.
    CI tests that package's ops there when the newest release has none yet."""
    having = [r.version for r in releases(repo) if any(_requirement_name(e) == package for e in r.extras)]
    return max(having, key=_release_key, default="")


def _requirement_name(requirement: str) -> str:
    for separator in ("==", ">=", "<=", "~=", "!=", "<", ">", "["):
        requirement = requirement.split(separator, 1)[0]
    return requirement.strip().lower()


def release(version: str, repo: str = REPO_ROOT) -> TorchRelease:
    listed = releases(repo)
    for candidate in listed:
        if candidate.version == public_version(version):
            return candidate
    supported = "\n".join(f"  {r.version}: {r.reason}" for r in listed)
    raise UnsupportedTorch(f"torch {version} is not supported; the supported versions ({VERSIONS_FILE}) are:\n"
                           f"{supported}")


def build_root(version: str, repo: str = REPO_ROOT) -> str:
    """build/ for the default torch; build/torch-<version>/ for another (its venv, builds, output)."""
    if public_version(version) == default_version(repo):
        return os.path.join(repo, "build")
    return os.path.join(repo, "build", f"torch-{public_version(version)}")


def generated_dir(version: str, repo: str = REPO_ROOT) -> str:
    """The committed generated/ is the default torch's; another's output lives in its build root."""
    if public_version(version) == default_version(repo):
        return os.path.join(repo, "generated")
    return os.path.join(build_root(version, repo), "generated")


def dist_dir(version: str, repo: str = REPO_ROOT) -> str:
    if public_version(version) == default_version(repo):
        return os.path.join(repo, "dist")
    return os.path.join(repo, "dist", f"torch-{public_version(version)}")


_QUERIES = {"default": default_version, "newest": newest_version,
            "list": lambda: " ".join(r.version for r in releases())}
_PER_VERSION = {"extras": lambda v: " ".join(release(v).extras), "build-root": build_root,
                "generated-dir": generated_dir, "dist-dir": dist_dir, "check": lambda v: release(v).version,
                "newest-with": newest_with}


def main(argv: list[str]) -> int:
    if len(argv) == 1 and argv[0] in _QUERIES:
        print(_QUERIES[argv[0]]())
        return 0
    if len(argv) == 2 and argv[0] in _PER_VERSION:
        try:
            print(_PER_VERSION[argv[0]](argv[1]))
        except UnsupportedTorch as error:
            print(error, file=sys.stderr)
            return 2
        return 0
    print(f"usage: torch_versions.py {'|'.join(_QUERIES)} | {'|'.join(_PER_VERSION)} VERSION", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
