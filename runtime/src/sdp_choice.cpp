#include <torch_fl/sdp_choice.h>

#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include "driver.h"
#include "logging.h"

namespace torch_fl {

bool same_head_count(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value) {
  if (query.dim() < 3 || key.dim() < 3 || value.dim() < 3) return false;
  return key.sym_size(-3) == query.sym_size(-3) && value.sym_size(-3) == query.sym_size(-3);
}

int64_t sdp_backend_choice(bool fused_accepts, const char* source) {
  const at::Context& context = at::globalContext();
  const bool fused = fused_accepts && context.userEnabledOverrideableSDP();
  if (debug_logging()) {
    log_line(std::string("scaled_dot_product_attention: ") +
             (fused ? "fused kernel" : fused_accepts ? "math path (fused kernel disabled by sdpa_kernel)"
                                                     : "math path (the fused kernel does not accept the call)") +
             " (" + source + ")");
  }
  if (fused) return static_cast<int64_t>(at::SDPBackend::overrideable);
  TORCH_CHECK(context.userEnabledMathSDP(), "[", driver().vendor, "] scaled_dot_product_attention: no enabled kernel ",
              "for this call: the fused kernel (", source, ") ",
              fused_accepts ? "is disabled" : "does not accept it (dtype, shape or arguments)",
              " and the math path is disabled (torch.nn.attention.sdpa_kernel)");
  return static_cast<int64_t>(at::SDPBackend::math);
}

namespace {
// The registered choice, for torch._fused_sdp_choice below (libtorch does not
// export the stub's lookup, only the setter).
at::native::fused_sdp_choice_fn registered_choice = nullptr;
}  // namespace

SdpChoiceRegistration::SdpChoiceRegistration(at::native::fused_sdp_choice_fn choose) {
  at::native::_fused_sdp_choice_stub.set_privateuse1_dispatch_ptr(choose);
  registered_choice = choose;
}

namespace kernels {

// torch._fused_sdp_choice on a device tensor: the answer SDPA itself gets (ATen
// asks the stub only where one is registered, and takes the math path otherwise),
// not the CPU fallback's answer for CPU copies of the tensors.
int64_t fused_sdp_choice(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                         const std::optional<at::Tensor>& attn_mask, double dropout_p, bool is_causal,
                         std::optional<double> scale, bool enable_gqa) {
  if (registered_choice == nullptr) return static_cast<int64_t>(at::SDPBackend::math);
  return registered_choice(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa);
}

}  // namespace kernels  (registered from runtime/aten_kernels.yaml)

}  // namespace torch_fl
