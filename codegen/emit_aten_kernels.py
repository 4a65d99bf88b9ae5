"""The AtenKernels of runtime/aten_kernels.yaml (plan_aten_kernels.py) as C++.

The runtime's own kernels are declared here with their op's native signature (the
runtime defines them in torch_fl::kernels; a definition whose parameters differ
leaves the declared one undefined: linking runtime_test fails naming it, and the
backend library fails to load).

Of ATen's kernels, an op whose native_functions.yaml entry keeps the device guard (the default) is
registered through a wrapper that sets the device first, as torchgen's generated
wrappers do for CUDA's kernels, with its rule for which argument names the device:
ATen's kernels allocate on the *current* device, so without it a factory or an op
on `mlu:1` called while `mlu:0` is current made its tensors on the wrong device.
The others (views, accessors: `device_guard: False`) are registered directly, an
overloaded at::native:: name cast to this op's signature.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import emit_names
from .plan_model import AtenKernel, BackendPlan


@dataclass(frozen=True)
class AtenKernelsFile:
    headers: tuple[str, ...]  # ATen/ops/<header>_native.h, declaring the kernels
    runtime_declarations: tuple[str, ...]  # the runtime's kernels, in torch_fl::kernels
    wrappers: tuple[tuple[str, ...], ...]  # each a function's lines
    keys: tuple[tuple[str, tuple[str, ...]], ...]  # (dispatch key, its registrations) in the file's order


def aten_kernels_file(plan: BackendPlan) -> AtenKernelsFile:
    wrappers = []
    keys: dict[str, list[str]] = {}
    declarations: dict[str, None] = {}
    for kernel in plan.aten_kernels:
        wrapper = () if kernel.runtime else _guarded_wrapper(kernel)
        if kernel.runtime:
            head, _ = kernel.aten.native_definition(kernel.kernel, kernel.kernel)
            declarations[f"{head};"] = None
            function = f"torch_fl::kernels::{kernel.kernel}"
        elif wrapper:
            wrappers.append(wrapper)
            function = emit_names.aten_kernel_wrapper(kernel)
        else:
            function = f"at::native::{kernel.kernel}"
            if kernel.overloaded:
                function = f"static_cast<{kernel.aten.native_pointer_type(kernel.kernel)}>(&{function})"
        keys.setdefault(kernel.dispatch_key, []).append(emit_names.registration(kernel.aten.name, function))
    headers = sorted({kernel.aten.schema.name.name.base for kernel in plan.aten_kernels})
    return AtenKernelsFile(tuple(headers), tuple(declarations), tuple(wrappers),
                           tuple((key, tuple(lines)) for key, lines in keys.items()))


def _guarded_wrapper(kernel: AtenKernel) -> tuple[str, ...]:
    device_of = kernel.aten.device_of() if kernel.aten.device_guard else None
    if device_of is None:
        return ()
    head, parameters = kernel.aten.native_definition(kernel.kernel, emit_names.aten_kernel_wrapper(kernel))
    factory = kernel.aten.schema.arguments.tensor_options is not None
    guard = (f"const c10::OptionalDeviceGuard device_guard({device_of});" if factory else
             f"const c10::OptionalDeviceGuard device_guard(at::device_of({device_of}));")
    return (f"{head} {{", f"  {guard}", f"  return at::native::{kernel.kernel}({', '.join(parameters)});", "}")
