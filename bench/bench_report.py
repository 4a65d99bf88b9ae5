"""What every benchmark shares: the device it runs on, and where it writes its figures
(build/bench/<name>.json)."""
from __future__ import annotations

import json
import os
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_report(file_name: str, results: dict) -> str:
    out_dir = os.path.join(REPO, "build", "bench")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, file_name)
    with open(path, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    return path


def first_device(bench_name: str) -> Optional["torch.device"]:
    """The loaded vendor's device 0, or None after saying why the benchmark is skipped."""
    import torch_fl
    if torch_fl.device_count() == 0:
        print(f"{bench_name}: skipped: no {torch_fl.vendor()} device on this machine")
        return None
    return torch_fl.device(0)
