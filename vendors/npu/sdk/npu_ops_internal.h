// Internals of the simulated NPU's operator library, shared by its per-kind
// sources (npu_<kind>.cpp): what the opaque handles of npu_ops.h hold, and the
// two phases every operator takes. Phase one (…GetWorkspaceSize) checks every
// argument on the host and records the work in an executor (prepare); phase two
// queues it on the stream's worker with the caller's workspace (run). The "ALU"
// is ATen's CPU kernels (vendors/sim/alu.h) on host views of device memory.
// Not part of the SDK's API: only the op library's sources include it.
#pragma once

#include <ATen/ATen.h>

#include <array>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "alu.h"
#include "handle_pool.h"
#include "inline_function.h"
#include "npu_device.h"
#include "npu_ops.h"

struct npuTensor {
  void* data;
  npuDataType dtype;
  npuFormat format;
  int32_t rank;
  int64_t dim_sizes[8];
  int64_t dim_strides[8];
  int64_t offset;

  at::IntArrayRef dims() const { return at::IntArrayRef(dim_sizes, rank); }
  at::IntArrayRef strides() const { return at::IntArrayRef(dim_strides, rank); }
};

struct npuScalar {
  npuDataType dtype;
  double f;
  int64_t i;
};

struct npuIntArray {
  std::vector<int64_t> values;
};

struct npuTensorList {
  std::vector<const npuTensor*> tensors;
};

// The recorded work, held inline: it is queued on the host and destroyed on
// the stream's worker (see vendors/sim/inline_function.h). 576 bytes leave room
// in a queue task for the workspace pointer and the op's name.
using ExecutorBody = torch_fl::sim::InlineFunction<void(void* workspace), 576>;

struct npunnExecutor {
  const char* op;
  uint64_t workspace_bytes;
  ExecutorBody body;
};

namespace npu_ops {

namespace alu = torch_fl::sim::alu;
using npu_sim::fail;

inline c10::ScalarType aten_dtype(npuDataType dtype) {
  switch (dtype) {
    case NPU_FLOAT: return at::kFloat;
    case NPU_FLOAT16: return at::kHalf;
    case NPU_BF16: return at::kBFloat16;
    case NPU_INT8: return at::kChar;
    case NPU_UINT8: return at::kByte;
    case NPU_INT16: return at::kShort;
    case NPU_INT32: return at::kInt;
    case NPU_INT64: return at::kLong;
    case NPU_BOOL: return at::kBool;
    case NPU_DOUBLE: return at::kDouble;
    case NPU_COMPLEX64: return at::kComplexFloat;
    case NPU_COMPLEX128: return at::kComplexDouble;
    default: return at::ScalarType::Undefined;
  }
}

// What an executor keeps of a tensor handle: the caller may destroy the handle
// as soon as phase two returns, long before the work runs.
struct Desc {
  bool present = false;
  npuTensor tensor{};
};

inline Desc desc(const npuTensor* t) { return t ? Desc{true, *t} : Desc{}; }

// The address of the view's first element.
inline void* base_of(const npuTensor& t) {
  return static_cast<uint8_t*>(t.data) + t.offset * static_cast<int64_t>(c10::elementSize(aten_dtype(t.dtype)));
}

inline at::Tensor view(const Desc& d) {
  if (!d.present) return at::Tensor();
  const npuTensor& t = d.tensor;
  return alu::host_view(base_of(t), aten_dtype(t.dtype), t.dims(), t.strides());
}

inline std::optional<at::Tensor> optional_view(const Desc& d) {
  if (!d.present) return std::nullopt;
  return view(d);
}

inline at::Scalar aten_scalar(const npuScalar& s) {
  if (s.dtype == NPU_BOOL) return at::Scalar(s.i != 0);
  if (s.dtype == NPU_INT64 || s.dtype == NPU_INT32) return at::Scalar(s.i);
  return at::Scalar(s.f);
}

inline std::vector<int64_t> ints(const npuIntArray* a) { return a ? a->values : std::vector<int64_t>{}; }
inline std::optional<std::vector<int64_t>> optional_ints(const npuIntArray* a) {
  if (!a) return std::nullopt;
  return a->values;
}

inline int64_t numel(const npuTensor& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

// Phase one's check of a tensor: a known dtype the arithmetic units have,
// resident in device memory (an absent optional passes).
npuError check(const char* op, const npuTensor* t);
npuError require_int32(const char* op, const char* what, const npuTensor* t);
npuError require_format(const char* op, const char* what, const npuTensor* t, npuFormat format);

// Phase one: checks the tensors, then records `body` (which may take the
// workspace pointer) in a new executor.
template <class Body>
npuError prepare(const char* op, c10::ArrayRef<const npuTensor*> tensors, Body body, uint64_t* workspace_size,
                 npunnExecutor** executor, uint64_t workspace_bytes = 0) {
  if (!workspace_size || !executor) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null output pointer");
  for (const npuTensor* t : tensors) {
    const npuError error = check(op, t);
    if (error != NPU_SUCCESS) return error;
  }
  // The body is built in the executor, and moves once more, into its queue's
  // slot (run): each move copies the recorded descriptors (#33).
  if constexpr (std::is_invocable_v<Body&, void*>) {
    *executor = torch_fl::sim::HandlePool<npunnExecutor>::make(op, workspace_bytes, std::move(body));
  } else {
    *executor = torch_fl::sim::HandlePool<npunnExecutor>::make(
        op, workspace_bytes, [body = std::move(body)](void*) mutable { body(); });
  }
  *workspace_size = workspace_bytes;
  return NPU_SUCCESS;
}

// Phase two: checks the workspace and queues the recorded work; consumes the executor.
npuError run(const char* op, NPUNN_RUN_ARGS);

// Half and bfloat16 results accumulate in float32 scratch memory.
uint64_t float_accumulator_bytes(const npuTensor* out);

// The result of `compute(acc)` lands in out, through a float32 accumulator in
// the workspace when there is one.
template <class Compute>
void accumulate(void* workspace, const Desc& out, Compute compute) {
  at::Tensor result = view(out);
  if (!workspace) {
    compute(result);
    return;
  }
  at::Tensor acc = at::from_blob(workspace, result.sizes(), at::TensorOptions().dtype(at::kFloat));
  compute(acc);
  result.copy_(acc);
}

// The NC1HWC0 layout (npu_layout.cpp says how each converts).
at::Tensor unblock(const at::Tensor& blocked);       // → channels-last (N, C1 * C0, H, W), channels padded
at::Tensor unblock_nchw(const at::Tensor& blocked);  // → contiguous NCHW, channels padded
void block_into(at::Tensor blocked, const at::Tensor& nchw);
void unblock_into(at::Tensor nchw, const at::Tensor& blocked);
at::Tensor planes(const at::Tensor& blocked);  // as the channels-last planes (N * C1, C0, H, W)
inline bool is_blocked(const Desc& d) { return d.present && d.tensor.format == NPU_FORMAT_NC1HWC0; }

// A scalar as a 0-dim tensor that promotes as a Python number does.
at::Tensor wrapped(const at::Scalar& s);

// A scalar argument and the name its null check reports.
struct NamedScalar {
  const char* name;
  const npuScalar* value;
};

namespace detail {

template <size_t N, size_t K, class Fn, size_t... I>
npuError compute_into(const char* op, const npuTensor* const (&inputs)[N], npuTensor* out, Fn fn,
                      const std::array<npuScalar, K>& values, uint64_t* workspace_size, npunnExecutor** executor,
                      std::index_sequence<I...>) {
  // The descriptors are built in the capture itself: this is the tiny ops' hot
  // path (#33), where a copy of each descriptor is measurable.
  return prepare(op, std::array<const npuTensor*, N + 1>{inputs[I]..., out},
                 [in = std::array<Desc, N>{desc(inputs[I])...}, values, o = desc(out), fn](void*) {
                   at::Tensor result = view(o);
                   std::apply([&](const auto&... s) { fn(result, view(in[I])..., aten_scalar(s)...); }, values);
                 },
                 workspace_size, executor);
}

}  // namespace detail

// Phase one of the most common operator: fn(result, the inputs' views..., the
// scalars...) writes out's view `result`. A null scalar fails, naming the first
// one; plain arguments (dims, flags) ride in fn's captures. Every input, then
// out, is checked, in that order.
template <size_t N, class Fn, class... Scalars>
npuError compute_into(const char* op, const npuTensor* const (&inputs)[N], npuTensor* out, Fn fn,
                      uint64_t* workspace_size, npunnExecutor** executor, Scalars... scalars) {
  const std::array<NamedScalar, sizeof...(Scalars)> named{scalars...};
  std::array<npuScalar, sizeof...(Scalars)> values{};
  for (size_t i = 0; i < named.size(); ++i) {
    if (!named[i].value) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null " + named[i].name);
    values[i] = *named[i].value;
  }
  return detail::compute_into(op, inputs, out, fn, values, workspace_size, executor, std::make_index_sequence<N>{});
}

}  // namespace npu_ops

// An overloaded ATen function as one callable object.
#define NPU_CALL(ATEN) [](const auto&... args) { return ATEN(args...); }
// An fn for compute_into: ATen's ATEN_out(result, args...) writes the result.
#define NPU_OUT(ATEN) [](at::Tensor& result, const auto&... args) { ATEN(result, args...); }
// An fn for compute_into: ATen's functional ATEN(args...) is stored into the result.
#define NPU_STORED(ATEN) [](at::Tensor& result, const auto&... args) { npu_ops::alu::store(result, ATEN(args...)); }
// An fn for compute_into whose second operand is a scalar that promotes as a Python number.
#define NPU_OUT_WRAPPED(ATEN) \
  [](at::Tensor& result, const at::Tensor& self, const at::Scalar& other, const auto&... rest) { ATEN(result, self, npu_ops::wrapped(other), rest...); }

// An operator's phase two, npunn<NAME>(workspace, workspace_size, executor, stream).
#define NPUNN_RUN(NAME) \
  npuError npunn##NAME(NPUNN_RUN_ARGS) { return npu_ops::run("npunn" #NAME, workspace, workspace_size, executor, stream); }

// The elementwise families (npu_elementwise.cpp, npu_activations.cpp):
// npunn<NAME> computes ATEN(out, args...) with ATen's *_out function.
#define NPU_BINARY_ALPHA(NAME, ATEN)                                                                        \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, \
                                         npuTensor* out, NPUNN_QUERY_ARGS) {                                \
    return compute_into("npunn" #NAME, {self, other}, out, NPU_OUT(ATEN), workspace_size, executor,          \
                        NamedScalar{"alpha", alpha});                                                        \
  }                                                                                                          \
  NPUNN_RUN(NAME)

// Both scalars' null checks say "null scalar".
#define NPU_BINARY_SCALAR_ALPHA(NAME, ATEN)                                                                 \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, \
                                         npuTensor* out, NPUNN_QUERY_ARGS) {                                \
    return compute_into("npunn" #NAME, {self}, out, NPU_OUT_WRAPPED(ATEN), workspace_size, executor,         \
                        NamedScalar{"scalar", other}, NamedScalar{"scalar", alpha});                        \
  }                                                                                                          \
  NPUNN_RUN(NAME)

#define NPU_BINARY(NAME, ATEN)                                                                                  \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out,         \
                                         NPUNN_QUERY_ARGS) {                                                    \
    return compute_into("npunn" #NAME, {self, other}, out, NPU_OUT(ATEN), workspace_size, executor);            \
  }                                                                                                              \
  NPUNN_RUN(NAME)

#define NPU_BINARY_SCALAR(NAME, ATEN)                                                                           \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out,         \
                                         NPUNN_QUERY_ARGS) {                                                    \
    return compute_into("npunn" #NAME, {self}, out, NPU_OUT_WRAPPED(ATEN), workspace_size, executor,            \
                        NamedScalar{"scalar", other});                                                           \
  }                                                                                                              \
  NPUNN_RUN(NAME)

#define NPU_UNARY(NAME, ATEN)                                                                                   \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {             \
    return compute_into("npunn" #NAME, {self}, out, NPU_OUT(ATEN), workspace_size, executor);                    \
  }                                                                                                              \
  NPUNN_RUN(NAME)
