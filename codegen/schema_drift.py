"""A spec entry written against one torch's schema, generated for another's.

The specs are validated against the default torch, whose registrations are committed
in generated/<vendor>/support_matrix.json (with each overload's schema). Generating
for another torch, an entry whose overload's schema differs there is either carried
by the generator or refused:

- carried: a default changed, int became SymInt, an argument the entry never reads
  was retyped or removed, or the entry has no call (its fallback passes everything);
  generation goes on and says so in a note (torch_diff.notes_against_reference).
- refused: an argument was added (the SDK call would silently ignore it), an argument
  the entry reads (call, guard, layout, cast, dtype_from, output) was removed, renamed
  or retyped, or the results changed. That is a spec error at the entry's line naming
  both schemas: a version gate (`torch: {min, max}`) decides which releases the entry
  is for, and nothing else in the spec changes per version.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Optional

from torchgen.model import FunctionSchema

from . import guards
from .errors import ErrorSink
from .spec_model import OpSpec


@dataclass(frozen=True)
class ReferenceSchemas:
    """The registrations the specs were validated against: overload → schema text."""
    torch_version: str
    schemas: dict[str, str]

    @classmethod
    def load(cls, repo_root: str, vendor: str) -> Optional["ReferenceSchemas"]:
        """The committed matrix; None for a new vendor (nothing generated yet to compare with)."""
        return cls.from_file(os.path.join(repo_root, "generated", vendor, "support_matrix.json"))

    @classmethod
    def from_file(cls, path: str) -> Optional["ReferenceSchemas"]:
        try:
            with open(path) as f:
                matrix = json.load(f)
        except (OSError, ValueError):
            return None
        if not isinstance(matrix, dict) or not isinstance(matrix.get("ops"), list):
            return None
        schemas = {op["name"]: op["schema"] for op in matrix["ops"]
                   if isinstance(op, dict) and isinstance(op.get("name"), str) and isinstance(op.get("schema"), str)}
        return cls(str(matrix.get("torch_version", "?")), schemas)


def arguments_read(op_spec: OpSpec) -> set[str]:
    """The overload's arguments the entry's kernel reads by name, besides passing
    every argument on to the meta function and the fallback."""
    names: set[str] = set()
    if op_spec.call:
        names.update(arg.name for arg in op_spec.call.arguments if arg.name)
    if op_spec.guard:
        names.update(guards.names_in(op_spec.guard.text))
    names.update(rule.argument for rule in op_spec.layouts)
    names.update(rule.argument for rule in op_spec.casts)
    if op_spec.dtype_from:
        names.add(op_spec.dtype_from)
    if op_spec.output.like:
        names.update(op_spec.output.like)
    return names


def _type_text(argument) -> str:
    # SymInt is int to a kernel (the generated wrapper takes the concrete value)
    return str(argument.type).replace("SymInt", "int") + (f"({argument.annotation})" if argument.annotation else "")


def uncarried_changes(before: str, after: str, read: set[str], has_call: bool) -> list[str]:
    """What in the change from `before` to `after` the generated kernel cannot carry;
    empty when the generator carries it."""
    if not has_call:
        return []  # the fallback passes every argument as the new schema has it
    try:
        old, new = FunctionSchema.parse(before), FunctionSchema.parse(after)
    except Exception as error:  # noqa: BLE001 - torchgen raises AssertionError and others
        return [f"the schemas cannot be compared: one does not parse ({str(error).splitlines()[0] if str(error) else type(error).__name__})"]
    old_args = {a.name: a for a in old.arguments.flat_all}
    new_args = {a.name: a for a in new.arguments.flat_all}
    problems = []
    for name in new_args.keys() - old_args.keys():
        problems.append(f"argument `{name}` was added and the call would ignore it")
    for name in sorted(old_args.keys() - new_args.keys()):
        if name in read:
            problems.append(f"argument `{name}`, which the entry reads, was removed")
    for name in sorted(old_args.keys() & new_args.keys()):
        if name in read and _type_text(old_args[name]) != _type_text(new_args[name]):
            problems.append(f"argument `{name}`, which the entry reads, changed type "
                            f"from `{old_args[name].type}` to `{new_args[name].type}`")
    old_returns = [_type_text(r) for r in old.returns]
    new_returns = [_type_text(r) for r in new.returns]
    if old_returns != new_returns:
        problems.append(f"the results changed from ({', '.join(old_returns)}) to ({', '.join(new_returns)})")
    return sorted(problems)


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def check_entry(op_spec: OpSpec, overload: str, current_schema: str, reference: ReferenceSchemas,
                torch_version: str, errors: ErrorSink) -> bool:
    """False (and a spec error) when `overload`, which op_spec registers, changed
    from the reference torch's schema in a way its kernel cannot carry."""
    before = reference.schemas.get(overload)
    if before is None or before == current_schema or reference.torch_version == torch_version:
        return True
    problems = uncarried_changes(before, current_schema, arguments_read(op_spec), op_spec.call is not None)
    if not problems:
        return True
    old, new = reference.torch_version, torch_version
    newer = tuple(int(p) for p in new.split(".") if p.isdigit()) > tuple(int(p) for p in old.split(".") if p.isdigit())
    keep_old = f'torch: {{max: "{_minor(old)}"}}' if newer else f'torch: {{min: "{_minor(old)}"}}'
    errors.add(op_spec.location,
               f"'{overload}': its schema changed from torch {old} to {new} and the entry's version gate "
               f"does not cover the change: {'; '.join(problems)}. torch {old}: `{before}`; torch {new}: "
               f"`{current_schema}`",
               f"gate the entry to the releases its call was written for (`{keep_old}`); the other "
               "releases take the CPU fallback until an entry for the new schema is written "
               "(`make diff-torch` lists every change)")
    return False
