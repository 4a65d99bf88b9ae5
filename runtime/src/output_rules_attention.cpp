#include <torch_fl/output_rules_attention.h>

#include <ATen/ExpandUtils.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace torch_fl::output_rules {
namespace {

at::TensorOptions meta_options(const at::Tensor& like, c10::ScalarType dtype) {
  return like.options().dtype(dtype).device(c10::DeviceType::Meta);
}

at::Tensor meta_like_if(bool wanted, const at::Tensor& like) {
  if (!wanted || !like.defined()) return at::Tensor();
  return at::empty_like(like, meta_options(like, like.scalar_type()), at::MemoryFormat::Preserve);
}

// `sizes` laid out in query's dimension order (its strides, largest first), as
// PyTorch's meta function allocates the output (alloc_with_matching_layout): a
// compiled graph drops a `.contiguous()` on the transposed output when the meta
// result says it is already contiguous, so the kernel's output must be too.
at::Tensor meta_matching_layout(const at::Tensor& query, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return query.stride(a) > query.stride(b); });
  std::vector<int64_t> permuted_sizes, back(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) {
    permuted_sizes.push_back(sizes[order[i]]);
    back[order[i]] = static_cast<int64_t>(i);
  }
  return at::empty(permuted_sizes, meta_options(query, query.scalar_type())).permute(back);
}

// What the fused op needs of its arguments, checked at the call (the kernel runs
// later, on the stream, where an error would surface at an unrelated op).
void check_attention_arguments(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                               const at::Tensor* bias) {
  TORCH_CHECK(query.dim() == 3 || query.dim() == 4, "fused attention: query must be 3-D or 4-D, got ", query.dim(),
              "-D");
  TORCH_CHECK(key.dim() == query.dim() && value.dim() == query.dim(), "fused attention: query, key and value must "
              "have the same number of dimensions, got ", query.dim(), ", ", key.dim(), " and ", value.dim());
  TORCH_CHECK(key.scalar_type() == query.scalar_type() && value.scalar_type() == query.scalar_type(),
              "fused attention: query, key and value must have the same dtype, got ", query.scalar_type(), ", ",
              key.scalar_type(), " and ", value.scalar_type());
  for (int64_t dim = 0; dim < query.dim() - 2; ++dim) {
    TORCH_CHECK(key.size(dim) == query.size(dim) && value.size(dim) == query.size(dim),
                "fused attention: query, key and value must agree in dimension ", dim, " (batch and heads), got ",
                query.sizes(), ", ", key.sizes(), " and ", value.sizes());
  }
  TORCH_CHECK(key.size(-1) == query.size(-1), "fused attention: key's last dimension (", key.size(-1),
              ") must be query's (", query.size(-1), ")");
  TORCH_CHECK(value.size(-2) == key.size(-2), "fused attention: value's sequence length (", value.size(-2),
              ") must be key's (", key.size(-2), ")");
  if (bias != nullptr && bias->defined()) {
    std::vector<int64_t> scores(query.sizes().begin(), query.sizes().end() - 1);
    scores.push_back(key.size(-2));
    TORCH_CHECK(bias->dim() <= static_cast<int64_t>(scores.size()) && at::is_expandable_to(bias->sizes(), scores),
                "fused attention: attn_bias of shape ", bias->sizes(), " does not broadcast to the scores' shape ",
                at::IntArrayRef(scores));
  }
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor, int64_t, int64_t, at::Tensor, at::Tensor, at::Tensor>
fused_attention(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                const std::optional<at::Tensor>& attn_bias, double, bool, bool, std::optional<double>) {
  check_attention_arguments(query, key, value, attn_bias.has_value() ? &*attn_bias : nullptr);
  const int64_t batch = query.dim() == 4 ? query.size(0) : 1;
  const int64_t heads = query.size(-3);
  const int64_t query_length = query.size(-2);
  std::vector<int64_t> out_sizes = query.sizes().vec();
  out_sizes.back() = value.size(-1);
  const at::Tensor output = query.dim() == 4 ? meta_matching_layout(query, out_sizes)
                                             : at::empty(out_sizes, meta_options(query, query.scalar_type()));
  const at::Tensor logsumexp = at::empty({batch, heads, query_length}, meta_options(query, at::kFloat));
  const at::Tensor philox = at::empty({}, meta_options(query, at::kLong));
  return {output,     logsumexp, at::Tensor(), at::Tensor(), query_length, key.size(-2), philox,
          philox.clone(), at::Tensor()};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> fused_attention_backward(
    const at::Tensor&, const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
    const at::Tensor& attn_bias, std::array<bool, 4> grad_input_mask, const at::Tensor&, const at::Tensor&,
    const at::Tensor&, const at::Tensor&, int64_t, int64_t, double, bool, const at::Tensor&, const at::Tensor&,
    std::optional<double>) {
  check_attention_arguments(query, key, value, &attn_bias);
  return {meta_like_if(grad_input_mask[0], query), meta_like_if(grad_input_mask[1], key),
          meta_like_if(grad_input_mask[2], value), meta_like_if(grad_input_mask[3], attn_bias)};
}

}  // namespace torch_fl::output_rules
