// Fused scaled-dot-product attention, forward and backward (flash-attention's
// memory plan: the backward recomputes the probabilities from q and k instead of
// storing them; the saved log-sum-exp marks the rows with no key left).
#include "mlu_ops_internal.h"

#include <cmath>
#include <limits>

using namespace mlu_ops;

namespace {

double softmax_scale(mluScalar_t scale, const at::Tensor& query) {
  return scale.kind == MLU_SCALAR_NONE ? 1.0 / std::sqrt(static_cast<double>(query.size(-1))) : scale.f;
}

// The masked, scaled scores (B, H, L, S) in float32.
at::Tensor scores(const at::Tensor& query, const at::Tensor& key, const std::optional<at::Tensor>& bias,
                  bool is_causal, double scale) {
  at::Tensor s = at::matmul(query.to(at::kFloat), key.to(at::kFloat).transpose(-2, -1));
  if (query.size(-1) > 0) s.mul_(scale);  // no head dims: scores of 0 (1/sqrt(0) is infinite)
  const double minus_infinity = -std::numeric_limits<double>::infinity();
  if (is_causal) {
    const at::Tensor keep = at::ones({s.size(-2), s.size(-1)}, s.options().dtype(at::kBool)).tril();
    s.masked_fill_(keep.logical_not(), minus_infinity);
  }
  if (bias.has_value()) {
    if (bias->scalar_type() == at::kBool) {
      s.masked_fill_(bias->logical_not(), minus_infinity);
    } else {
      s.add_(bias->to(at::kFloat));
    }
  }
  return s;
}

// The row softmax of the scores, zero on rows whose keys are all masked (lse ==
// -inf; a +inf score gives NaN, as on CPU). Computed from the row maximum, not as exp(s - lse): lse is as large as
// the scores, and its rounding would cost the probabilities that many bits.
at::Tensor probabilities(const at::Tensor& s, const at::Tensor& logsumexp) {
  const at::Tensor lse = logsumexp.reshape(s.sizes().slice(0, s.dim() - 1)).unsqueeze(-1);
  return at::where(at::isneginf(lse), at::zeros({}, s.options()), at::softmax(s, -1));
}

}  // namespace

extern "C" {

mluRet_t mluOpFusedAttention(mluQueue_t q, const mluTensor_t* query, const mluTensor_t* key,
                             const mluTensor_t* value, const mluTensor_t* bias, bool is_causal, mluScalar_t scale,
                             const mluTensor_t* out, const mluTensor_t* logsumexp) {
  return launch("mluOpFusedAttention", q, {query, key, value, bias, out, logsumexp},
                [qd = *query, kd = *key, vd = *value, bd = *bias, is_causal, scale, od = *out, ld = *logsumexp] {
                  const at::Tensor qv = host_view(qd);
                  const at::Tensor s = scores(qv, host_view(kd), optional_host_view(bd), is_causal,
                                              softmax_scale(scale, qv));
                  const at::Tensor lse = at::logsumexp(s, -1);
                  const at::Tensor o = at::matmul(probabilities(s, lse), host_view(vd).to(at::kFloat));
                  store(od, o);
                  store(ld, lse.reshape(at::IntArrayRef(ld.shape, ld.dim)));
                });
}

mluRet_t mluOpFusedAttentionBackward(mluQueue_t q, const mluTensor_t* grad_out, const mluTensor_t* query,
                                     const mluTensor_t* key, const mluTensor_t* value, const mluTensor_t* bias,
                                     const mluTensor_t* logsumexp, bool is_causal, mluScalar_t scale,
                                     const mluTensor_t* grad_query, const mluTensor_t* grad_key,
                                     const mluTensor_t* grad_value, const mluTensor_t* grad_bias) {
  return launch("mluOpFusedAttentionBackward", q,
                {grad_out, query, key, value, bias, logsumexp, grad_query, grad_key, grad_value, grad_bias},
                [gd = *grad_out, qd = *query, kd = *key, vd = *value, bd = *bias, ld = *logsumexp, is_causal, scale,
                 gqd = *grad_query, gkd = *grad_key, gvd = *grad_value, gbd = *grad_bias] {
                  const at::Tensor qv = host_view(qd).to(at::kFloat);
                  const at::Tensor kv = host_view(kd).to(at::kFloat);
                  const at::Tensor dout = host_view(gd).to(at::kFloat);
                  const double s_scale = softmax_scale(scale, qv);
                  const at::Tensor p = probabilities(scores(qv, kv, optional_host_view(bd), is_causal, s_scale),
                                                     host_view(ld));
                  store(gvd, at::matmul(p.transpose(-2, -1), dout));
                  const at::Tensor dp = at::matmul(dout, host_view(vd).to(at::kFloat).transpose(-2, -1));
                  // softmax's backward: ds = p * (dp - rowsum(p * dp)).
                  const at::Tensor ds = p * (dp - (p * dp).sum(-1, /*keepdim=*/true));
                  store(gqd, at::matmul(ds, kv).mul_(s_scale));
                  store(gkd, at::matmul(ds.transpose(-2, -1), qv).mul_(s_scale));
                  if (gbd.data != nullptr) store(gbd, ds.sum_to_size(at::IntArrayRef(gbd.shape, gbd.dim)));
                });
}

}  // extern "C"
