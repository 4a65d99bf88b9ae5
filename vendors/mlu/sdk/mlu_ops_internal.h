// Internals of the simulated MLU's operator library, shared by its per-kind
// sources (mlu_<kind>.cpp). Arguments are validated on the host at once
// (device memory, extents, dtypes the chip has); the computation runs on the
// queue's worker thread. The simulator's "ALU" is ATen's CPU kernels, applied
// to host views of the simulated device memory. Not part of the SDK's API:
// only the op library's sources include it.
#pragma once

#include <ATen/ATen.h>

#include <algorithm>
#include <optional>
#include <string>

#include "alu.h"
#include "mlu_device.h"
#include "mlu_ops.h"

namespace mlu_ops {

using mlu_sim::fail;
namespace alu = torch_fl::sim::alu;

inline c10::ScalarType aten_dtype(mluDataType_t dtype) {
  switch (dtype) {
    case MLU_DTYPE_BOOL: return at::kBool;
    case MLU_DTYPE_UINT8: return at::kByte;
    case MLU_DTYPE_INT8: return at::kChar;
    case MLU_DTYPE_INT16: return at::kShort;
    case MLU_DTYPE_INT32: return at::kInt;
    case MLU_DTYPE_INT64: return at::kLong;
    case MLU_DTYPE_HALF: return at::kHalf;
    case MLU_DTYPE_BFLOAT16: return at::kBFloat16;
    case MLU_DTYPE_FLOAT: return at::kFloat;
    case MLU_DTYPE_DOUBLE: return at::kDouble;
    case MLU_DTYPE_COMPLEX_FLOAT: return at::kComplexFloat;
    case MLU_DTYPE_COMPLEX_DOUBLE: return at::kComplexDouble;
    default: return at::ScalarType::Undefined;
  }
}

// The compute units have no float64 or complex arithmetic; the copy engine moves any type.
inline bool compute_supports(mluDataType_t dtype) {
  return dtype != MLU_DTYPE_DOUBLE && dtype != MLU_DTYPE_COMPLEX_FLOAT && dtype != MLU_DTYPE_COMPLEX_DOUBLE &&
         aten_dtype(dtype) != at::ScalarType::Undefined;
}

// A descriptor is usable by an op now: a dtype the chip has (`compute`: one
// the compute units have), at most MLU_MAX_DIMS dims, resident in device
// memory; data == NULL (an absent optional, or an empty tensor) passes.
mluRet_t validate(const char* op, const mluTensor_t* t, bool compute);

inline int64_t numel(const mluTensor_t& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dim; ++i) n *= t.shape[i];
  return n;
}

// A CPU tensor aliasing simulated device memory; only built on the worker thread.
inline at::Tensor host_view(const mluTensor_t& t) {
  return alu::host_view(t.data, aten_dtype(t.dtype), at::IntArrayRef(t.shape, t.dim), at::IntArrayRef(t.stride, t.dim));
}

inline std::optional<at::Tensor> optional_host_view(const mluTensor_t& t) {
  if (t.data == nullptr) return std::nullopt;
  return host_view(t);
}

// ATen's *_out functions take the output as a non-const lvalue; a host view
// is a temporary that lives until the end of the full expression.
inline at::Tensor& lvalue(at::Tensor&& tensor) { return tensor; }

inline at::Scalar aten_scalar(mluScalar_t s) {
  switch (s.kind) {
    case MLU_SCALAR_INT: return at::Scalar(s.i);
    case MLU_SCALAR_BOOL: return at::Scalar(s.i != 0);
    default: return at::Scalar(s.f);
  }
}

inline std::optional<at::Scalar> optional_scalar(mluScalar_t s) {
  if (s.kind == MLU_SCALAR_NONE) return std::nullopt;
  return aten_scalar(s);
}

inline at::IntArrayRef ints(const mluIntList_t& list) { return at::IntArrayRef(list.values, std::max(list.count, 0)); }

inline std::optional<int64_t> optional_int(const mluIntList_t& list) {
  if (list.count < 1) return std::nullopt;
  return list.values[0];
}

inline const char* approximation_name(mluGeluApproximation_t a) { return a == MLU_GELU_TANH ? "tanh" : "none"; }

// Copies a result computed into a fresh tensor into the caller's output view.
inline void store(const mluTensor_t& out, const at::Tensor& result) {
  if (out.data != nullptr) alu::store(host_view(out), result);
}

// A scalar as a 0-dim tensor that promotes as a Python number does.
at::Tensor wrapped(mluScalar_t s);

inline at::OptionalIntArrayRef dims_of(const mluIntList_t& dims) {
  if (dims.count < 0) return std::nullopt;
  return at::IntArrayRef(dims.values, dims.count);
}

// Validates every tensor now, then queues `body` on q. `compute` is false for
// the copy engine, which moves any dtype.
template <class Body>
mluRet_t launch(const char* op, mluQueue_t q, std::initializer_list<const mluTensor_t*> tensors, Body body,
                bool compute = true) {
  if (q == nullptr) return fail(MLU_RET_ERR_INVALID_VALUE, std::string(op) + ": null queue");
  for (const mluTensor_t* t : tensors) {
    const mluRet_t ret = validate(op, t, compute);
    if (ret != MLU_RET_SUCCESS) return ret;
  }
  mlu_sim::enqueue(q, alu::task(op, std::move(body)));
  return MLU_RET_SUCCESS;
}

}  // namespace mlu_ops
