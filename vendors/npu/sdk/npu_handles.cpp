// The simulated NPU's handles (tensors, scalars, int arrays, tensor lists) and
// what every operator shares: phase one's checks and phase two (npu_ops_internal.h).
#include "npu_ops_internal.h"

#include <ATen/native/TensorFactories.h>

#include <algorithm>
#include <cstring>
#include <memory>

// Tensor, scalar and executor handles are made and destroyed several times per
// op call: they come from per-thread pools (vendors/sim/handle_pool.h).
using ScalarPool = torch_fl::sim::HandlePool<npuScalar>;

namespace npu_ops {

npuError check(const char* op, const npuTensor* t) {
  if (!t) return NPU_SUCCESS;  // an absent optional
  if (aten_dtype(t->dtype) == at::ScalarType::Undefined) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": unknown data type " + std::to_string(t->dtype));
  }
  if (t->dtype == NPU_DOUBLE || t->dtype == NPU_COMPLEX64 || t->dtype == NPU_COMPLEX128) {
    return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": " + c10::toString(aten_dtype(t->dtype)) +
                                             " has no arithmetic units on the NPU");
  }
  if (numel(*t) == 0) return NPU_SUCCESS;
  const std::string where = alu::residency_error(npu_sim::chip(), base_of(*t), aten_dtype(t->dtype), t->dims(), t->strides());
  return where.empty() ? NPU_SUCCESS : fail(NPU_ERROR_INVALID_ADDRESS, std::string(op) + ": " + where);
}

npuError require_int32(const char* op, const char* what, const npuTensor* t) {
  if (t && t->dtype != NPU_INT32) {
    return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": " + what + " must be int32 (the NPU reads 32-bit indices), got " +
                                             c10::toString(aten_dtype(t->dtype)));
  }
  return NPU_SUCCESS;
}

npuError require_format(const char* op, const char* what, const npuTensor* t, npuFormat format) {
  if (t && t->format != format) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": " + what + (format == NPU_FORMAT_NC1HWC0
                                                                              ? " must be in NC1HWC0 (see npunnTransData)"
                                                                              : " must be in ND format"));
  }
  return NPU_SUCCESS;
}

// Phase two: checks the workspace and queues the recorded work; consumes the executor.
npuError run(const char* op, NPUNN_RUN_ARGS) {
  if (!executor) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null executor");
  const std::unique_ptr<npunnExecutor, void (*)(const npunnExecutor*)> owned(
      executor, torch_fl::sim::HandlePool<npunnExecutor>::destroy);
  if (std::strcmp(owned->op, op) != 0) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": the executor was made by " + owned->op + "GetWorkspaceSize");
  }
  if (!stream) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null stream");
  const uint64_t needed = owned->workspace_bytes;
  if (needed > 0 && (workspace_size < needed || !npu_sim::chip().resident(workspace, needed))) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": needs a workspace of " + std::to_string(needed) +
                                             " bytes of device memory, got " + std::to_string(workspace_size));
  }
  npu_sim::chip().enqueue(*stream->work, alu::task(owned->op, std::move(owned->body), workspace));
  return NPU_SUCCESS;
}

// Half and bfloat16 results accumulate in float32 scratch memory.
uint64_t float_accumulator_bytes(const npuTensor* out) {
  if (!out || (out->dtype != NPU_FLOAT16 && out->dtype != NPU_BF16)) return 0;
  return static_cast<uint64_t>(numel(*out)) * sizeof(float);
}

at::Tensor wrapped(const at::Scalar& s) { return at::native::wrapped_scalar_tensor(s); }

}  // namespace npu_ops

extern "C" {

npuTensor* npuCreateTensor(const int64_t* view_dims, uint64_t view_dims_num, npuDataType data_type,
                           const int64_t* stride, int64_t offset, npuFormat format, void* data) {
  if (view_dims_num > 8 || (view_dims_num > 0 && (!view_dims || !stride))) return nullptr;
  auto* tensor = torch_fl::sim::HandlePool<npuTensor>::make(data, data_type, format, static_cast<int32_t>(view_dims_num));
  tensor->offset = offset;
  std::copy(view_dims, view_dims + view_dims_num, tensor->dim_sizes);
  std::copy(stride, stride + view_dims_num, tensor->dim_strides);
  return tensor;
}
npuError npuDestroyTensor(const npuTensor* tensor) {
  torch_fl::sim::HandlePool<npuTensor>::destroy(tensor);
  return NPU_SUCCESS;
}
npuScalar* npuCreateScalar(const void* value, npuDataType data_type) {
  if (!value) return nullptr;
  switch (data_type) {
    case NPU_FLOAT: return ScalarPool::make(data_type, *static_cast<const float*>(value), int64_t{0});
    case NPU_INT64: return ScalarPool::make(data_type, 0.0, *static_cast<const int64_t*>(value));
    case NPU_INT32: return ScalarPool::make(data_type, 0.0, int64_t{*static_cast<const int32_t*>(value)});
    case NPU_BOOL: return ScalarPool::make(data_type, 0.0, int64_t{*static_cast<const bool*>(value) ? 1 : 0});
    default: return nullptr;  // scalars are float32, int32, int64 or bool
  }
}
npuError npuDestroyScalar(const npuScalar* scalar) {
  ScalarPool::destroy(scalar);
  return NPU_SUCCESS;
}
npuIntArray* npuCreateIntArray(const int64_t* value, uint64_t size) {
  return new npuIntArray{std::vector<int64_t>(value, value + size)};
}
npuError npuDestroyIntArray(const npuIntArray* array) {
  delete array;
  return NPU_SUCCESS;
}
npuTensorList* npuCreateTensorList(const npuTensor* const* value, uint64_t size) {
  return new npuTensorList{std::vector<const npuTensor*>(value, value + size)};
}
npuError npuDestroyTensorList(const npuTensorList* list) {
  delete list;
  return NPU_SUCCESS;
}

}  // extern "C"
