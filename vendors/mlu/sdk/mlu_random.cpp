// Random numbers from a counter-based state: results depend only on (seed, offset).
#include "mlu_ops_internal.h"

using namespace mlu_ops;

extern "C" {

mluRet_t mluOpRandNormal(mluQueue_t q, const mluTensor_t* x, double mean, double std, mluRandState_t state) {
  if (!(std >= 0.0)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpRandNormal: std must be >= 0");
  return launch("mluOpRandNormal", q, {x}, [x = *x, mean, std, state] {
    at::Generator gen = alu::counter_generator(state.seed, state.offset);
    host_view(x).normal_(mean, std, gen);
  });
}

mluRet_t mluOpRandUniform(mluQueue_t q, const mluTensor_t* x, double low, double high, mluRandState_t state) {
  if (!(low <= high)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpRandUniform: low must be <= high");
  return launch("mluOpRandUniform", q, {x}, [x = *x, low, high, state] {
    at::Generator gen = alu::counter_generator(state.seed, state.offset);
    host_view(x).uniform_(low, high, gen);
  });
}

mluRet_t mluOpDropout(mluQueue_t q, const mluTensor_t* input, double p, bool train, mluRandState_t state,
                      const mluTensor_t* out, const mluTensor_t* mask) {
  if (!(p >= 0.0 && p <= 1.0)) return fail(MLU_RET_ERR_INVALID_VALUE, "mluOpDropout: p must be in [0, 1]");
  return launch("mluOpDropout", q, {input, out, mask}, [x = *input, p, train, state, o = *out, m = *mask] {
    alu::dropout(host_view(x), p, train, state.seed, state.offset, host_view(o), host_view(m));
  });
}

mluRet_t mluOpDropoutBackward(mluQueue_t q, const mluTensor_t* grad, const mluTensor_t* mask, double scale,
                              const mluTensor_t* out) {
  return launch("mluOpDropoutBackward", q, {grad, mask, out}, [g = *grad, m = *mask, scale, o = *out] {
    at::native_dropout_backward_out(lvalue(host_view(o)), host_view(g), host_view(m), scale);
  });
}

}  // extern "C"
