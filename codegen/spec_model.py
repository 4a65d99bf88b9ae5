"""The typed model of a vendor spec: what specs/<vendor>.yaml says, as frozen
dataclasses. spec_parser.py builds it from located YAML nodes; the planner
checks it against ATen. See specs/README.md for the language.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from .errors import Location

# torch dtype names accepted in specs, and the c10::ScalarType each one means.
DTYPES: dict[str, str] = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
    "int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long",
    "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}


class FallbackPolicy(enum.Enum):
    CPU = "cpu"  # run the op on CPU through the boxed fallback (subject to TORCH_FL_FALLBACK)
    ERROR = "error"  # always raise: the vendor declares the op unsupported


class Variant(enum.Enum):
    OUT = "out"
    INPLACE = "inplace"


class PassBy(enum.Enum):
    VALUE = "value"
    POINTER = "pointer"  # the SDK takes `const T*`: the generated code passes &local


@dataclass(frozen=True)
class Converter:
    """How an ATen argument type becomes an SDK argument: `fn(aten_value)`."""
    aten_type: str
    function: str
    pass_by: PassBy
    location: Location


@dataclass(frozen=True)
class StatusConvention:
    type: str  # the SDK's status type, e.g. mluRet_t
    ok: str  # the success value
    message: str  # function: status → const char*
    # function: () → const char*, the op library's own detail on its last failure
    # ("": the driver's last_error_detail is shown instead)
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class SdkSpec:
    headers: tuple[str, ...]  # the vendor's op API; every `call:` symbol must be declared here
    glue: str  # header with the converters and the stream accessor
    status: StatusConvention
    stream: str  # function: torch_fl::DriverStream → the SDK's queue handle
    converters: dict[str, Converter]
    location: Location
    # Two-phase calls: the size query's name, from the call's, e.g. "{function}GetWorkspaceSize".
    # It takes the call's arguments (without stream and workspace) and a size_t* last.
    workspace_query: Optional[str] = None
    # An SDK whose every call is two-phase with an executor (Ascend-style).
    two_phase: Optional["TwoPhaseConvention"] = None


@dataclass(frozen=True)
class TwoPhaseConvention:
    """Every call `f(args)` of the SDK runs as two calls:
    `query(args, uint64_t* workspace_bytes, executor* executor)`, then
    `f(void* workspace, uint64_t workspace_bytes, executor executor, stream)`.
    The executor is created by the query and consumed by the second call."""
    query: str  # e.g. "{function}GetWorkspaceSize"
    executor: str  # the executor handle's C type, e.g. "npunnExecutor*"
    location: Location


@dataclass(frozen=True)
class CallArgument:
    """One argument of a `call:` line.

    `name`             an ATen argument, an output, or `stream`;
    `convert(name)`    the same with an explicit converter instead of the type's;
    `compute()`        a value the glue computes (e.g. the default generator's state).
    """
    name: Optional[str]
    converter: Optional[str]

    @property
    def text(self) -> str:
        """The argument as the generator prints it (comments, the support matrix)."""
        return f"{self.converter}({self.name or ''})" if self.converter else str(self.name)


@dataclass(frozen=True)
class CallSpec:
    function: str
    arguments: tuple[CallArgument, ...]
    location: Location

    def __str__(self) -> str:
        return f"{self.function}({', '.join(a.text for a in self.arguments)})"


@dataclass(frozen=True)
class OutputRule:
    """How the functional form allocates its result.

    `meta` (default): run the op on meta tensors (PyTorch's own shape and dtype logic).
    `{like: x}`:      same shape and dtype as the tensor argument x, contiguous
                      (`{like: [x, w]}` for an op with several outputs).
    `{rule: fn}`:     fn(op's arguments...) returns the expected outputs as meta
                      tensors, for ops whose meta function is not in C++
                      (the runtime provides common ones in torch_fl/output_rules.h).
    `{rule: fn, count: c}`: fn gives the largest output; the call writes how
                      many rows it filled into the device tensor `c`.
    """
    like: Optional[tuple[str, ...]]
    location: Location
    rule: Optional[str] = None
    # `{rule: fn, count: kept}`: an output whose length is data-dependent (nms).
    # The rule gives its largest shape; the call also writes the number of rows
    # it filled into a one-element int64 device tensor, named here as a call
    # argument, and the result is trimmed to them (the host waits for the count,
    # as PyTorch's CUDA nonzero does).
    count: Optional[str] = None


@dataclass(frozen=True)
class Guard:
    text: str  # as written, a Python-style condition: `input.dim() == 4 and not transposed`
    location: Location


class LayoutKind(enum.Enum):
    CONTIGUOUS = "contiguous"
    CHANNELS_LAST = "channels_last"
    ALIGNED = "aligned"  # data address aligned to `alignment` bytes
    CONVERT = "convert"  # a named converter to the vendor's private format


@dataclass(frozen=True)
class LayoutRule:
    argument: str
    kind: LayoutKind
    location: Location
    alignment: int = 0
    converter: str = ""
    # A converted input reused while its source is unchanged (`reuse: true`):
    # for weights, converted once and not again every step.
    reuse: bool = False


@dataclass(frozen=True)
class PrivateFormatSpec:
    """A vendor memory format (`formats:`), e.g. the NPU's NC1HWC0: tensors keep
    their public sizes while their device storage holds the vendor's layout.
    The three functions are the vendor glue's (see runtime's private_format.h)."""
    name: str
    rank: int  # the public rank the format applies to (4: NCHW)
    to_private: str  # at::Tensor(const at::Tensor& public_tensor)
    to_public: str  # at::Tensor(const at::Tensor& physical, at::IntArrayRef sizes)
    physical_sizes: str  # std::vector<int64_t>(at::IntArrayRef sizes)
    location: Location


@dataclass(frozen=True, kw_only=True)
class FormatRule:
    """Which arguments and results of one op are format-aware (`format:`):
    `takes` arguments are read in the format when they are in it (else public,
    or converted by their `layout` rule); `makes` results are always written in
    it; `keeps` results are in it exactly when the first `takes` argument is."""
    format: str
    takes: tuple[str, ...]
    makes: tuple[str, ...]
    keeps: tuple[str, ...]
    location: Location


@dataclass(frozen=True)
class CastRule:
    """An argument the SDK only takes in one dtype (`cast: {indices: int32}`):
    other dtypes are converted on the device before the call."""
    argument: str
    dtype: str
    location: Location


@dataclass(frozen=True)
class VersionGate:
    minimum: Optional[tuple[int, ...]]
    maximum: Optional[tuple[int, ...]]
    location: Location

    def admits(self, version: tuple[int, ...]) -> bool:
        size = 2
        v = version[:size]
        return (self.minimum is None or v >= self.minimum[:size]) and (self.maximum is None or v <= self.maximum[:size])

    def __str__(self) -> str:
        fmt = lambda v: ".".join(map(str, v))
        parts = ([f">={fmt(self.minimum)}"] if self.minimum else []) + ([f"<={fmt(self.maximum)}"] if self.maximum else [])
        return "torch " + ",".join(parts)


@dataclass(frozen=True, kw_only=True)
class OpSpec:
    name: str  # ATen overload name, e.g. add.Tensor
    location: Location
    call: Optional[CallSpec]  # None: the entry only states a fallback policy
    variants: tuple[Variant, ...]
    dtypes: tuple[str, ...]
    fallback: FallbackPolicy
    output: OutputRule
    # A real vendor limit that conformance reports instead of failing on.
    known_failure: Optional[str] = None
    # The tensor argument whose dtype decides native vs fallback (default: the first).
    dtype_from: Optional[str] = None
    # `when:` a condition on the arguments; calls that fail it take the fallback.
    guard: Optional["Guard"] = None
    # Per-argument layout the SDK needs (argument → rule).
    layouts: tuple["LayoutRule", ...] = ()
    # Dtypes that raise instead of falling back (`fallback: {default: cpu, float64: error}`).
    error_dtypes: tuple[str, ...] = ()
    # The torch versions the entry applies to (`torch: {min: "2.12", max: "2.13"}`).
    torch_versions: Optional["VersionGate"] = None
    # For a CompositeImplicitAutograd op: `decomposition` keeps the decomposition's
    # autograd (the native kernel runs when no gradient is needed).
    autograd: Optional[str] = None
    # Arguments converted to the one dtype the SDK takes for them.
    casts: tuple["CastRule", ...] = ()
    # A variant native for fewer dtypes than its functional overload
    # (`variants: [out, {inplace: [float32]}]`: ATen cannot divide integers in place).
    variant_dtypes: tuple[tuple[Variant, tuple[str, ...]], ...] = ()
    # The operator namespace: "aten" for `ops:`, another library's for `namespaces:`.
    namespace: str = "aten"
    # Arguments and results in a private format (`format:`).
    format_rule: Optional["FormatRule"] = None

    @property
    def qualified_name(self) -> str:
        """As the matrix and messages name it: add.Tensor, torchvision::nms."""
        return self.name if self.namespace == "aten" else f"{self.namespace}::{self.name}"

    def dtypes_of(self, variant: Optional[Variant]) -> tuple[str, ...]:
        """The dtypes declared native for the functional overload (None) or one of its variants."""
        return dict(self.variant_dtypes).get(variant, self.dtypes) if variant else self.dtypes


@dataclass(frozen=True)
class BackwardSpec:
    """The autograd formula of a custom op: a second custom op computing the
    gradients of `grads` (forward argument names, in the order it returns them)."""
    grads: tuple[str, ...]
    op: OpSpec  # its name is the backward op's; it has its own schema
    schema: str
    location: Location


@dataclass(frozen=True, kw_only=True)
class CustomOpSpec:
    """A vendor op exposed as torch.ops.<vendor>.<name>."""
    op: OpSpec
    schema: str
    schema_location: Location
    backward: Optional[BackwardSpec]
    reference: Optional[str]  # torch_fl.references.<name>: the CPU reference tests compare against


class AutocastPolicy(enum.Enum):
    LOWER_PRECISION_FP = "lower_precision_fp"
    FP32 = "fp32"
    PROMOTE = "promote"


@dataclass(frozen=True)
class AutocastEntry:
    op: str  # ATen overload name
    policy: AutocastPolicy
    location: Location


class CollectiveTransport(enum.Enum):
    # Device buffers are staged through host memory on the vendor's copy stream and
    # the collective runs on PyTorch's Gloo: any chip with copies and events has it.
    GLOO_STAGED = "gloo_staged"
    # The vendor's own collective library (NCCL, HCCL, CNCL) on the device's
    # streams: the vendor library implements torch_fl_vendor_collectives()
    # (runtime/include/torch_fl/collectives_abi.h) and the runtime drives it.
    VENDOR_CCL = "vendor_ccl"


# The dtypes Gloo's collectives take (int16 and complex reductions are refused by it).
GLOO_DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "int64", "bool")
# c10d's own backend names: a vendor's backend must not shadow one of them.
BUILTIN_COLLECTIVE_BACKENDS = ("gloo", "nccl", "mpi", "ucc", "xccl", "fake", "undefined", "threaded")


@dataclass(frozen=True)
class Library:
    """Another library whose operator namespace a spec may list (`namespaces:`)."""
    namespace: str  # the operator namespace: torch.ops.<namespace>
    module: str  # the Python module whose import registers its schemas
    distribution: str  # the pip distribution: its version goes into the matrix


# The namespaces a spec may list, and the library behind each. A spec chooses a
# namespace, never a module to import: the planner imports only these
# (library_ops.py reads their schemas).
KNOWN_LIBRARIES = {library.namespace: library for library in (
    Library("torchvision", "torchvision", "torchvision"),
)}


@dataclass(frozen=True)
class DistributedSpec:
    """The c10d backend the vendor registers (`distributed:`): the name scripts pass to
    torch.distributed.init_process_group, how its collectives move data, and the
    dtypes they accept (others raise naming the collective)."""
    backend: str
    transport: CollectiveTransport
    dtypes: tuple[str, ...]
    location: Location


@dataclass(frozen=True, kw_only=True)
class VendorSpec:
    path: str
    vendor: str
    device: str
    sdk: SdkSpec
    default_dtypes: tuple[str, ...]
    default_fallback: FallbackPolicy
    ops: tuple[OpSpec, ...]
    custom: tuple[CustomOpSpec, ...] = ()
    autocast: tuple[AutocastEntry, ...] = ()
    device_location: Optional[Location] = None
    # Ops of other libraries' namespaces (torchvision::nms), whose schemas the
    # library installed beside torch registers.
    library_ops: tuple[OpSpec, ...] = ()
    distributed: Optional[DistributedSpec] = None
    formats: tuple[PrivateFormatSpec, ...] = ()
