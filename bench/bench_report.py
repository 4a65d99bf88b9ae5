"""Where every benchmark writes its figures: build/bench/<name>.json."""
from __future__ import annotations

import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_report(file_name: str, results: dict) -> str:
    out_dir = os.path.join(REPO, "build", "bench")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, file_name)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    return path
