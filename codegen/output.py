"""Writes a generated tree all-or-nothing.

Files are rendered in memory first; the tree is then written to a sibling
temporary directory and swapped in with renames, so an error or an interrupt
never leaves generated/<vendor>/ half-written. Unchanged files keep their
mtime, so the build recompiles only the shards whose text changed. A target
that is not a directory, or a parent that cannot be written, is an
OutputError before anything is written or moved.
"""
from __future__ import annotations

import os
import secrets
import shutil


class OutputError(Exception):
    """The output directory cannot be written; nothing was changed."""


def differences(directory: str, files: dict[str, str]) -> list[str]:
    """Paths (relative) that differ between `files` and what is on disk."""
    diffs = []
    existing = set(os.listdir(directory)) if os.path.isdir(directory) else set()
    for name, text in files.items():
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as f:
                if f.read() != text.encode("utf-8"):
                    diffs.append(name)
        except OSError:
            diffs.append(name)
    diffs += sorted(existing - set(files))
    return sorted(diffs)


def write_tree(directory: str, files: dict[str, str]) -> list[str]:
    """Makes `directory` contain exactly `files`; returns the names that changed."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise OutputError(f"{directory}: exists and is not a directory (the output is a directory of files)")
    changed = differences(directory, files)
    if not changed:
        return []
    parent = os.path.dirname(os.path.abspath(directory))
    try:
        os.makedirs(parent, exist_ok=True)
        staging = _new_directory(parent, ".staging-")
    except OSError as error:
        raise OutputError(f"{directory}: cannot be written: {error.strerror}") from None
    try:
        for name, text in files.items():
            old = os.path.join(directory, name)
            new = os.path.join(staging, name)
            if name not in changed and os.path.exists(old):
                shutil.copy2(old, new)  # keeps the mtime: no rebuild of an unchanged shard
            else:
                with open(new, "w", encoding="utf-8") as f:
                    f.write(text)
        _swap(staging, directory, parent)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise OutputError(f"{directory}: cannot be written: {error.strerror}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return changed


def _swap(staging: str, directory: str, parent: str) -> None:
    """Renames staging to directory; the old tree goes only once the new one is in place."""
    backup = None
    if os.path.exists(directory):
        backup = _new_directory(parent, ".old-")
        os.rmdir(backup)  # only its name: the old tree is renamed to it
        os.rename(directory, backup)
    try:
        os.rename(staging, directory)
    except OSError:
        if backup:
            os.rename(backup, directory)  # the old tree back where it was
        raise
    if backup:
        shutil.rmtree(backup)


def _new_directory(parent: str, prefix: str) -> str:
    """A new directory under parent, with the umask's permissions: it becomes the
    output tree, which must not keep tempfile.mkdtemp's private 0700."""
    while True:
        path = os.path.join(parent, f"{prefix}{secrets.token_hex(6)}")
        try:
            os.mkdir(path, 0o777)
            return path
        except FileExistsError:
            continue
