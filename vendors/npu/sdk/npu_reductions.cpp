// Reductions (half and bfloat16 sums and means accumulate in a float32
// workspace), cumulative products, norms and softmax.
#include "npu_ops_internal.h"

#include <optional>

using namespace npu_ops;

namespace {

// ReduceSum and Mean: aten(acc, self, dims, keepdim, acc's dtype) into a float32 accumulator for half and bfloat16.
template <class Aten>
npuError accumulated_reduction(const char* op, const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                               Aten aten, uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {self, out}, [x = desc(self), dims = optional_ints(dim), keepdim, o = desc(out), aten](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { aten(acc, view(x), at::OptionalIntArrayRef(dims), keepdim, acc.scalar_type()); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}

// MaxDim and MinDim: the values and indices of extreme(self, dim, keepdim) land in out and indices.
template <class Extreme>
npuError extreme_along(const char* op, const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices,
                       Extreme extreme, uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {self, out, indices}, [self = desc(self), dim, keepdim, out = desc(out), indices = desc(indices), extreme] {
    auto [value, index] = extreme(view(self), dim, keepdim);
    alu::store(view(out), value);
    alu::store(view(indices), index);
  }, workspace_size, executor);
}

// Softmax and log-softmax: aten(result, self, dim, half_to_float), which is set when out's dtype is not self's.
template <class Aten>
npuError softmax_forward(const char* op, const npuTensor* self, int64_t dim, npuTensor* out, Aten aten,
                         uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {self, out}, [x = desc(self), dim, o = desc(out), aten] {
    at::Tensor result = view(o);
    aten(result, view(x), dim, /*half_to_float=*/x.tensor.dtype != o.tensor.dtype);
  }, workspace_size, executor);
}

// Their gradients: aten(result, grad, output, dim, out's dtype).
template <class Aten>
npuError softmax_backward(const char* op, const npuTensor* grad, const npuTensor* output, int64_t dim, npuTensor* out,
                          Aten aten, uint64_t* workspace_size, npunnExecutor** executor) {
  return prepare(op, {grad, output, out}, [g = desc(grad), y = desc(output), dim, o = desc(out), aten] {
    at::Tensor result = view(o);
    aten(result, view(g), view(y), dim, result.scalar_type());
  }, workspace_size, executor);
}

}  // namespace

extern "C" {

npuError npunnReduceSumGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                        NPUNN_QUERY_ARGS) {
  return accumulated_reduction("npunnReduceSum", self, dim, keepdim, out, NPU_OUT(at::sum_out), workspace_size, executor);
}
NPUNN_RUN(ReduceSum)

npuError npunnMeanGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                   NPUNN_QUERY_ARGS) {
  return accumulated_reduction("npunnMean", self, dim, keepdim, out, NPU_OUT(at::mean_out), workspace_size, executor);
}
NPUNN_RUN(Mean)

#define NPU_REDUCE(NAME, ATEN)                                                                                   \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, \
                                         NPUNN_QUERY_ARGS) {                                                     \
    return prepare("npunn" #NAME, {self, out}, [x = desc(self), dims = ints(dim), keepdim, o = desc(out)] {        \
      at::Tensor result = view(o);                                                                                \
      ATEN(result, view(x), dims, keepdim);                                                                       \
    }, workspace_size, executor);                                                                                 \
  }                                                                                                               \
  NPUNN_RUN(NAME)

NPU_REDUCE(Amax, at::amax_out)
NPU_REDUCE(Amin, at::amin_out)

npuError npunnArgMaxGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                     NPUNN_QUERY_ARGS) {
  if (dim && dim->values.size() != 1) return fail(NPU_ERROR_INVALID_PARAM, "npunnArgMax: dim must name one dimension");
  std::optional<int64_t> d = dim ? std::optional<int64_t>(dim->values[0]) : std::nullopt;
  return prepare("npunnArgMax", {self, out}, [x = desc(self), d, keepdim, o = desc(out)] {
    at::Tensor result = view(o);
    at::argmax_out(result, view(x), d, keepdim);
  }, workspace_size, executor);
}
NPUNN_RUN(ArgMax)

npuError npunnAllGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                  NPUNN_QUERY_ARGS) {
  return prepare("npunnAll", {self, out}, [x = desc(self), dims = optional_ints(dim), keepdim, o = desc(out)] {
    at::Tensor result = view(o);
    at::all_out(result, view(x), at::OptionalIntArrayRef(dims), keepdim);
  }, workspace_size, executor);
}
NPUNN_RUN(All)

npuError npunnAnyGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAny", {self, out}, [self = desc(self), dim = ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), dim.size() == 1 ? at::any(view(self), dim[0], keepdim) : at::any(view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(Any)

npuError npunnProdGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnProd", {self, out}, [self = desc(self), dim, keepdim, out = desc(out)] {
    alu::store(view(out), at::prod(view(self), dim, keepdim, view(out).scalar_type()));
  }, workspace_size, executor);
}
NPUNN_RUN(Prod)

npuError npunnArgMinGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnArgMin", {self, out}, [self = desc(self), dim = ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), at::argmin(view(self), dim.empty() ? std::nullopt : std::optional<int64_t>(dim[0]), keepdim));
  }, workspace_size, executor);
}
NPUNN_RUN(ArgMin)

npuError npunnLogSumExpGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSumExp", {self, out}, [self = desc(self), dim = ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), at::logsumexp(view(self), dim, keepdim));
  }, workspace_size, executor);
}
NPUNN_RUN(LogSumExp)

npuError npunnCumprodGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnCumprod", {self, out}, [self = desc(self), dim, out = desc(out)] {
    alu::store(view(out), at::cumprod(view(self), dim, view(out).scalar_type()));
  }, workspace_size, executor);
}
NPUNN_RUN(Cumprod)

npuError npunnMaxDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return extreme_along("npunnMaxDim", self, dim, keepdim, out, indices, NPU_CALL(at::max), workspace_size, executor);
}
NPUNN_RUN(MaxDim)

npuError npunnMinDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return extreme_along("npunnMinDim", self, dim, keepdim, out, indices, NPU_CALL(at::min), workspace_size, executor);
}
NPUNN_RUN(MinDim)

npuError npunnNormGetWorkspaceSize(const npuTensor* self, const npuScalar* p, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnNorm", {self, out}, [self = desc(self), p = p ? std::optional<npuScalar>(*p) : std::nullopt, dim = optional_ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), at::linalg_vector_norm(view(self), p ? aten_scalar(*p) : at::Scalar(2.0), at::OptionalIntArrayRef(dim), keepdim, view(out).scalar_type()));
  }, workspace_size, executor);
}
NPUNN_RUN(Norm)

// ---- softmax ----------------------------------------------------------------

npuError npunnSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return softmax_forward("npunnSoftmax", self, dim, out, NPU_OUT(at::_softmax_out), workspace_size, executor);
}
NPUNN_RUN(Softmax)

npuError npunnLogSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return softmax_forward("npunnLogSoftmax", self, dim, out, NPU_OUT(at::_log_softmax_out), workspace_size, executor);
}
NPUNN_RUN(LogSoftmax)

npuError npunnSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim,
                                              npuTensor* out, NPUNN_QUERY_ARGS) {
  return softmax_backward("npunnSoftmaxBackward", grad, output, dim, out, NPU_OUT(at::_softmax_backward_data_out), workspace_size, executor);
}
NPUNN_RUN(SoftmaxBackward)

npuError npunnLogSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim,
                                                 npuTensor* out, NPUNN_QUERY_ARGS) {
  return softmax_backward("npunnLogSoftmaxBackward", grad, output, dim, out, NPU_OUT(at::_log_softmax_backward_data_out), workspace_size, executor);
}
NPUNN_RUN(LogSoftmaxBackward)

}  // extern "C"
