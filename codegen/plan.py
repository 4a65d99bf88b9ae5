"""Spec + ATen → the backend's plan (plan_model.py). Every semantic check happens
before any output: the symbols the spec names (SDK, glue, runtime headers),
the device name, autocast, and through the planners of ATen ops (plan_ops.py)
and custom ops (plan_custom.py) every entry.
"""
from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
from typing import Optional

from torchgen.model import SchemaKind

from . import attention_route, device_names, library_ops, schema_drift, spec_file
from .aten import AtenRegistry
from .errors import ErrorSink, Location, SpecErrors, did_you_mean
from .limits import HEADER_BYTES
from .plan_aten_kernels import plan_aten_kernels
from .plan_custom import CustomOpPlanner
from .plan_model import BackendPlan, KernelPlan, OpOrigin
from .plan_ops import OpPlanner
from .plan_scalar_forms import pair_scalar_forms
from .spec_model import AutocastEntry, OpSpec, VendorSpec


# The runtime's headers: what a `torch_fl::` converter or output rule may name.
RUNTIME_HEADERS = "runtime/include/torch_fl"


# `#include "name"` in an SDK header: a header beside it whose declarations it
# makes visible (an umbrella header over per-kind headers, vendors/npu/sdk/npu_ops.h).
_QUOTED_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)


def _declared_symbols(repo_root: str, headers: tuple[str, ...], errors: ErrorSink, where: Location,
                      follow_includes: bool = False) -> set[str]:
    """Names declared as functions (`name(`) in the headers, which are paths
    below repo_root (a header outside it, through a symlink, is an error).
    follow_includes: also in the headers they include by quotes that lie beside
    them, below repo_root (others, found on the compiler's include path, are not
    read), each header once."""
    symbols: set[str] = set()
    root = os.path.realpath(repo_root)
    read: set[str] = set()
    pending = [(header, True) for header in headers]
    for header, named in pending:  # grows as includes are found
        path = os.path.join(repo_root, header)
        real = os.path.realpath(path)
        if os.path.commonpath([real, root]) != root:
            if named:
                errors.add(where, f"SDK header '{header}' is outside the repository", "name a header below it")
            continue
        if not named and (real in read or not os.path.isfile(real)):
            continue
        read.add(real)
        try:
            data = spec_file.read_bytes(path, f"SDK header '{header}'", where, HEADER_BYTES)
        except SpecErrors as failure:
            for error in failure.errors:
                errors.add(error.location, error.message, "paths are relative to the repository root")
            continue
        text = data.decode("utf-8", errors="replace")  # comments may be in any encoding: only names matter
        symbols.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text))
        if follow_includes:
            directory = os.path.dirname(header)
            pending.extend((os.path.normpath(os.path.join(directory, name)), False)
                           for name in _QUOTED_INCLUDE.findall(text))
    return symbols


def _runtime_headers(repo_root: str) -> tuple[str, ...]:
    directory = os.path.join(repo_root, RUNTIME_HEADERS)
    return tuple(f"{RUNTIME_HEADERS}/{name}" for name in sorted(os.listdir(directory)) if name.endswith(".h"))


class Planner:
    def __init__(self, spec: VendorSpec, aten: AtenRegistry, repo_root: str, spec_text: str,
                 reference: Optional[schema_drift.ReferenceSchemas] = None):
        self.spec = spec
        # the registrations the specs were validated against (the default torch's), to
        # check an entry against when generating for another torch; None: no check
        self.reference = reference
        self.aten = aten
        self.errors = ErrorSink()
        self.repo_root = repo_root
        self.spec_text = spec_text
        self.symbols = _declared_symbols(repo_root, spec.sdk.headers, self.errors, spec.sdk.location,
                                         follow_includes=True)
        self.glue_symbols = _declared_symbols(repo_root, (spec.sdk.glue,), self.errors, spec.sdk.location)
        self.runtime_symbols = _declared_symbols(repo_root, _runtime_headers(repo_root), self.errors,
                                                 spec.sdk.location)
        self.ops = OpPlanner(spec, aten, self.errors, self.symbols)
        self.custom = CustomOpPlanner(self.ops, self._spec_names)
        self._check_converters()
        self._check_device()
        self.torch_version_text = importlib.metadata.version("torch").split("+")[0]
        self.torch_version = tuple(int(p) for p in self.torch_version_text.split(".")[:3] if p.isdigit())

    def _check_converter(self, function: str, where: Location, what: str) -> None:
        """A converter (or output rule) is a glue function, or a runtime one (torch_fl::...)."""
        header, symbols = self.spec.sdk.glue, self.glue_symbols
        if function.startswith("torch_fl::"):
            header, symbols = RUNTIME_HEADERS, self.runtime_symbols
        name = function.rsplit("::", 1)[-1]
        if name not in symbols:
            self.errors.add(where, f"unknown converter '{function}' for {what}: not declared in {header}",
                            did_you_mean(name, symbols))

    def _check_device(self) -> None:
        """The backend renames PrivateUse1 to the device: a name PyTorch parses as its own cannot be it."""
        problem = device_names.problem(self.spec.device)
        if problem:
            self.errors.add(self.spec.device_location or self.spec.sdk.location, *problem)

    def _spec_names(self) -> set[str]:
        """The unqualified names and namespaces the spec makes the generated code use
        (SDK functions, converters, stream, status, rules): a parameter must not hide them."""
        sdk = self.spec.sdk
        entries = self._entries()
        qualified = ([c.function for c in sdk.converters.values()] +
                     [sdk.stream, sdk.status.type, sdk.status.message, sdk.status.ok] +
                     [e.call.function for e in entries if e.call] +
                     [a.converter for e in entries if e.call for a in e.call.arguments if a.converter] +
                     [r.converter for e in entries for r in e.layouts if r.converter] +
                     [e.output.rule for e in entries if e.output.rule])
        return {name.lstrip(":").split("::")[0] for name in qualified}

    def _entries(self) -> list[OpSpec]:
        """Every op entry: the ATen ops, the custom ops and their backward ops, other libraries' ops."""
        return list(self.spec.ops) + [c.op for c in self.spec.custom] + [
            c.backward.op for c in self.spec.custom if c.backward] + list(self.spec.library_ops)

    def _check_converters(self) -> None:
        sdk = self.spec.sdk
        for converter in sdk.converters.values():
            self._check_converter(converter.function, converter.location, f"ATen type '{converter.aten_type}'")
        self._check_converter(sdk.stream, sdk.location, "sdk.stream")
        for op_spec in self._entries():
            for arg in op_spec.call.arguments if op_spec.call else ():
                if arg.converter:
                    self._check_converter(arg.converter, op_spec.call.location, f"call argument '{arg.text}'")
            for rule in op_spec.layouts:
                if rule.converter:
                    self._check_converter(rule.converter, rule.location, f"the layout of '{rule.argument}'")
            if op_spec.output.rule:
                self._check_converter(op_spec.output.rule, op_spec.output.location,
                                      f"the output rule of '{op_spec.name}'")

    def plan(self) -> BackendPlan:
        kernels: list[KernelPlan] = []
        claimed: dict[str, Location] = {}
        gated = []
        for op_spec in self.spec.ops:
            gate = op_spec.torch_versions
            if gate is not None and not gate.admits(self.torch_version):
                gated.append((op_spec.name, str(gate), f"{op_spec.location.path}:{op_spec.location.line}"))
                continue
            aten = self.aten.lookup(op_spec.name)
            if aten is not None and not self._carried_from_reference(op_spec, op_spec.name, str(aten.schema)):
                continue
            for kernel in self.ops.plan_entry(op_spec):
                if not self._carried_from_reference(op_spec, kernel.qualified_name, str(kernel.aten.schema)):
                    continue
                previous = claimed.get(kernel.qualified_name)
                if previous is not None:
                    self.errors.add(op_spec.location,
                                    f"'{kernel.registration_name}' is registered twice",
                                    f"also produced by the entry at line {previous.line}; keep one")
                    continue
                claimed[kernel.qualified_name] = op_spec.location
                kernels.append(kernel)
        attention_route.check(kernels, claimed, self.errors)
        libraries = self._plan_library_ops(kernels, claimed, gated)
        aten_kernels = plan_aten_kernels(self.repo_root, self.aten, self.errors, claimed)
        custom_ops = [plan for plan in (self.custom.plan(c) for c in self.spec.custom) if plan]
        autocast = self._check_autocast()
        self.errors.raise_if_any()
        digest = hashlib.sha256(self.spec_text.encode()).hexdigest()
        return BackendPlan(vendor=self.spec.vendor, device=self.spec.device, spec_path=self.spec.path,
                           sdk=self.spec.sdk, spec_sha256=digest, torch_version=self.torch_version_text,
                           kernels=pair_scalar_forms(tuple(kernels)),
                           custom_ops=tuple(custom_ops), gated=tuple(gated), autocast=autocast,
                           libraries=tuple(libraries), distributed=self.spec.distributed,
                           aten_kernels=aten_kernels)

    def _carried_from_reference(self, op_spec: OpSpec, overload: str, schema: str) -> bool:
        """Generating for another torch than the specs were validated against: the
        overload's schema change is one the entry's kernel carries (schema_drift.py)."""
        if self.reference is None:
            return True
        return schema_drift.check_entry(op_spec, overload, schema, self.reference, self.torch_version_text,
                                        self.errors)

    def _plan_library_ops(self, kernels: list[KernelPlan], claimed: dict[str, Location],
                          gated: list[tuple[str, str, str]]) -> list[tuple[str, str]]:
        """`namespaces:` entries against the schemas their library registers; a
        library not installed beside this torch leaves its entries unbuilt (listed
        with the gated ones). Returns (namespace, library version) of those built."""
        built: dict[str, str] = {}
        for op_spec in self.spec.library_ops:
            namespace = op_spec.namespace  # one of spec_model.KNOWN_LIBRARIES (the parser checked)
            where = f"{op_spec.location.path}:{op_spec.location.line}"
            gate = op_spec.torch_versions
            if gate is not None and not gate.admits(self.torch_version):
                gated.append((op_spec.qualified_name, str(gate), where))
                continue
            schemas = library_ops.load(namespace)
            if not schemas.available:
                gated.append((op_spec.qualified_name, f"{schemas.library.distribution} ({schemas.unavailable})", where))
                continue
            op = schemas.ops.get(op_spec.name)
            if op_spec.name in schemas.unparsed:
                self.errors.add(op_spec.location, f"the schema {namespace} {schemas.version} registers for "
                                f"'{op_spec.name}' does not parse: {schemas.unparsed[op_spec.name]}",
                                "remove the entry: the generator cannot type its arguments")
                continue
            if op is None:
                self.errors.add(op_spec.location, f"'{op_spec.name}' is not an op of {namespace} "
                                f"{schemas.version}", did_you_mean(op_spec.name, schemas.ops))
                continue
            if op_spec.variants:
                self.errors.add(op_spec.location, f"'{op_spec.qualified_name}': variants are derived from ATen's "
                                "out= and in-place overloads, another library's op has none", "remove `variants`")
                continue
            built[namespace] = schemas.version
            for kernel in self.ops.plan_entry(op_spec, resolved=op, namespace=namespace,
                                              origin=OpOrigin.LIBRARY):
                if kernel.qualified_name in claimed:
                    self.errors.add(op_spec.location, f"'{kernel.qualified_name}' is registered twice",
                                    f"also produced by the entry at line {claimed[kernel.qualified_name].line}; "
                                    "keep one")
                    continue
                claimed[kernel.qualified_name] = op_spec.location
                kernels.append(kernel)
        return sorted(built.items())

    def _check_autocast(self) -> tuple[AutocastEntry, ...]:
        seen: dict[str, AutocastEntry] = {}
        for entry in self.spec.autocast:
            op = self.aten.lookup(entry.op)
            if op is None:
                self.errors.add(entry.location, f"unknown ATen overload '{entry.op}' in autocast.{entry.policy.value}",
                                did_you_mean(entry.op, self.aten.names()))
            elif op.kind != SchemaKind.functional:
                self.errors.add(entry.location, f"autocast applies to functional overloads, '{entry.op}' is "
                                f"{op.kind.name}")
            elif entry.op in seen:
                self.errors.add(entry.location, f"'{entry.op}' has two autocast policies "
                                f"({seen[entry.op].policy.value} and {entry.policy.value})", "keep one")
            else:
                seen[entry.op] = entry
        return tuple(seen.values())
