"""Schemas of other libraries' operator namespaces (torchvision::nms, ...).

A spec lists such ops under `namespaces: {<namespace>: {<op>: <entry>}}`. Their
schemas are not in ATen's native_functions.yaml: the library registers them
when it is imported. The generator imports the library installed beside torch
(only those spec_model.KNOWN_LIBRARIES names: a spec chooses a namespace, never
a module to import) and reads the schemas it registered, so an entry is checked
against the ops it will run with, as an `ops:` entry is against ATen. Without
the library (torchvision has no wheel for every torch), the namespace's entries
are listed as not registered for this torch, and the backend registers nothing
for them.
"""
from __future__ import annotations

import functools
import importlib
import importlib.metadata
from dataclasses import dataclass, field

from torchgen.model import FunctionSchema

from .aten import AtenOp
from .spec_model import KNOWN_LIBRARIES, Library


@dataclass(frozen=True)
class LibrarySchemas:
    library: Library
    version: str  # "" when not installed
    ops: dict[str, AtenOp] = field(default_factory=dict)  # "nms", "roi_align", "x.overload"
    unavailable: str = ""  # why no schemas were read, e.g. "not installed beside this torch"
    # Registered schemas torchgen cannot parse: name → its error. A spec entry naming
    # one is a spec error; the others do not stop generation.
    unparsed: dict[str, str] = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return not self.unavailable


@functools.lru_cache(maxsize=None)  # an import per process
def load(namespace: str) -> LibrarySchemas:
    """The schemas `namespace`'s library registers, from the installed library."""
    library = KNOWN_LIBRARIES[namespace]
    try:
        version = importlib.metadata.version(library.distribution)
    except importlib.metadata.PackageNotFoundError:
        return LibrarySchemas(library, "", unavailable="not installed beside this torch")
    try:
        importlib.import_module(library.module)
        import torch
    except Exception as error:  # a wheel built for another torch fails here with its own message
        first_line = (str(error).splitlines() or [type(error).__name__])[0]
        return LibrarySchemas(library, version, unavailable=f"{version} does not import with this torch: "
                              f"{first_line}")
    prefix = f"{namespace}::"
    ops: dict[str, AtenOp] = {}
    unparsed: dict[str, str] = {}
    for registered in torch._C._jit_get_all_schemas():
        text = str(registered)
        if not text.startswith(prefix):
            continue
        name = registered.name[len(prefix):] + (f".{registered.overload_name}" if registered.overload_name else "")
        try:
            schema = FunctionSchema.parse(text[len(prefix):])
        except Exception as error:  # torchgen's own assertion, for a type it does not model
            unparsed[name] = (str(error).splitlines() or [type(error).__name__])[0]
            continue
        ops[name] = AtenOp(name=name, schema=schema, has_cpp_meta=False, function_variant=False,
                           composite_implicit=False)
    version = version.split("+")[0]
    if not ops and not unparsed:
        # torchvision catches the failure to load its C++ extension (a wheel built for
        # another torch) and imports without registering an op.
        return LibrarySchemas(library, version, unavailable=f"{version} imported but registered no "
                              f"{namespace}:: ops (its C++ extension did not load)")
    return LibrarySchemas(library, version, dict(sorted(ops.items())), unparsed=unparsed)

