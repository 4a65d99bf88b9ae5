"""The C++ of SDPA's route to the spec's fused attention kernel (attention_route
says why it exists): a predicate with the forward kernel's own checks, and the
choice ATen's `_fused_sdp_choice_stub` calls for this device."""
from __future__ import annotations

from typing import Optional

from .attention_route import forward_kernel
from .cpp_text import string_literal
from .emit_blocks import CppBlock, comments, source
from .emit_kernel import acceptance_block
from .plan_model import BackendPlan

# What the choice needs: ATen's stub and SDPBackend, and the runtime's policy.
HEADERS = ("torch_fl/sdp_choice.h",)

_ACCEPTS = "fused_attention_accepts"


def route_blocks(plan: BackendPlan) -> Optional[tuple[str, tuple[CppBlock, ...]]]:
    """(the forward's spec entry, its blocks), or None when the spec declares no fused attention."""
    forward = forward_kernel(plan.kernels)
    if forward is None:
        return None
    where = source(forward)
    choice = CppBlock(
        comments("scaled_dot_product_attention's choice on this device (ATen's _fused_sdp_choice_stub): the fused",
                 f"kernel of {where} where its checks accept the call, PyTorch's math path otherwise.",
                 "The fused op takes no enable_gqa: the runtime keeps grouped heads on the math path."),
        ("int64_t choose_sdp_backend(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,",
         "                           const ::std::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,",
         "                           ::std::optional<double> scale, bool enable_gqa) {",
         "  const bool accepted = torch_fl::same_head_count(query, key, value) &&",
         f"                        {_ACCEPTS}(query, key, value, attn_mask, dropout_p, is_causal,",
         "                                                /*return_debug_mask=*/false, scale);",
         f"  return torch_fl::sdp_backend_choice(accepted, {string_literal(where)});",
         "}",
         "",
         "const torch_fl::SdpChoiceRegistration register_sdp_choice{&choose_sdp_backend};"))
    return forward.entry, (acceptance_block(forward, _ACCEPTS), choice)

