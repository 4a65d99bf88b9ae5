"""The names the emitted C++ gives what it defines, and the line that registers a
kernel: decided here once, so a rename is one edit and the plan holds no C++.

Each name is built from a name already checked to be identifier-safe: an ATen
overload's AtenOp.cpp_name (add_Tensor; a vendor op's name follows the
identifier grammar), or a private format's name (spec_reader.IDENTIFIER).
"""
from __future__ import annotations

from .aten import AtenOp
from .plan_model import AtenKernel, LaunchPlan
from .spec_model import PrivateFormatSpec


def wrapper(aten: AtenOp) -> str:
    """The PrivateUse1 kernel: wrap_add_Tensor."""
    return f"wrap_{aten.cpp_name}"


def autograd(aten: AtenOp) -> str:
    """The AutogradPrivateUse1 kernel (a decomposition's, or a vendor op's autograd)."""
    return f"autograd_{aten.cpp_name}"


def meta(aten: AtenOp) -> str:
    """A vendor op's Meta kernel."""
    return f"meta_{aten.cpp_name}"


def kernel_info(aten: AtenOp) -> str:
    """The static torch_fl::KernelInfo of a wrapper."""
    return f"kOp_{aten.cpp_name}"


def launch(plan: LaunchPlan) -> str:
    """The function that converts a spec entry's arguments and calls the SDK once."""
    return f"launch_{plan.entry.cpp_name}"


def private_format(spec: PrivateFormatSpec) -> str:
    """The torch_fl::PrivateFormat object, inside a shard's `namespace private_formats`
    (the prefix keeps a format named like a macro, EOF or errno, compilable)."""
    return f"format_{spec.name}"


def private_format_reference(spec: PrivateFormatSpec) -> str:
    """The same object named from a kernel, outside that namespace."""
    return f"private_formats::{private_format(spec)}"


def registration(name: str, function: str) -> str:
    """A kernel's line in its TORCH_LIBRARY_IMPL block."""
    return _impl(name, f"TORCH_FN({function})")


def aten_kernel_wrapper(kernel: AtenKernel) -> str:
    """ATen's kernel for a device key under a device guard, named as torchgen names
    CUDA's: wrapper_SparsePrivateUse1_clone."""
    return f"wrapper_{kernel.dispatch_key}_{kernel.aten.cpp_name}"


def boxed_registration(name: str, function: str) -> str:
    """The same for a boxed kernel (one function for every op)."""
    return _impl(name, f"torch::CppFunction::makeFromBoxedFunction<&{function}>()")


def _impl(name: str, kernel: str) -> str:
    return f'm.impl("{name}", {kernel});'
