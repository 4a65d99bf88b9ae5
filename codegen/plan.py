"""Spec + ATen → kernel plans. Every semantic check happens here, before any output.

A *kernel* is one registration with the dispatcher. A spec entry produces one
kernel for its own overload plus one per derived variant (out=, in-place), and
all of them share one *launch*: the function that converts arguments and calls
the SDK once.
"""
from __future__ import annotations

import enum
import hashlib
import importlib.metadata
import os
import re
from dataclasses import dataclass
from typing import Optional, Union

from torchgen.model import BaseTy, BaseType, FunctionSchema, SchemaKind

from . import cpp_text, device_names, guards, spec_file
from .aten import AtenOp, AtenRegistry
from .errors import ErrorSink, Location, SpecErrors, did_you_mean
from .limits import HEADER_BYTES
from .spec import (AutocastEntry, CallArgument, CastRule, Converter, FallbackPolicy, LayoutRule, OpSpec, SdkSpec,
                   Variant, VendorSpec)

STREAM_ARGUMENT = "stream"
# Expands to (pointer, bytes) of scratch memory sized by the SDK's workspace query.
WORKSPACE_ARGUMENT = "workspace"

# ATen types the SDK receives as plain C++ values when the spec names no converter.
_PRIMITIVE_TYPES = {"int": "int64_t", "float": "double", "bool": "bool"}


class TensorArgKind(enum.Enum):
    TENSOR = "Tensor"
    OPTIONAL = "Tensor?"
    LIST = "Tensor[]"


@dataclass(frozen=True)
class TensorInput:
    """A tensor-valued input a kernel checks for device placement."""
    name: str
    kind: TensorArgKind
    cpu_scalar_ok: bool  # a 0-dim CPU tensor (a Python number) may stand in


class KernelKind(enum.Enum):
    FUNCTIONAL = "functional"  # allocates its outputs
    OUT = "out"  # writes into caller-provided out= tensors
    INPLACE = "inplace"  # writes into self


@dataclass(frozen=True)
class Provenance:
    """Where a plan came from: the spec entry's file and line (comments, error messages)."""
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class LaunchParameter:
    """One ATen value the launch function receives (and converts for the SDK)."""
    name: str  # the name in the `call:` line, an argument (or output) of the entry's overload
    is_output: bool  # an output the kernel allocated or was given; else an input of the overload
    converter: Optional[Converter]  # the type's converter; None: passed as is


@dataclass(frozen=True)
class LaunchPlan:
    function_name: str  # launch_<op>
    sdk_function: str
    call_text: str  # the spec's call line, for the comment
    parameters: tuple[LaunchParameter, ...]
    call_arguments: tuple[CallArgument, ...]  # including `stream`, in SDK order
    entry: AtenOp  # the overload the spec entry names: the parameters' types are its argument types


# ATen's names for tensor arguments that may hold indices, class targets or
# masks. An integral or bool tensor there has a dtype fixed by the op (int64/int32
# indices, bool masks), not the computation dtype, so it takes no part in the
# native/fallback decision (an SDK that takes another index width says so with
# a `cast:` rule); a floating one (mse_loss's target) is a computation operand.
INDEX_LIKE_ARGUMENTS = frozenset({"index", "indices", "target", "mask", "condition"})


@dataclass(frozen=True)
class DtypeDecision:
    """Which dtypes decide native vs fallback: a native kernel runs only when every
    dtype the SDK will see is one the spec declares."""
    operands: tuple["TensorInput", ...]  # computation operands (self of an in-place op included)
    index_like: tuple["TensorInput", ...]  # operands only when floating (see INDEX_LIKE_ARGUMENTS)
    outputs: tuple[str, ...]  # out= tensors the caller passed
    # The functional result's dtype (meta result: promotion, a dtype= argument) is checked too.
    check_result: bool


# ATen's in-place writes that skip the internal-overlap check: filling is
# idempotent, so elements of the output that alias each other get the same value
# (ATen's fill_ builds its TensorIterator with check_mem_overlap off; zero_ is
# fill_; masked_fill_ only warns that this use is deprecated).
_INTERNAL_OVERLAP_ALLOWED = frozenset({"fill_", "zero_", "masked_fill_"})


@dataclass(frozen=True)
class OverlapCheck:
    """PyTorch's memory-overlap rules for the tensors a kernel writes that the caller
    passed in (out= arguments, or self of an in-place op), as TensorIterator applies them."""
    written: tuple[str, ...]
    inputs: tuple["TensorInput", ...]  # each written tensor may share memory with these only exactly
    internal_allowed: bool  # True: elements of a written tensor may alias each other


class AllocationKind(enum.Enum):
    """How a kernel learns the shape and dtype of what it writes."""
    META = "meta"  # runs this overload on meta tensors: PyTorch's own shape, dtype and argument checks
    LIKE = "like"  # `output: {like: x}`: each output as a tensor argument, contiguous
    RULE = "rule"  # `output: {rule: fn}`: fn(the overload's inputs) returns the expected outputs on meta
    NONE = "none"  # an in-place kernel the spec lists itself writes self as is


@dataclass(frozen=True)
class Allocation:
    kind: AllocationKind
    like: tuple[str, ...] = ()  # LIKE: one tensor argument per output
    rule: Optional[str] = None  # RULE: the function (checked against the glue or runtime headers)
    inputs: tuple[str, ...] = ()  # RULE: the overload's inputs it receives, in schema order


@dataclass(frozen=True)
class DtypePolicy:
    """The spec's native dtypes and what happens to the others."""
    native: tuple[str, ...]
    fallback: FallbackPolicy  # for dtypes not native (and for an entry without a call)
    error_dtypes: tuple[str, ...]  # dtypes that raise whatever the policy


@dataclass(frozen=True)
class KernelPlan:
    aten: AtenOp
    kind: KernelKind
    provenance: Provenance
    entry: str  # the spec entry's overload (kernels of one entry share a shard)
    launch: Optional[LaunchPlan]  # None: the entry only states a fallback policy
    derived_from: Optional[str]  # the spec entry's overload when this kernel is a derived variant
    # This kernel's value for each launch parameter: one of its argument or output names.
    launch_arguments: tuple[str, ...]
    tensor_inputs: tuple[TensorInput, ...]
    output_names: tuple[str, ...]  # the names this kernel writes (returns, out args or self)
    dtype_decision: DtypeDecision
    dtypes: DtypePolicy
    allocation: Allocation
    layouts: tuple[LayoutRule, ...] = ()  # per tensor argument, applied before the launch
    casts: tuple[CastRule, ...] = ()  # per tensor argument, after its layout
    namespace: str = "aten"  # "aten", or the vendor's namespace for custom ops
    guard: Optional[guards.Expr] = None  # the `when:` condition, type-checked against this overload
    overlap: Optional[OverlapCheck] = None  # None: the kernel writes only tensors it allocated
    known_failure: Optional[str] = None  # a vendor limit the conformance run reports, not fails on

    @property
    def registration_name(self) -> str:
        return self.aten.name

    @property
    def wrapper_name(self) -> str:
        return f"wrap_{self.aten.cpp_name}"


class SavedValueType(enum.Enum):
    """The non-tensor forward arguments a backward may read (saved as IValues)."""
    FLOAT = "float"
    INT = "int"
    BOOL = "bool"


@dataclass(frozen=True)
class GradOutput:
    """A backward argument: the gradient of the forward's index-th return."""
    index: int


@dataclass(frozen=True)
class SavedTensor:
    """A backward argument: the index-th tensor the forward saved."""
    index: int


@dataclass(frozen=True)
class SavedValue:
    """A backward argument: a non-tensor forward argument, saved by name."""
    name: str
    type: SavedValueType


BackwardArgument = Union[GradOutput, SavedTensor, SavedValue]


@dataclass(frozen=True)
class AutogradPlan:
    """A custom op's autograd: what the forward saves and how the backward op is called."""
    forward: KernelPlan
    backward: KernelPlan
    saved_tensors: tuple[str, ...]  # forward tensor arguments the backward reads
    saved_values: tuple[SavedValue, ...]  # non-tensor forward arguments it reads
    backward_arguments: tuple[BackwardArgument, ...]  # in the backward schema's order
    gradient_of: tuple[Optional[int], ...]  # per forward argument: index in the backward's returns, or None


@dataclass(frozen=True)
class CustomOpPlan:
    forward: KernelPlan
    schema: str
    backward: Optional[KernelPlan]
    backward_schema: Optional[str]
    autograd: Optional[AutogradPlan]
    reference: Optional[str]


@dataclass(frozen=True)
class BackendPlan:
    vendor: str  # the custom ops' namespace too
    device: str
    spec_path: str  # as messages and generated comments name it
    sdk: SdkSpec  # the SDK's conventions: headers, status, stream, workspace, two-phase calls
    spec_sha256: str
    torch_version: str
    kernels: tuple[KernelPlan, ...]
    launches: tuple[LaunchPlan, ...]
    custom_ops: tuple[CustomOpPlan, ...] = ()
    # Entries whose version gate excludes the installed torch: (overload, gate, source).
    gated: tuple[tuple[str, str, str], ...] = ()
    autocast: tuple[AutocastEntry, ...] = ()


def normalize_type(aten_type: str) -> str:
    """'int[1]?' → 'int[]?', 'SymInt' → 'int': the key converters are declared under."""
    text = re.sub(r"\[\d+\]", "[]", aten_type)
    return text.replace("SymInt", "int")


def _is_tensor(arg) -> bool:
    return isinstance(arg.type, BaseType) and arg.type.name == BaseTy.Tensor


def _is_tensor_list(arg) -> bool:
    return str(arg.type) == "Tensor[]"


def _is_optional_tensor(arg) -> bool:
    return arg.type.is_nullable() and str(arg.type) == "Tensor?"


def _return_names(op: AtenOp) -> tuple[str, ...]:
    returns = op.schema.returns
    if len(returns) == 1:
        return (returns[0].name or "out",)
    return tuple(r.name or f"out{i}" for i, r in enumerate(returns))


# The runtime's headers: what a `torch_fl::` converter or output rule may name.
RUNTIME_HEADERS = "runtime/include/torch_fl"


def _declared_symbols(repo_root: str, headers: tuple[str, ...], errors: ErrorSink, where: Location) -> set[str]:
    """Names declared as functions (`name(`) in the headers, which are paths
    below repo_root (a header outside it, through a symlink, is an error)."""
    symbols: set[str] = set()
    root = os.path.realpath(repo_root)
    for header in headers:
        path = os.path.join(repo_root, header)
        if os.path.commonpath([os.path.realpath(path), root]) != root:
            errors.add(where, f"SDK header '{header}' is outside the repository", "name a header below it")
            continue
        try:
            data = spec_file.read_bytes(path, f"SDK header '{header}'", where, HEADER_BYTES)
        except SpecErrors as failure:
            for error in failure.errors:
                errors.add(error.location, error.message, "paths are relative to the repository root")
            continue
        text = data.decode("utf-8", errors="replace")  # comments may be in any encoding: only names matter
        symbols.update(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*\(", text))
    return symbols


def _runtime_headers(repo_root: str) -> tuple[str, ...]:
    directory = os.path.join(repo_root, RUNTIME_HEADERS)
    return tuple(f"{RUNTIME_HEADERS}/{name}" for name in sorted(os.listdir(directory)) if name.endswith(".h"))


class Planner:
    def __init__(self, spec: VendorSpec, aten: AtenRegistry, repo_root: str, spec_text: str):
        self.spec = spec
        self.aten = aten
        self.errors = ErrorSink()
        self.repo_root = repo_root
        self.spec_text = spec_text
        self.symbols = _declared_symbols(repo_root, spec.sdk.headers, self.errors, spec.sdk.location)
        self.glue_symbols = _declared_symbols(repo_root, (spec.sdk.glue,), self.errors, spec.sdk.location)
        self.runtime_symbols = _declared_symbols(repo_root, _runtime_headers(repo_root), self.errors,
                                                 spec.sdk.location)
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
        """Every op entry: the ATen ops, the custom ops and their backward ops."""
        return list(self.spec.ops) + [c.op for c in self.spec.custom] + [
            c.backward.op for c in self.spec.custom if c.backward]

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
        launches: list[LaunchPlan] = []
        claimed: dict[str, Location] = {}
        gated = []
        for op_spec in self.spec.ops:
            gate = op_spec.torch_versions
            if gate is not None and not gate.admits(self.torch_version):
                gated.append((op_spec.name, str(gate), f"{op_spec.location.path}:{op_spec.location.line}"))
                continue
            for kernel in self._plan_entry(op_spec, launches):
                previous = claimed.get(kernel.registration_name)
                if previous is not None:
                    self.errors.add(op_spec.location,
                                    f"'{kernel.registration_name}' is registered twice",
                                    f"also produced by the entry at line {previous.line}; keep one")
                    continue
                claimed[kernel.registration_name] = op_spec.location
                kernels.append(kernel)
        custom_ops = [plan for plan in (self._plan_custom(c, launches) for c in self.spec.custom) if plan]
        autocast = self._check_autocast()
        self.errors.raise_if_any()
        digest = hashlib.sha256(self.spec_text.encode()).hexdigest()
        return BackendPlan(self.spec.vendor, self.spec.device, self.spec.path, self.spec.sdk, digest,
                           self.torch_version_text, tuple(kernels), tuple(launches), tuple(custom_ops), tuple(gated),
                           autocast)

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

    # ------------------------------------------------------------------ custom ops

    def _parse_custom_schema(self, text: str, expected_name: str, where: Location) -> Optional[AtenOp]:
        try:
            schema = FunctionSchema.parse(text)
        except Exception as error:  # torchgen raises AssertionError/RuntimeError with its own message
            self.errors.add(where, f"custom schema '{text}' does not parse: {str(error).splitlines()[0]}",
                            "write it as in native_functions.yaml: `name(Tensor x, float eps=1e-6) -> Tensor`")
            return None
        if str(schema.name) != expected_name:
            self.errors.add(where, f"custom schema names '{schema.name}', but the entry is '{expected_name}'",
                            "the schema's name must be the entry's key")
            return None
        # Argument names become C++ parameter names of the generated kernel.
        spec_names = self._spec_names()
        names = [a.name for a in schema.arguments.flat_all] + [r.name for r in schema.returns if r.name]
        for name in names:
            if not cpp_text.is_parameter_name(name) or name in spec_names:
                self.errors.add(where, f"custom schema argument '{name}' of '{expected_name}' cannot be a C++ "
                                "parameter name", "use an identifier that is not a C++ keyword, a function or "
                                "namespace the spec names, or a name the generated kernel declares (op, x_arg, ...)")
                return None
        return AtenOp(expected_name, schema, has_cpp_meta=False, function_variant=True, composite_implicit=False)

    def _plan_custom(self, custom, launches: list[LaunchPlan]) -> Optional[CustomOpPlan]:
        namespace = self.spec.vendor
        forward_op = self._parse_custom_schema(custom.schema, custom.op.name, custom.schema_location)
        if forward_op is None:
            return None
        forward = self._plan_entry(custom.op, launches, resolved=forward_op, namespace=namespace)
        backward = autograd = None
        if custom.backward is not None:
            bw_op = self._parse_custom_schema(custom.backward.schema, custom.backward.op.name,
                                              custom.backward.location)
            if bw_op is not None:
                planned = self._plan_entry(custom.backward.op, launches, resolved=bw_op, namespace=namespace)
                backward = planned[0] if planned else None
            if forward and backward:
                autograd = self._plan_autograd(custom, forward[0], backward)
        if not forward:
            return None
        return CustomOpPlan(forward[0], custom.schema, backward, custom.backward.schema if custom.backward else None,
                            autograd, custom.reference)

    def _plan_autograd(self, custom, forward: KernelPlan, backward: KernelPlan) -> Optional[AutogradPlan]:
        where = custom.backward.location
        forward_args = {a.name: a for a in forward.aten.schema.arguments.flat_all}
        forward_returns = _return_names(forward.aten)
        tensor_args = [n for n, a in forward_args.items() if _is_tensor(a)]
        for grad in custom.backward.grads:
            if grad not in tensor_args:
                self.errors.add(where, f"backward grad '{grad}' is not a tensor argument of '{custom.op.name}'",
                                did_you_mean(grad, tensor_args))
                return None
        if len(backward.aten.schema.returns) != len(custom.backward.grads):
            self.errors.add(where, f"the backward schema returns {len(backward.aten.schema.returns)} tensor(s) "
                            f"for {len(custom.backward.grads)} grads")
            return None
        grad_names = {"grad": 0} if len(forward_returns) == 1 else {}
        grad_names.update({f"grad_{r}": i for i, r in enumerate(forward_returns)})
        saved_tensors, saved_values, arguments = [], [], []
        for arg in backward.aten.schema.arguments.flat_all:
            if arg.name in grad_names:
                arguments.append(GradOutput(grad_names[arg.name]))
            elif arg.name in forward_args:
                if _is_tensor(forward_args[arg.name]):
                    arguments.append(SavedTensor(len(saved_tensors)))
                    saved_tensors.append(arg.name)
                else:
                    value_type = {t.value: t for t in SavedValueType}.get(str(arg.type))
                    if value_type is None:
                        self.errors.add(where, f"backward argument '{arg.name}' of type {arg.type} cannot be "
                                        "saved for the backward", "use Tensor, float, int or bool arguments")
                        return None
                    saved = SavedValue(arg.name, value_type)
                    arguments.append(saved)
                    saved_values.append(saved)
            else:
                known = sorted(grad_names) + list(forward_args)
                self.errors.add(where, f"backward argument '{arg.name}' is neither a forward argument nor a "
                                "gradient", did_you_mean(arg.name, known, f"expected one of: {', '.join(known)}"))
                return None
        gradient_of = tuple(custom.backward.grads.index(a.name) if a.name in custom.backward.grads else None
                            for a in forward.aten.schema.arguments.flat_all)
        return AutogradPlan(forward, backward, tuple(saved_tensors), tuple(saved_values), tuple(arguments),
                            gradient_of)

    # ------------------------------------------------------------------

    def _plan_entry(self, op_spec: OpSpec, launches: list[LaunchPlan], resolved: Optional[AtenOp] = None,
                    namespace: str = "aten") -> list[KernelPlan]:
        aten = resolved or self.aten.lookup(op_spec.name)
        if aten is None:
            self.errors.add(op_spec.location, f"unknown ATen overload '{op_spec.name}'",
                            did_you_mean(op_spec.name, self.aten.names()))
            return []
        if aten.composite_implicit and op_spec.call is not None:
            if op_spec.autograd != "decomposition":
                self.errors.add(op_spec.location,
                                f"'{op_spec.name}' is CompositeImplicitAutograd: a native kernel would bypass "
                                "its decomposition's autograd",
                                "add `autograd: decomposition` (native when no gradient is needed), or list the "
                                "ops it decomposes into instead")
                return []
            if op_spec.variants or (aten.decomposition or "").endswith("_symint"):
                self.errors.add(op_spec.location, f"'{op_spec.name}': `autograd: decomposition` supports a "
                                "functional overload without variants whose decomposition takes no SymInt",
                                "list the ops it decomposes into instead")
                return []
        elif op_spec.autograd is not None:
            self.errors.add(op_spec.location, f"'{op_spec.name}' is not CompositeImplicitAutograd: its autograd "
                            "comes from PyTorch's own formula", "remove `autograd`")
        kind = {SchemaKind.functional: KernelKind.FUNCTIONAL, SchemaKind.inplace: KernelKind.INPLACE,
                SchemaKind.out: KernelKind.OUT}.get(aten.kind)
        if kind is None:
            self.errors.add(op_spec.location, f"'{op_spec.name}' is a {aten.kind.name} overload, which cannot "
                            "be registered from a spec")
            return []
        if kind != KernelKind.FUNCTIONAL and op_spec.variants:
            self.errors.add(op_spec.location, f"variants can only be derived from a functional overload, "
                            f"'{op_spec.name}' is {kind.value}")
            return []
        launch = self._plan_launch(op_spec, aten, kind) if op_spec.call else None
        if op_spec.call and launch is None:
            return []
        if launch:
            launches.append(launch)
        if op_spec.output.like is not None:
            if kind == KernelKind.OUT or Variant.OUT in op_spec.variants:
                # No meta function checks the caller's out= tensors (the generated
                # C++ used to call a meta function that is not there).
                self.errors.add(op_spec.output.location, f"'{op_spec.name}' sizes its output like a tensor "
                                "argument: its out= form has no meta function to check the out= tensors",
                                "remove `out` from `variants`, or size the output by `output: {rule: ...}`")
            tensor_names = [a.name for a in aten.arguments if _is_tensor(a)]
            for like in op_spec.output.like:
                if like not in tensor_names:
                    self.errors.add(op_spec.output.location,
                                    f"output rule names '{like}', which is not a tensor argument "
                                    f"of '{op_spec.name}'", did_you_mean(like, tensor_names))
            if len(op_spec.output.like) != len(aten.schema.returns):
                self.errors.add(op_spec.output.location, f"output rule lists {len(op_spec.output.like)} tensor(s) "
                                f"for the {len(aten.schema.returns)} returns of '{op_spec.name}'")
        elif op_spec.output.rule is not None:
            if op_spec.variants:
                self.errors.add(op_spec.output.location, f"'{op_spec.name}' sizes its output by a rule: its out= "
                                "and in-place variants have no meta function to check them",
                                "remove `variants`, or list those overloads with their own rule")
        elif kind in (KernelKind.FUNCTIONAL, KernelKind.OUT) and op_spec.call and not aten.has_cpp_meta:
            self.errors.add(op_spec.location, f"'{op_spec.name}' has no C++ meta function to size its output",
                            "declare `output: {like: <tensor argument>}` or `output: {rule: <C++ function>}`")
        kernels = [self._kernel(op_spec, aten, kind, launch, None, entry=aten, namespace=namespace)]
        for variant in op_spec.variants:
            sibling_kind = SchemaKind.out if variant == Variant.OUT else SchemaKind.inplace
            sibling = self.aten.sibling(aten, sibling_kind)
            if sibling is None:
                self.errors.add(op_spec.location, f"'{op_spec.name}' has no {variant.value} variant in ATen",
                                f"remove '{variant.value}' from its variants")
                continue
            kernels.append(self._kernel(op_spec, sibling, KernelKind.OUT if variant == Variant.OUT
                                        else KernelKind.INPLACE, launch, op_spec.name, entry=aten))
        return kernels

    def _plan_launch(self, op_spec: OpSpec, aten: AtenOp, kind: KernelKind) -> Optional[LaunchPlan]:
        call = op_spec.call
        assert call is not None
        ok = True
        if call.function not in self.symbols:
            self.errors.add(call.location, f"SDK function '{call.function}' is not declared in "
                            f"{', '.join(self.spec.sdk.headers)}", did_you_mean(call.function, self.symbols))
            ok = False
        inputs = {a.name: a for a in aten.schema.arguments.flat_non_out}
        outputs = {KernelKind.FUNCTIONAL: _return_names(aten),
                   KernelKind.OUT: tuple(a.name for a in aten.out_arguments)}.get(kind, ())
        parameters = []
        two_phase = self.spec.sdk.two_phase
        if two_phase is not None:
            query = two_phase.query.format(function=call.function)
            if query not in self.symbols:
                self.errors.add(call.location, f"two-phase query '{query}' of '{op_spec.name}' is not declared in "
                                f"{', '.join(self.spec.sdk.headers)}", did_you_mean(query, self.symbols))
                ok = False
            for implicit in (STREAM_ARGUMENT, WORKSPACE_ARGUMENT):
                if any(a.name == implicit for a in call.arguments):
                    self.errors.add(call.location, f"'{op_spec.name}' names '{implicit}', but in a two-phase SDK the "
                                    "stream and the workspace go to the execute call by themselves",
                                    f"remove '{implicit}' from the call")
                    ok = False
        for call_arg in call.arguments:
            name = call_arg.name
            if name == WORKSPACE_ARGUMENT:
                query = (self.spec.sdk.workspace_query or "").format(function=call.function)
                if not self.spec.sdk.workspace_query:
                    self.errors.add(call.location, f"'{op_spec.name}' passes a workspace, but the SDK declares no "
                                    "workspace convention", 'add `workspace_query: "{function}GetWorkspaceSize"` '
                                    "under sdk")
                    ok = False
                elif query not in self.symbols:
                    self.errors.add(call.location, f"workspace query '{query}' of '{op_spec.name}' is not declared "
                                    f"in {', '.join(self.spec.sdk.headers)}", did_you_mean(query, self.symbols))
                    ok = False
                continue
            if name is None or name == STREAM_ARGUMENT or name in {p.name for p in parameters}:
                continue
            if name in outputs:
                parameters.append(LaunchParameter(name, True, self.spec.sdk.converters.get("Tensor")))
                continue
            arg = inputs.get(name)
            if arg is None:
                known = list(inputs) + list(outputs) + [STREAM_ARGUMENT, WORKSPACE_ARGUMENT]
                self.errors.add(call.location, f"call argument '{name}' names no parameter of '{op_spec.name}'",
                                did_you_mean(name, known, f"expected one of: {', '.join(known)}"))
                ok = False
                continue
            type_key = normalize_type(str(arg.type))
            converter = self.spec.sdk.converters.get(type_key)
            if converter is None and type_key not in _PRIMITIVE_TYPES and call_arg.converter is None:
                self.errors.add(call.location, f"no converter for ATen type '{type_key}' (argument '{name}' "
                                f"of '{op_spec.name}')", f"add `{type_key}: <function>` under sdk.converters")
                ok = False
                continue
            parameters.append(LaunchParameter(name, False, converter))
        if not ok:
            return None
        return LaunchPlan(f"launch_{aten.cpp_name}", call.function, str(call), tuple(parameters), call.arguments,
                          aten)

    def _kernel(self, op_spec: OpSpec, aten: AtenOp, kind: KernelKind, launch: Optional[LaunchPlan],
                derived_from: Optional[str], entry: AtenOp, namespace: str = "aten") -> KernelPlan:
        tensor_inputs = []
        for arg in aten.schema.arguments.flat_non_out:
            if _is_tensor(arg):
                # self of an in-place kernel is its output: a CPU scalar cannot stand in for it.
                scalar_ok = not (kind == KernelKind.INPLACE and arg.name == "self")
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.TENSOR, scalar_ok))
            elif _is_optional_tensor(arg):
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.OPTIONAL, False))
            elif _is_tensor_list(arg):
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.LIST, False))
        if kind == KernelKind.FUNCTIONAL:
            outputs = _return_names(aten)
        elif kind == KernelKind.OUT:
            outputs = tuple(a.name for a in aten.out_arguments)
        else:
            outputs = ("self",)
        # Launch arguments: the entry's output names re-bound to this kernel's outputs.
        if entry.kind == SchemaKind.out:
            entry_outputs = tuple(a.name for a in entry.out_arguments)
        elif kind != KernelKind.INPLACE or derived_from:
            entry_outputs = _return_names(entry)
        else:
            entry_outputs = ()
        launch_arguments = []
        for param in launch.parameters if launch else ():
            if param.name in entry_outputs:
                launch_arguments.append("self" if kind == KernelKind.INPLACE
                                        else outputs[entry_outputs.index(param.name)])
            else:
                launch_arguments.append(param.name)
        tensor_names = [t.name for t in tensor_inputs]
        if op_spec.dtype_from is not None:  # the spec names the one operand that carries the dtype
            if op_spec.dtype_from not in tensor_names:
                self.errors.add(op_spec.location, f"dtype_from names '{op_spec.dtype_from}', which is not a tensor "
                                f"argument of '{aten.name}'", did_you_mean(op_spec.dtype_from, tensor_names))
            operands = tuple(t for t in tensor_inputs if t.name == op_spec.dtype_from)
            index_like = ()
        else:
            operands = tuple(t for t in tensor_inputs if t.name not in INDEX_LIKE_ARGUMENTS)
            index_like = tuple(t for t in tensor_inputs if t.name in INDEX_LIKE_ARGUMENTS)
        dtype_decision = DtypeDecision(operands, index_like, outputs if kind == KernelKind.OUT else (),
                                       check_result=kind == KernelKind.FUNCTIONAL)
        allocation = _allocation(op_spec, aten, kind, derived_from)
        guard = None
        if op_spec.guard is not None:
            arg_types = {a.name: str(a.type) for a in aten.schema.arguments.flat_all}
            try:
                guard = guards.parse(op_spec.guard.text, arg_types)
            except guards.GuardError as error:
                self.errors.add(op_spec.guard.location, str(error), error.suggestion)
        for rule in op_spec.layouts:
            if rule.argument not in tensor_names:
                self.errors.add(rule.location, f"layout rule names '{rule.argument}', which is not a tensor "
                                f"argument of '{aten.name}'", did_you_mean(rule.argument, tensor_names))
        plain_tensors = [a.name for a in aten.schema.arguments.flat_non_out if str(a.type) == "Tensor"]
        for rule in op_spec.casts:
            if rule.argument not in plain_tensors:
                self.errors.add(rule.location, f"cast rule names '{rule.argument}', which is not a (non-optional) "
                                f"Tensor argument of '{aten.name}'", did_you_mean(rule.argument, plain_tensors))
        overlap = None
        if kind != KernelKind.FUNCTIONAL:
            overlap = OverlapCheck(outputs, tuple(t for t in tensor_inputs if t.name not in outputs),
                                   aten.name.split(".")[0] in _INTERNAL_OVERLAP_ALLOWED)
        loc = op_spec.location
        return KernelPlan(aten, kind, Provenance(loc.path, loc.line), op_spec.name, launch, derived_from,
                          tuple(launch_arguments), tuple(tensor_inputs), outputs, dtype_decision,
                          DtypePolicy(op_spec.dtypes, op_spec.fallback, op_spec.error_dtypes), allocation,
                          op_spec.layouts, op_spec.casts, namespace, guard, overlap, op_spec.known_failure)


def _allocation(op_spec: OpSpec, aten: AtenOp, kind: KernelKind, derived_from: Optional[str]) -> Allocation:
    """Derived variants and functional kernels learn the expected result from the
    overload's meta function (or the spec's rule); a spec-listed in-place op
    writes self as is. A `like` rule sizes the functional form; its derived
    in-place form writes self as is."""
    output = op_spec.output
    if output.like is not None:
        return Allocation(AllocationKind.LIKE, like=output.like) if kind != KernelKind.INPLACE else \
            Allocation(AllocationKind.NONE)
    if output.rule is not None:
        if kind == KernelKind.INPLACE:
            return Allocation(AllocationKind.NONE)
        return Allocation(AllocationKind.RULE, rule=output.rule,
                          inputs=tuple(a.name for a in aten.schema.arguments.flat_non_out))
    if derived_from or kind in (KernelKind.FUNCTIONAL, KernelKind.OUT):
        return Allocation(AllocationKind.META)
    return Allocation(AllocationKind.NONE)

