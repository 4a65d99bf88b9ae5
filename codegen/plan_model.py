"""The plan: what the generator decided for each kernel, as typed data.

The planners (plan.py, plan_ops.py, plan_custom.py) build it from the spec
model and the ATen schemas; the emitters (emit_*.py, matrix.py) read it and
nothing else, and are the only writers of C++. No field holds C++ text: names
of arguments, of SDK and glue functions (grammar-checked by the parser), enums
and small trees (the guard).

A *kernel* is one registration with the dispatcher. A spec entry produces one
kernel for its own overload plus one per derived variant (out=, in-place), and
all of them share one *launch*: the function that converts arguments and calls
the SDK once.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional, Union

from torchgen.model import BaseTy

from . import guards
from .aten import AtenOp
from .spec_model import AutocastEntry, CallArgument, CastRule, Converter, DistributedSpec, FallbackPolicy, LayoutRule, PrivateFormatSpec, SdkSpec

STREAM_ARGUMENT = "stream"
# Expands to (pointer, bytes) of scratch memory sized by the SDK's workspace query.
WORKSPACE_ARGUMENT = "workspace"



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


@dataclass(frozen=True, kw_only=True)
class ScalarForm:
    """Where a Python number goes when it stands in for a tensor argument.

    PyTorch wraps `x * 2.0` as mul.Tensor with a 0-dim CPU tensor for 2.0. When
    the spec also lists the overload that takes that argument as a Scalar
    (mul.Scalar), the number goes to that entry's SDK call by value: no device
    tensor, no host-to-device copy, nothing to wait for. ATen defines the Scalar
    overload as the Tensor one with the number wrapped, so the result is the same.
    """
    argument: str  # the tensor argument a Python number may stand in for
    launch: "LaunchPlan"  # the Scalar overload's launch
    # This kernel's value for each of that launch's parameters (`argument` itself
    # is passed as the number).
    launch_arguments: tuple[str, ...]
    provenance: "Provenance"  # the Scalar overload's spec entry
    entry: str  # that entry's overload, e.g. "mul.Scalar"


class OpOrigin(enum.Enum):
    """Whose op a kernel implements, which decides where a refused call goes."""
    ATEN = "aten"  # an ATen overload (`ops:`): ATen's CPU kernel takes the fallback
    VENDOR = "vendor"  # the vendor's own op (`custom:`): no CPU kernel, a refused call raises
    LIBRARY = "library"  # another library's op (`namespaces:`): that library's CPU kernel takes the fallback


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


@dataclass(frozen=True, kw_only=True)
class LaunchPlan:
    sdk_function: str
    call_text: str  # the spec's call line, for the comment
    parameters: tuple[LaunchParameter, ...]
    call_arguments: tuple[CallArgument, ...]  # including `stream`, in SDK order
    entry: AtenOp  # the overload the spec entry names: the parameters' types are its argument types


@dataclass(frozen=True)
class DtypeDecision:
    """Which dtypes decide native vs fallback: a native kernel runs only when every
    dtype the SDK will see is one the spec declares."""
    operands: tuple["TensorInput", ...]  # computation operands (self of an in-place op included)
    index_like: tuple["TensorInput", ...]  # operands only when floating (see plan_ops.INDEX_LIKE_ARGUMENTS)
    outputs: tuple[str, ...]  # out= tensors the caller passed
    # The functional result's dtype (meta result: promotion, a dtype= argument) is checked too.
    check_result: bool


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
    # RULE with `count:`: the call argument the SDK writes the filled length into;
    # the rule's shape is the largest, the result is trimmed to the count.
    count: Optional[str] = None
    # META: a TensorIterator overload whose result for same-shape contiguous
    # operands the runtime remembers per dtypes and Scalars (elementwise_memo.h).
    remembered: bool = False


@dataclass(frozen=True)
class DtypePolicy:
    """The spec's native dtypes and what happens to the others."""
    native: tuple[str, ...]
    fallback: FallbackPolicy  # for dtypes not native (and for an entry without a call)
    error_dtypes: tuple[str, ...]  # dtypes that raise whatever the policy


@dataclass(frozen=True)
class KernelFormat:
    """A kernel's private format (the spec's `format:` rule, resolved for this
    overload): which arguments it reads in the format and which results it
    writes in it. Out= kernels have none: a caller's out= tensor is public."""
    format: PrivateFormatSpec
    takes: tuple[str, ...]  # this kernel's argument names
    makes: tuple[str, ...]  # this kernel's output names, always in the format
    keeps: tuple[str, ...]  # this kernel's output names, in it when takes[0] is


@dataclass(frozen=True, kw_only=True)
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
    scalar_form: Optional[ScalarForm] = None  # where a Python number for one tensor argument goes
    origin: OpOrigin = OpOrigin.ATEN
    private_format: Optional[KernelFormat] = None
    # Results that are not tensors (the SymInt max_q of fused attention): the output
    # rule computes them and the kernel returns them as they are.
    value_results: tuple[str, ...] = ()

    @property
    def registration_name(self) -> str:
        """The name registered under its namespace's TORCH_LIBRARY_IMPL."""
        return self.aten.name

    @property
    def qualified_name(self) -> str:
        """As the matrix, the runtime's reports and errors name it: add.Tensor,
        rms_norm (a vendor op), torchvision::nms (another library's)."""
        if self.origin == OpOrigin.LIBRARY:
            return f"{self.namespace}::{self.aten.name}"
        return self.aten.name


# The types of the non-tensor forward arguments a backward may read (saved as IValues):
# ATen's own base types, as the schema spells them, so the plan names no type of its own.
SAVED_VALUE_TYPES = (BaseTy.float, BaseTy.int, BaseTy.bool)


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
    type: BaseTy  # one of SAVED_VALUE_TYPES


BackwardArgument = Union[GradOutput, SavedTensor, SavedValue]


@dataclass(frozen=True, kw_only=True)
class AutogradPlan:
    """A custom op's autograd: what the forward saves and how the backward op is called."""
    forward: KernelPlan
    backward: KernelPlan
    saved_tensors: tuple[str, ...]  # forward tensor arguments the backward reads
    saved_values: tuple[SavedValue, ...]  # non-tensor forward arguments it reads
    backward_arguments: tuple[BackwardArgument, ...]  # in the backward schema's order
    gradient_of: tuple[Optional[int], ...]  # per forward argument: index in the backward's returns, or None


@dataclass(frozen=True, kw_only=True)
class CustomOpPlan:
    forward: KernelPlan
    schema: str
    backward: Optional[KernelPlan]
    backward_schema: Optional[str]
    autograd: Optional[AutogradPlan]
    reference: Optional[str]


@dataclass(frozen=True, kw_only=True)
class AtenKernel:
    """A kernel the backend registers for an ATen op on a device key besides its spec's
    (runtime/aten_kernels.yaml): ATen's own for the CPU counterpart key, or the runtime's."""
    dispatch_key: str  # "QuantizedPrivateUse1"
    aten: AtenOp
    kernel: str  # the function: at::native::<kernel>, or torch_fl::kernels::<kernel> when runtime
    runtime: bool  # the runtime's own kernel (runtime/src/), not ATen's
    overloaded: bool  # at::native::<kernel> names several functions: the registration picks one
    source: Provenance  # its line in runtime/aten_kernels.yaml


@dataclass(frozen=True, kw_only=True)
class BackendPlan:
    vendor: str  # the custom ops' namespace too
    device: str
    spec_path: str  # as messages and generated comments name it
    sdk: SdkSpec  # the SDK's conventions: headers, status, stream, workspace, two-phase calls
    spec_sha256: str
    torch_version: str
    kernels: tuple[KernelPlan, ...]  # each with its launch (KernelPlan.launch)
    custom_ops: tuple[CustomOpPlan, ...] = ()
    # Entries whose version gate excludes the installed torch: (overload, gate, source).
    gated: tuple[tuple[str, str, str], ...] = ()
    autocast: tuple[AutocastEntry, ...] = ()
    # (namespace, version) of the other libraries whose ops have kernels here.
    libraries: tuple[tuple[str, str], ...] = ()
    distributed: Optional[DistributedSpec] = None  # the vendor's c10d backend, if it declares one
    aten_kernels: tuple[AtenKernel, ...] = ()  # ATen's own kernels for the device keys

