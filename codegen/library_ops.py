"""Schemas of other libraries' operator namespaces (torchvision::nms, ...).

A spec lists such ops under `namespaces: {<namespace>: {<op>: <entry>}}`. Their
schemas are not in ATen's native_functions.yaml: the library registers them
when it is imported. The generator imports the library installed beside torch
(only the libraries named here: a spec chooses a namespace, never a module to
import) and reads the schemas it registered, so an entry is checked against the
ops it will run with, as an `ops:` entry is against ATen. Without the library
(torchvision has no wheel for every torch), the namespace's entries are listed
as not built for this torch, and the backend registers nothing for them.
"""
from __future__ import annotations

import functools
import importlib
import importlib.metadata
from dataclasses import dataclass, field
from typing import Optional

from torchgen.model import FunctionSchema

from .aten import AtenOp


@dataclass(frozen=True)
class Library:
    namespace: str  # the operator namespace: torch.ops.<namespace>
    module: str  # the Python module whose import registers its schemas
    distribution: str  # the pip distribution: its version goes into the matrix


KNOWN_LIBRARIES = {library.namespace: library for library in (
    Library("torchvision", "torchvision", "torchvision"),
)}


@dataclass(frozen=True)
class LibrarySchemas:
    library: Library
    version: str  # "" when not installed
    ops: dict[str, AtenOp] = field(default_factory=dict)  # "nms", "roi_align", "x.overload"
    unavailable: str = ""  # why no schemas were read, e.g. "not installed beside this torch"

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
    for registered in torch._C._jit_get_all_schemas():
        text = str(registered)
        if not text.startswith(prefix):
            continue
        schema = FunctionSchema.parse(text[len(prefix):])
        name = str(schema.name)
        ops[name] = AtenOp(name, schema, has_cpp_meta=False, function_variant=False, composite_implicit=False)
    return LibrarySchemas(library, version.split("+")[0], dict(sorted(ops.items())))


def known(namespace: str) -> Optional[Library]:
    return KNOWN_LIBRARIES.get(namespace)
