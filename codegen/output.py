"""Writes a generated tree all-or-nothing.

Files are rendered in memory first; the tree is then written to a sibling
temporary directory and swapped in with renames, so an error or an interrupt
never leaves generated/<vendor>/ half-written. Unchanged files keep their
mtime, so the build recompiles only the shards whose text changed.
"""
from __future__ import annotations

import os
import shutil
import tempfile


def differences(directory: str, files: dict[str, str]) -> list[str]:
    """Paths (relative) that differ between `files` and what is on disk."""
    diffs = []
    existing = set(os.listdir(directory)) if os.path.isdir(directory) else set()
    for name, text in files.items():
        path = os.path.join(directory, name)
        try:
            with open(path) as f:
                if f.read() != text:
                    diffs.append(name)
        except OSError:
            diffs.append(name)
    diffs += sorted(existing - set(files))
    return sorted(diffs)


def write_tree(directory: str, files: dict[str, str]) -> list[str]:
    """Makes `directory` contain exactly `files`; returns the names that changed."""
    changed = differences(directory, files)
    if not changed:
        return []
    parent = os.path.dirname(os.path.abspath(directory))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=parent)
    try:
        for name, text in files.items():
            old = os.path.join(directory, name)
            new = os.path.join(staging, name)
            if name not in changed and os.path.exists(old):
                shutil.copy2(old, new)  # keeps the mtime: no rebuild of an unchanged shard
            else:
                with open(new, "w") as f:
                    f.write(text)
        backup = None
        if os.path.exists(directory):
            backup = tempfile.mkdtemp(prefix=".old-", dir=parent)
            os.rmdir(backup)
            os.rename(directory, backup)
        os.rename(staging, directory)
        if backup:
            shutil.rmtree(backup)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return changed
