"""The loaded vendor's support matrix: which ATen overloads and vendor ops it runs, per dtype."""
from __future__ import annotations

import json

from . import _backend


def support_matrix() -> dict:
    """The generated support matrix of the loaded vendor: support_matrix.json of the installed
    wheel, or generated/<vendor>/ in the source tree."""
    with open(_backend.data_file(_backend.load().vendor, "support_matrix.json")) as f:
        return json.load(f)


def custom_ops() -> dict[str, dict]:
    """The vendor ops (torch.ops.<vendor>.*) of the loaded spec, by name, with their matrix rows."""
    return {row["name"]: row for row in support_matrix().get("custom_ops", [])}
