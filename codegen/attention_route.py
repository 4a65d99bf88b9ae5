"""SDPA's route to a vendor's fused attention kernel.

`F.scaled_dot_product_attention` on a PrivateUse1 tensor asks ATen's
`_fused_sdp_choice_stub` which kernel to run; the answer OVERRIDEABLE sends the
call to `_scaled_dot_product_fused_attention_overrideable`, whose gradient is
its `_backward` op (derivatives.yaml). A spec that declares the forward gets the
stub registered (emit_attention), answering OVERRIDEABLE exactly where the
forward's own checks (dtypes, `when:`) accept the call; PyTorch's math path
serves the rest. Both ops exist only as hooks: ATen's kernel for them throws,
so there is no CPU fallback to fall back to.
"""
from __future__ import annotations

from .errors import ErrorSink, Location
from .plan_model import KernelKind, KernelPlan
from .spec_model import FallbackPolicy

FORWARD = "_scaled_dot_product_fused_attention_overrideable"
BACKWARD = f"{FORWARD}_backward"
HOOKS = frozenset({FORWARD, BACKWARD})


def forward_kernel(kernels: tuple[KernelPlan, ...]) -> KernelPlan | None:
    """The spec's native kernel for the fused forward, if it declares one."""
    for kernel in kernels:
        if kernel.aten.name == FORWARD and kernel.kind == KernelKind.FUNCTIONAL and kernel.launch is not None:
            return kernel
    return None


def check(kernels: list[KernelPlan], claimed: dict[str, Location], errors: ErrorSink) -> None:
    """The forward without its backward would route training steps to a gradient
    the device cannot compute (and ATen's hook kernel throws)."""
    for kernel in kernels:
        if kernel.aten.name in HOOKS and kernel.dtypes.fallback != FallbackPolicy.ERROR:
            errors.add(claimed[kernel.aten.name], f"'{kernel.aten.name}' has no CPU kernel to fall back to "
                       "(ATen's kernel for this hook throws)", "declare `fallback: error` on it")
    native = {kernel.aten.name for kernel in kernels if kernel.launch is not None}
    if FORWARD in native and BACKWARD not in native:
        errors.add(claimed[FORWARD], f"'{FORWARD}' is declared without '{BACKWARD}': SDPA's gradient calls it, "
                   "and ATen has no kernel for it to fall back to", f"declare '{BACKWARD}' as well")
