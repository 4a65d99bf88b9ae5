"""ATen operator schemas from the installed torch, through torchgen's model.

The schemas come from the native_functions.yaml packaged with torchgen in the
same torch installation the backend is built against, so a spec is always
checked against the ATen it will run on. Schemas are parsed lazily: a spec
names a few hundred of the ~2,600 overloads.
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Optional

import yaml

from torchgen import local
from torchgen.api.types import DispatcherSignature, NativeSignature
from torchgen.model import Argument, FunctionSchema, SchemaKind


@dataclass(frozen=True, kw_only=True)
class AtenOp:
    """One ATen overload: its schema plus the native_functions.yaml facts we need."""
    name: str  # "add.Tensor"
    schema: FunctionSchema
    has_cpp_meta: bool  # a C++ Meta kernel exists (structured, or a Meta/composite entry)
    function_variant: bool  # exposed as at::name(...)
    composite_implicit: bool  # CompositeImplicitAutograd: decomposes above the backend
    structured_group: bool = False  # part of a structured group: tensor lists are ITensorListRef
    decomposition: Optional[str] = None  # at::native:: function of a CompositeImplicitAutograd op
    # A C++ Meta kernel callable directly as at::meta::<name> (ATen/ops/<base>_meta_dispatch.h).
    # Calling it skips the dispatcher, and the Python meta registrations torch installs over
    # many Meta kernels (a Python call per op).
    direct_meta: bool = False
    # native_functions.yaml's device_guard: a backend's generated wrapper sets the device
    # before calling the kernel (torchgen does for CUDA's).
    device_guard: bool = True
    # native_functions.yaml's use_const_ref_for_mutable_tensors: its at::native:: kernel
    # takes and returns a mutated tensor as const at::Tensor&.
    const_ref_for_mutable_tensors: bool = False
    # Its structured kernel is a TensorIterator (`structured_inherits: TensorIteratorBase`,
    # itself or its structured delegate): elementwise, result shape the operands' broadcast.
    tensor_iterator: bool = False

    @property
    def cpp_name(self) -> str:
        """Identifier-safe name: add_Tensor, the suffix of at::_ops::<name>."""
        return self.schema.name.unambiguous_name()

    @property
    def kind(self) -> SchemaKind:
        return self.schema.kind()

    def dispatcher_decl(self, name: str) -> str:
        with _torchgen_locals(self.structured_group):
            return DispatcherSignature.from_schema(self.schema, symint=False).decl(name=name)

    def dispatcher_arguments(self) -> list[tuple[str, str]]:
        """(C++ type, name) of each dispatcher argument, in schema order."""
        with _torchgen_locals(self.structured_group):
            sig = DispatcherSignature.from_schema(self.schema, symint=False)
            return [(a.nctype.cpp_type(), a.name) for a in sig.arguments()]

    def returns_type(self) -> str:
        with _torchgen_locals(self.structured_group):
            return DispatcherSignature.from_schema(self.schema, symint=False).returns_type().cpp_type()

    def native_pointer_type(self, kernel: str) -> str:
        """The C++ type of a pointer to at::native::<kernel> as this op's kernel:
        at::Tensor (*)(const at::Tensor &, int64_t)."""
        with self._native_locals():
            # torchgen's rule (BackendMetadata.supports_symint): a kernel whose name
            # contains _symint takes SymInts.
            signature = NativeSignature(self.schema, symint="_symint" in kernel)
            parameters = ", ".join(binding.type for binding in signature.arguments())
            return f"{signature.returns_type().cpp_type()} (*)({parameters})"

    def native_definition(self, kernel: str, name: str) -> tuple[str, tuple[str, ...]]:
        """The head of a function named `name` with at::native::<kernel>'s signature, and
        its parameters' names in order (to forward them)."""
        with self._native_locals():
            signature = NativeSignature(self.schema, symint="_symint" in kernel)
            return signature.defn(name=name), tuple(binding.name for binding in signature.arguments())

    def _native_locals(self):
        # at::native:: signatures honour the entry's own const-ref flag (the dispatcher's do not).
        return local.parametrize(use_const_ref_for_mutable_tensors=self.const_ref_for_mutable_tensors,
                                 use_ilistref_for_tensor_lists=self.structured_group)

    def device_of(self) -> Optional[str]:
        """The argument whose device a device guard takes, by torchgen's rule for CUDA's
        kernels: a factory's `device`; otherwise self, an out= tensor, or the first
        tensor-like positional argument. None: nothing names a device."""
        arguments = self.schema.arguments
        if arguments.tensor_options is not None:
            return arguments.tensor_options.device.name
        self_arg = [arguments.self_arg.argument] if arguments.self_arg is not None else []
        for argument in (*self_arg, *arguments.out, *arguments.flat_positional):
            if argument.type.is_tensor_like():
                return argument.name
        return None

    @property
    def arguments(self) -> tuple[Argument, ...]:
        return tuple(self.schema.arguments.flat_all)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(self.schema.arguments.out)


def _torchgen_locals(structured_group: bool = False):
    # Mirrors how torchgen generates the dispatcher signatures we register against.
    return local.parametrize(use_const_ref_for_mutable_tensors=False,
                             use_ilistref_for_tensor_lists=structured_group)


def _has_cpp_meta(entry: dict) -> bool:
    if entry.get("structured") or entry.get("structured_delegate"):
        return True
    dispatch = entry.get("dispatch")
    if dispatch is None:  # no dispatch section: CompositeImplicitAutograd
        return True
    keys = {k.strip() for group in dispatch for k in group.split(",")}
    return bool(keys & {"Meta", "CompositeExplicitAutograd", "CompositeImplicitAutograd",
                        "CompositeExplicitAutogradNonFunctional"})


class AtenRegistry:
    def __init__(self, native_functions_path: str):
        with open(native_functions_path) as f:
            entries = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        self._entries: dict[str, dict] = {}
        for entry in entries:
            func = entry["func"]
            head = func[: func.index("(")]
            self._entries[head] = entry
        self._structured_bases = {name.split(".")[0] for name, e in self._entries.items() if e.get("structured")}

    @classmethod
    @functools.lru_cache(maxsize=1)  # immutable, and ~0.5 s to load: once per process
    def from_installed_torch(cls) -> "AtenRegistry":
        import torchgen
        return cls(os.path.join(os.path.dirname(torchgen.__file__), "packaged", "ATen", "native",
                                "native_functions.yaml"))

    @functools.cached_property
    def _names(self) -> tuple[str, ...]:
        return tuple(self._entries)

    def names(self) -> tuple[str, ...]:
        return self._names

    @functools.lru_cache(maxsize=None)
    def lookup(self, name: str) -> Optional[AtenOp]:
        entry = self._entries.get(name)
        if entry is None:
            return None
        variants = {v.strip() for v in str(entry.get("variants", "function")).split(",")}
        dispatch = entry.get("dispatch") or {}
        dispatch_keys = {k.strip() for group in dispatch for k in group.split(",")}
        composite_implicit = not dispatch or "CompositeImplicitAutograd" in dispatch_keys
        cia = composite_implicit and not entry.get("structured_delegate")
        decomposition = None
        if cia:
            decomposition = (dispatch.get("CompositeImplicitAutograd") or name.split(".")[0]) if dispatch else \
                name.split(".")[0]
        direct_meta = bool(entry.get("structured") or entry.get("structured_delegate") or "Meta" in dispatch_keys)
        return AtenOp(name=name, schema=FunctionSchema.parse(entry["func"]), has_cpp_meta=_has_cpp_meta(entry),
                      function_variant="function" in variants, composite_implicit=cia,
                      structured_group=self._structured_group(entry), decomposition=decomposition,
                      direct_meta=direct_meta, tensor_iterator=self._tensor_iterator(entry),
                      device_guard=entry.get("device_guard", True),
                      const_ref_for_mutable_tensors=entry.get("use_const_ref_for_mutable_tensors", False))

    def _tensor_iterator(self, entry: dict) -> bool:
        structured = self._entries.get(entry["structured_delegate"]) if entry.get("structured_delegate") else entry
        return structured is not None and structured.get("structured_inherits") == "TensorIteratorBase"

    def _structured_group(self, entry: dict) -> bool:
        if entry.get("structured") or entry.get("structured_delegate"):
            return True
        # A functional/in-place overload whose out= sibling is structured is part of the group.
        func = entry["func"]
        base = func[: func.index("(")].split(".")[0].rstrip("_")
        return base in self._structured_bases

    @functools.cached_property
    def _by_signature(self) -> dict[tuple[FunctionSchema, SchemaKind], str]:
        # Parsing every schema costs ~0.15 s, paid only when a spec derives variants.
        index: dict[tuple[FunctionSchema, SchemaKind], str] = {}
        for name in self._entries:
            op = self.lookup(name)
            if op.kind in (SchemaKind.out, SchemaKind.inplace):
                index.setdefault((op.schema.signature(), op.kind), name)
        return index

    def sibling(self, op: AtenOp, kind: SchemaKind) -> Optional[AtenOp]:
        """The out= or in-place overload that shares op's functional signature."""
        name = self._by_signature.get((op.schema.signature(), kind))
        return self.lookup(name) if name else None

    def dispatch_kernel(self, name: str, key: str) -> Optional[str]:
        """The at::native:: kernel native_functions.yaml registers for `name` under
        dispatch key `key` ("SparseCPU"), or None."""
        entry = self._entries.get(name)
        for keys, kernel in ((entry or {}).get("dispatch") or {}).items():
            if key in {k.strip() for k in keys.split(",")}:
                return kernel
        return None

    @functools.lru_cache(maxsize=None)
    def native_pointer_types(self, kernel: str) -> tuple[str, ...]:
        """The C++ function pointer types of the at::native::<kernel> overloads that
        native_functions.yaml declares (more than one: taking its address needs a cast)."""
        users = [name for name, entry in self._entries.items()
                 if kernel in (entry.get("dispatch") or {}).values()
                 # no dispatch section: CompositeImplicitAutograd's kernel, named as the op
                 or ("dispatch" not in entry and not entry.get("structured_delegate")
                     and name.split(".")[0] == kernel)]
        return tuple(sorted({self.lookup(name).native_pointer_type(kernel) for name in users}))

    def structured(self, name: str) -> bool:
        """Its kernels are structured: at::native::<kernel> is a class, not a function."""
        return bool((self._entries.get(name) or {}).get("structured"))

    def composite(self, name: str) -> bool:
        """A composite kernel (CompositeExplicit/ImplicitAutograd) serves every device."""
        dispatch = (self._entries.get(name) or {}).get("dispatch")
        if dispatch is None:
            return not (self._entries.get(name) or {}).get("structured_delegate")
        keys = {k.strip() for group in dispatch for k in group.split(",")}
        return bool(keys & {"CompositeExplicitAutograd", "CompositeImplicitAutograd"})
