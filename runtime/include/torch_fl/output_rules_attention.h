// Output rules of the fused attention hooks (their meta functions are PyTorch's
// Python ones): what `_scaled_dot_product_fused_attention_overrideable` and its
// backward return, as meta tensors and numbers, for a spec that declares them.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <cstdint>
#include <optional>
#include <tuple>

namespace torch_fl::output_rules {

// (output, logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, philox_seed,
// philox_offset, debug_attn_mask): the output shaped as query with value's head
// size, logsumexp (B, H, L) in float32, max_q and max_k the sequence lengths,
// philox seed and offset empty int64 scalars, and no cumulative sequence
// lengths or debug mask (undefined), as PyTorch's meta function gives.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, at::Tensor, at::Tensor, at::Tensor>
fused_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                const std::optional<at::Tensor>& attn_bias, double dropout_p, bool is_causal, bool return_debug_mask,
                std::optional<double> scale);

// The gradients asked for by grad_input_mask, each shaped and strided as its
// input (the bias's only when it was given); undefined where not asked.
std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> fused_attention_backward(
    const at::Tensor& grad_out, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const at::Tensor& attn_bias, std::array<bool, 4> grad_input_mask, const at::Tensor& out,
    const at::Tensor& logsumexp, const at::Tensor& cum_seq_q, const at::Tensor& cum_seq_k, int64_t max_q,
    int64_t max_k, double dropout_p, bool is_causal, const at::Tensor& philox_seed, const at::Tensor& philox_offset,
    std::optional<double> scale);

}  // namespace torch_fl::output_rules
