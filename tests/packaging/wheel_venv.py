"""A throwaway venv with Torch-FL wheels installed, cheap enough for every CI run:
no pip and no torch download in it; torch comes from the environment running this
(the cached one of `make setup`) through a .pth, the wheels are installed --no-deps.

    python tests/packaging/wheel_venv.py DEST WHEEL...   (`make bench-import` uses it)
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys


def make_wheel_venv(dest: str, wheels: list[str]) -> str:
    """Creates the venv at dest (replacing it) and returns its interpreter."""
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", dest], check=True)
    python = os.path.join(dest, "bin", "python")
    site_dir = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
    # Only torch's own site-packages: not this checkout's runtime/python, so the venv sees
    # torch_fl solely as the wheel installed it.
    torch_site = os.path.dirname(os.path.dirname(importlib.util.find_spec("torch").origin))
    with open(os.path.join(site_dir, "torch_site.pth"), "w") as f:
        f.write(f"import site; site.addsitedir({torch_site!r})\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index",
                    "--disable-pip-version-check", *wheels], check=True, capture_output=True, text=True)
    return python


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    print(make_wheel_venv(sys.argv[1], sys.argv[2:]))
