"""Reads one callgrind output file: the instructions each function executed
itself (its self cost), keyed by function and the library it lives in.

callgrind_annotate is not used: it attributes a part collected from a client
request (collection toggled on deep inside a call stack) to the outermost
frame. The format (valgrind's docs, "Callgrind Format Specification"): `fn=`
and `ob=` switch the current function and object, both name-compressed as
`(id) name` on first use and `(id)` after; a `calls=` line is followed by one
cost line that is the callee's inclusive cost, which is not the caller's own.
"""
from __future__ import annotations

import collections
import dataclasses
import re

_NAMED = re.compile(r"(c?(?:fn|ob|fl|fi|fe))=\((\d+)\)(?: (.*))?$")


@dataclasses.dataclass(frozen=True)
class Function:
    name: str
    library: str  # the object file's base name, e.g. libtorch_cpu.so


@dataclasses.dataclass
class Profile:
    total: int
    self_cost: collections.Counter  # Function -> instructions

    def by_library(self) -> collections.Counter:
        libraries: collections.Counter = collections.Counter()
        for function, cost in self.self_cost.items():
            libraries[function.library] += cost
        return libraries


def read_profile(path: str) -> Profile:
    function_names: dict[str, str] = {}
    object_names: dict[str, str] = {}
    function, library = "???", "???"
    total = 0
    costs: collections.Counter = collections.Counter()
    callee_cost_next = False
    with open(path, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            named = _NAMED.match(line)
            if named:
                key, ident, name = named.groups()
                table = function_names if key.endswith("fn") else object_names if key.endswith("ob") else None
                if table is not None and name is not None:
                    table[ident] = name
                if key == "fn":
                    function = function_names[ident]
                elif key == "ob":
                    library = object_names[ident].rsplit("/", 1)[-1]
                continue
            if line.startswith("calls="):
                callee_cost_next = True
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
            elif line[:1].isdigit() or line[:1] in "+-*":
                if callee_cost_next:
                    callee_cost_next = False
                    continue
                fields = line.split()
                if len(fields) >= 2:
                    costs[Function(function, library)] += int(fields[1])
    return Profile(total, costs)
