// scaled_dot_product_attention's choice of kernel on this device. ATen asks its
// `_fused_sdp_choice_stub` for PrivateUse1 tensors; a spec that declares
// `_scaled_dot_product_fused_attention_overrideable` gets a generated choice
// registered here (codegen/attention_route.py), which asks the fused kernel's
// own checks and leaves the policy to these functions.
#pragma once

#include <ATen/ATen.h>
#include <ATen/native/transformers/attention.h>

#include <cstdint>

namespace torch_fl {

// The fused op has no enable_gqa argument: grouped-query attention (fewer key
// and value heads than query heads) stays on the math path, which repeats them.
bool same_head_count(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value);

// SDPBackend::overrideable when the fused kernel (spec entry `source`) accepts
// the call and torch.nn.attention.sdpa_kernel allows it; SDPBackend::math when
// the math path is allowed; otherwise a RuntimeError saying which is off.
int64_t sdp_backend_choice(bool fused_accepts, const char* source);

// Registers `choose` as ATen's _fused_sdp_choice_stub for PrivateUse1.
struct SdpChoiceRegistration {
  explicit SdpChoiceRegistration(at::native::fused_sdp_choice_fn choose);
};

}  // namespace torch_fl
