// The simulated NPU's operator library. Phase one (…GetWorkspaceSize) checks
// every argument on the host and records the work in an executor; phase two
// runs it on the stream's worker, with the workspace the caller provides. The
// "ALU" is ATen's CPU kernels (vendors/sim/alu.h) on host views of device memory.
#include "npu_ops.h"

#include <ATen/ATen.h>
#include <ATen/native/TensorFactories.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "alu.h"
#include "alu_torchvision.h"
#include "handle_pool.h"
#include "npu_device.h"

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

// Tensor, scalar and executor handles are made and destroyed several times per
// op call: they come from per-thread pools (vendors/sim/handle_pool.h).
using ScalarPool = torch_fl::sim::HandlePool<npuScalar>;

namespace {

namespace alu = torch_fl::sim::alu;
using npu_sim::fail;

c10::ScalarType aten_dtype(npuDataType dtype) {
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

Desc desc(const npuTensor* t) { return t ? Desc{true, *t} : Desc{}; }

// The address of the view's first element.
void* base_of(const npuTensor& t) {
  return static_cast<uint8_t*>(t.data) + t.offset * static_cast<int64_t>(c10::elementSize(aten_dtype(t.dtype)));
}

at::Tensor view(const Desc& d) {
  if (!d.present) return at::Tensor();
  const npuTensor& t = d.tensor;
  return alu::host_view(base_of(t), aten_dtype(t.dtype), t.dims(), t.strides());
}

std::optional<at::Tensor> optional_view(const Desc& d) {
  if (!d.present) return std::nullopt;
  return view(d);
}

at::Scalar aten_scalar(const npuScalar& s) {
  if (s.dtype == NPU_BOOL) return at::Scalar(s.i != 0);
  if (s.dtype == NPU_INT64 || s.dtype == NPU_INT32) return at::Scalar(s.i);
  return at::Scalar(s.f);
}

std::vector<int64_t> ints(const npuIntArray* a) { return a ? a->values : std::vector<int64_t>{}; }
std::optional<std::vector<int64_t>> optional_ints(const npuIntArray* a) {
  if (!a) return std::nullopt;
  return a->values;
}

int64_t numel(const npuTensor& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) n *= d;
  return n;
}

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

// Phase one: checks the tensors, then records `body` (which may take the
// workspace pointer) in a new executor.
template <class Body>
npuError prepare(const char* op, std::initializer_list<const npuTensor*> tensors, Body body, uint64_t* workspace_size,
                 npunnExecutor** executor, uint64_t workspace_bytes = 0) {
  if (!workspace_size || !executor) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null output pointer");
  for (const npuTensor* t : tensors) {
    const npuError error = check(op, t);
    if (error != NPU_SUCCESS) return error;
  }
  ExecutorBody run;
  if constexpr (std::is_invocable_v<Body, void*>) {
    run = std::move(body);
  } else {
    run = [body = std::move(body)](void*) { body(); };
  }
  *executor = torch_fl::sim::HandlePool<npunnExecutor>::make(op, workspace_bytes, std::move(run));
  *workspace_size = workspace_bytes;
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
  npu_sim::chip().enqueue(*stream->work, alu::task(owned->op, [body = std::move(owned->body), workspace]() mutable {
    body(workspace);
  }));
  return NPU_SUCCESS;
}

// Half and bfloat16 results accumulate in float32 scratch memory.
uint64_t float_accumulator_bytes(const npuTensor* out) {
  if (!out || (out->dtype != NPU_FLOAT16 && out->dtype != NPU_BF16)) return 0;
  return static_cast<uint64_t>(numel(*out)) * sizeof(float);
}

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

// NC1HWC0 (N, C1, H, W, C0) → a channels-last (N, C1 * C0, H, W) tensor, the
// channels padded (one copy; none when C1 is 1). The convolution unit's view of
// its operands: ATen's CPU convolutions run channels-last faster than NCHW, as
// a chip's blocked-layout unit runs faster than on a dense layout.
at::Tensor unblock(const at::Tensor& blocked) {
  const int64_t n = blocked.size(0), c1 = blocked.size(1), h = blocked.size(2), w = blocked.size(3);
  return blocked.permute({0, 2, 3, 1, 4}).reshape({n, h, w, c1 * blocked.size(4)}).permute({0, 3, 1, 2});
}

// NC1HWC0 → a contiguous NCHW tensor, the channels padded (one copy). The
// convolution's backward computes in NCHW, as CPU code's does: its float16
// gradients then round as CPU's (channels-last kernels order the sums otherwise).
at::Tensor unblock_nchw(const at::Tensor& blocked) {
  return blocked.permute({0, 1, 4, 2, 3}).reshape(
      {blocked.size(0), blocked.size(1) * blocked.size(4), blocked.size(2), blocked.size(3)});
}

// NCHW → NC1HWC0 into `blocked`, in one pass: full channel blocks, then the
// last partial block with its padding zeroed.
void block_into(at::Tensor blocked, const at::Tensor& nchw) {
  const int64_t channels = nchw.size(1), c0 = blocked.size(4), full = channels / c0, rest = channels % c0;
  const auto as_blocks = [&](const at::Tensor& t, int64_t blocks) {  // (N, blocks*C0, H, W) → (N, blocks, H, W, C0)
    return t.unflatten(1, {blocks, c0}).permute({0, 1, 3, 4, 2});
  };
  if (full > 0) blocked.narrow(1, 0, full).copy_(as_blocks(nchw.narrow(1, 0, full * c0), full));
  if (rest > 0) {
    at::Tensor last = blocked.select(1, full);  // (N, H, W, C0)
    last.narrow(-1, 0, rest).copy_(nchw.narrow(1, full * c0, rest).permute({0, 2, 3, 1}));
    last.narrow(-1, rest, c0 - rest).zero_();
  }
}

// NC1HWC0 → NCHW into `nchw` (its channel count, without the padding), in one pass.
void unblock_into(at::Tensor nchw, const at::Tensor& blocked) {
  const int64_t channels = nchw.size(1), c0 = blocked.size(4), full = channels / c0, rest = channels % c0;
  if (full > 0) {
    nchw.narrow(1, 0, full * c0).unflatten(1, {full, c0}).copy_(blocked.narrow(1, 0, full).permute({0, 1, 4, 2, 3}));
  }
  if (rest > 0) {
    nchw.narrow(1, full * c0, rest).copy_(blocked.select(1, full).narrow(-1, 0, rest).permute({0, 3, 1, 2}));
  }
}

// An NC1HWC0 tensor (N, C1, H, W, C0) is, in memory, a channels-last tensor of
// (N * C1, C0, H, W): per-plane kernels (pooling) run on it as they are.
at::Tensor planes(const at::Tensor& blocked) {
  const int64_t h = blocked.size(2), w = blocked.size(3), c0 = blocked.size(4);
  return blocked.as_strided({blocked.size(0) * blocked.size(1), c0, h, w}, {h * w * c0, 1, w * c0, c0},
                            blocked.storage_offset());
}

bool is_blocked(const Desc& d) { return d.present && d.tensor.format == NPU_FORMAT_NC1HWC0; }

// Batch norm read and written in NC1HWC0: statistics per channel (c1, c0) over
// N, H and W. The padded channels are zeros and stay zeros (their scale and
// shift are zero). Results and statistics follow ATen's native_batch_norm.
void batch_norm_blocked(const at::Tensor& x, const std::optional<at::Tensor>& weight,
                        const std::optional<at::Tensor>& bias, const std::optional<at::Tensor>& running_mean,
                        const std::optional<at::Tensor>& running_var, bool training, double momentum, double eps,
                        at::Tensor out, const at::Tensor& save_mean, const at::Tensor& save_invstd) {
  const int64_t c1 = x.size(1), c0 = x.size(4), padded = c1 * c0;
  const int64_t channels = training ? save_mean.size(0) : running_mean->size(0);
  const at::TensorOptions f32 = x.options().dtype(at::kFloat);
  const auto pad = [&](const at::Tensor& per_channel) {  // (C) → (1, C1, 1, 1, C0), zero-padded
    at::Tensor padded_values = at::zeros({padded}, f32);
    padded_values.narrow(0, 0, channels).copy_(per_channel);
    return padded_values.view({1, c1, 1, 1, c0});
  };
  at::Tensor mean, var;
  if (training) {
    // Two passes over (N, C1, H*W, C0), each summing the middle dimension with
    // the channels innermost (ATen's strided reductions over (0, 2, 3) are slow).
    const at::Tensor rows = x.to(at::kFloat).view({x.size(0), c1, x.size(2) * x.size(3), c0});
    const int64_t count = x.numel() / padded;
    const at::Tensor blocked_mean = rows.sum(2).sum(0).div_(static_cast<double>(count));  // (C1, C0)
    const at::Tensor centred = rows - blocked_mean.view({1, c1, 1, c0});
    const at::Tensor blocked_var = centred.mul(centred).sum(2).sum(0).div_(static_cast<double>(count));
    mean = blocked_mean.reshape({padded}).narrow(0, 0, channels);
    var = blocked_var.reshape({padded}).narrow(0, 0, channels);
    save_mean.copy_(mean);
    save_invstd.copy_(at::rsqrt(var + eps));
    if (running_mean.has_value() && running_mean->defined()) {
      running_mean->mul_(1 - momentum).add_(mean.to(running_mean->scalar_type()), momentum);
    }
    if (running_var.has_value() && running_var->defined()) {
      const double unbiased = count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
      running_var->mul_(1 - momentum).add_(var.to(running_var->scalar_type()), momentum * unbiased);
    }
  } else {
    mean = running_mean->to(at::kFloat);
    var = running_var->to(at::kFloat);
  }
  at::Tensor scale = at::rsqrt(var + eps);
  if (weight.has_value() && weight->defined()) scale = scale * weight->to(at::kFloat);
  at::Tensor shift = -mean * scale;
  if (bias.has_value() && bias->defined()) shift = shift + bias->to(at::kFloat);
  out.copy_(at::addcmul(pad(shift), x.to(at::kFloat), pad(scale)));
}

at::Tensor wrapped(const npuScalar& s) { return at::native::wrapped_scalar_tensor(aten_scalar(s)); }

}  // namespace

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

#define NPUNN_RUN(NAME) \
  npuError npunn##NAME(NPUNN_RUN_ARGS) { return run("npunn" #NAME, workspace, workspace_size, executor, stream); }

// ---- layout and copies ----------------------------------------------------

npuError npunnTransDataGetWorkspaceSize(const npuTensor* src, npuTensor* dst, NPUNN_QUERY_ARGS) {
  const char* op = "npunnTransData";
  const bool to_blocked = src && dst && src->rank == 4 && src->format == NPU_FORMAT_ND && dst->rank == 5 &&
                          dst->format == NPU_FORMAT_NC1HWC0;
  const bool from_blocked = src && dst && src->rank == 5 && src->format == NPU_FORMAT_NC1HWC0 && dst->rank == 4 &&
                            dst->format == NPU_FORMAT_ND;
  const npuTensor* nchw = to_blocked ? src : dst;
  const npuTensor* blocked = to_blocked ? dst : src;
  if (!(to_blocked || from_blocked) || blocked->dim_sizes[4] != NPU_C0 ||
      blocked->dim_sizes[1] != (nchw->dim_sizes[1] + NPU_C0 - 1) / NPU_C0 || src->dtype != dst->dtype ||
      blocked->dim_sizes[0] != nchw->dim_sizes[0] || blocked->dim_sizes[2] != nchw->dim_sizes[2] ||
      blocked->dim_sizes[3] != nchw->dim_sizes[3]) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": converts a 4-D ND tensor (N, C, H, W) to or from a "
                                                            "5-D NC1HWC0 tensor (N, ceil(C/16), H, W, 16) of its dtype");
  }
  return prepare(op, {src, dst}, [s = desc(src), d = desc(dst), to_blocked] {
    if (to_blocked) {
      block_into(view(d), view(s));
    } else {
      unblock_into(view(d), view(s));
    }
  }, workspace_size, executor);
}
NPUNN_RUN(TransData)

npuError npunnInplaceCopyGetWorkspaceSize(npuTensor* dst, const npuTensor* src, NPUNN_QUERY_ARGS) {
  // The copy engine moves any dtype, float64 included: only arithmetic lacks it.
  const char* op = "npunnInplaceCopy";
  if (!dst || !src) return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": null tensor");
  for (const npuTensor* t : std::initializer_list<const npuTensor*>{dst, src}) {
    if (numel(*t) == 0) continue;
    const std::string where = alu::residency_error(npu_sim::chip(), base_of(*t), aten_dtype(t->dtype), t->dims(), t->strides());
    if (!where.empty()) return fail(NPU_ERROR_INVALID_ADDRESS, std::string(op) + ": " + where);
  }
  return prepare(op, {}, [d = desc(dst), s = desc(src)] { view(d).copy_(view(s)); }, workspace_size, executor);
}
NPUNN_RUN(InplaceCopy)

// ---- elementwise ----------------------------------------------------------

#define NPU_BINARY_ALPHA(NAME, ATEN)                                                                        \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* other, const npuScalar* alpha, \
                                         npuTensor* out, NPUNN_QUERY_ARGS) {                                \
    if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunn" #NAME ": null alpha");                          \
    return prepare("npunn" #NAME, {self, other, out}, [a = desc(self), b = desc(other), k = *alpha, o = desc(out)] { \
      at::Tensor result = view(o);                                                                           \
      ATEN(result, view(a), view(b), aten_scalar(k));                                                        \
    }, workspace_size, executor);                                                                            \
  }                                                                                                          \
  NPUNN_RUN(NAME)

#define NPU_BINARY_SCALAR_ALPHA(NAME, ATEN)                                                                 \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuScalar* other, const npuScalar* alpha, \
                                         npuTensor* out, NPUNN_QUERY_ARGS) {                                \
    if (!other || !alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunn" #NAME ": null scalar");               \
    return prepare("npunn" #NAME, {self, out}, [a = desc(self), b = *other, k = *alpha, o = desc(out)] {     \
      at::Tensor result = view(o);                                                                           \
      ATEN(result, view(a), wrapped(b), aten_scalar(k));                                                     \
    }, workspace_size, executor);                                                                            \
  }                                                                                                          \
  NPUNN_RUN(NAME)

#define NPU_BINARY(NAME, ATEN)                                                                                  \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* other, npuTensor* out,         \
                                         NPUNN_QUERY_ARGS) {                                                    \
    return prepare("npunn" #NAME, {self, other, out}, [a = desc(self), b = desc(other), o = desc(out)] {        \
      at::Tensor result = view(o);                                                                               \
      ATEN(result, view(a), view(b));                                                                            \
    }, workspace_size, executor);                                                                                \
  }                                                                                                              \
  NPUNN_RUN(NAME)

#define NPU_BINARY_SCALAR(NAME, ATEN)                                                                           \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuScalar* other, npuTensor* out,         \
                                         NPUNN_QUERY_ARGS) {                                                    \
    if (!other) return fail(NPU_ERROR_INVALID_PARAM, "npunn" #NAME ": null scalar");                             \
    return prepare("npunn" #NAME, {self, out}, [a = desc(self), b = *other, o = desc(out)] {                     \
      at::Tensor result = view(o);                                                                               \
      ATEN(result, view(a), wrapped(b));                                                                         \
    }, workspace_size, executor);                                                                                \
  }                                                                                                              \
  NPUNN_RUN(NAME)

#define NPU_UNARY(NAME, ATEN)                                                                                   \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {             \
    return prepare("npunn" #NAME, {self, out}, [x = desc(self), o = desc(out)] {                                 \
      at::Tensor result = view(o);                                                                               \
      ATEN(result, view(x));                                                                                     \
    }, workspace_size, executor);                                                                                \
  }                                                                                                              \
  NPUNN_RUN(NAME)

NPU_BINARY_ALPHA(Add, at::add_out)
NPU_BINARY_ALPHA(Sub, at::sub_out)
NPU_BINARY_SCALAR_ALPHA(Adds, at::add_out)
NPU_BINARY_SCALAR_ALPHA(Subs, at::sub_out)
NPU_BINARY(Mul, at::mul_out)
NPU_BINARY(Div, at::div_out)
NPU_BINARY(Maximum, at::maximum_out)
NPU_BINARY(Minimum, at::minimum_out)
NPU_BINARY(EqTensor, at::eq_out)
NPU_BINARY(NeTensor, at::ne_out)
NPU_BINARY(LtTensor, at::lt_out)
NPU_BINARY(GtTensor, at::gt_out)
NPU_BINARY_SCALAR(Muls, at::mul_out)
NPU_BINARY_SCALAR(Divs, at::div_out)
NPU_BINARY_SCALAR(EqScalar, at::eq_out)
NPU_BINARY_SCALAR(NeScalar, at::ne_out)
NPU_BINARY_SCALAR(LtScalar, at::lt_out)
NPU_BINARY_SCALAR(GtScalar, at::gt_out)
NPU_BINARY(TanhBackward, at::tanh_backward_out)
NPU_BINARY(SigmoidBackward, at::sigmoid_backward_out)
NPU_BINARY(SiluBackward, at::silu_backward_out)


NPU_UNARY(Neg, at::neg_out)
NPU_UNARY(Exp, at::exp_out)
NPU_UNARY(Log, at::log_out)
NPU_UNARY(Sqrt, at::sqrt_out)
NPU_UNARY(Rsqrt, at::rsqrt_out)
NPU_UNARY(Tanh, at::tanh_out)
NPU_UNARY(Sigmoid, at::sigmoid_out)
NPU_UNARY(Abs, at::abs_out)
NPU_UNARY(Sin, at::sin_out)
NPU_UNARY(Cos, at::cos_out)
NPU_UNARY(Reciprocal, at::reciprocal_out)
NPU_UNARY(Silu, at::silu_out)
NPU_UNARY(Erf, at::erf_out)
NPU_UNARY(IsNegInf, at::isneginf_out)

npuError npunnReluGetWorkspaceSize(const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  // Elementwise: ND or NC1HWC0 (relu keeps the padding's zeros), both the same.
  if (self && out && self->format != out->format) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnRelu: self and out must be in the same format");
  }
  return prepare("npunnRelu", {self, out}, [x = desc(self), o = desc(out)] {
    at::Tensor result = view(o);
    at::clamp_min_out(result, view(x), 0);
  }, workspace_size, executor);
}
NPUNN_RUN(Relu)

npuError npunnGeluGetWorkspaceSize(const npuTensor* self, const char* approximate, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!approximate) return fail(NPU_ERROR_INVALID_PARAM, "npunnGelu: null approximate");
  return prepare("npunnGelu", {self, out}, [x = desc(self), mode = std::string(approximate), o = desc(out)] {
    at::Tensor result = view(o);
    at::gelu_out(result, view(x), mode);
  }, workspace_size, executor);
}
NPUNN_RUN(Gelu)

npuError npunnGeluBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const char* approximate,
                                           npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!approximate) return fail(NPU_ERROR_INVALID_PARAM, "npunnGeluBackward: null approximate");
  return prepare("npunnGeluBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), mode = std::string(approximate), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::gelu_backward_out(result, view(g), view(x), mode);
                 }, workspace_size, executor);
}
NPUNN_RUN(GeluBackward)

npuError npunnThresholdBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnThresholdBackward: null threshold");
  return prepare("npunnThresholdBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), t = *threshold, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::threshold_backward_out(result, view(g), view(x), aten_scalar(t));
                 }, workspace_size, executor);
}
NPUNN_RUN(ThresholdBackward)

npuError npunnPowTensorScalarGetWorkspaceSize(const npuTensor* self, const npuScalar* exponent, npuTensor* out,
                                              NPUNN_QUERY_ARGS) {
  if (!exponent) return fail(NPU_ERROR_INVALID_PARAM, "npunnPowTensorScalar: null exponent");
  return prepare("npunnPowTensorScalar", {self, out}, [x = desc(self), e = *exponent, o = desc(out)] {
    at::Tensor result = view(o);
    at::pow_out(result, view(x), aten_scalar(e));
  }, workspace_size, executor);
}
NPUNN_RUN(PowTensorScalar)

npuError npunnClampGetWorkspaceSize(const npuTensor* self, const npuScalar* min, const npuScalar* max, npuTensor* out,
                                    NPUNN_QUERY_ARGS) {
  std::optional<npuScalar> low = min ? std::optional<npuScalar>(*min) : std::nullopt;
  std::optional<npuScalar> high = max ? std::optional<npuScalar>(*max) : std::nullopt;
  return prepare("npunnClamp", {self, out}, [x = desc(self), low, high, o = desc(out)] {
    at::Tensor result = view(o);
    at::clamp_out(result, view(x), low ? std::optional<at::Scalar>(aten_scalar(*low)) : std::nullopt,
                  high ? std::optional<at::Scalar>(aten_scalar(*high)) : std::nullopt);
  }, workspace_size, executor);
}
NPUNN_RUN(Clamp)

// ---- ternary and masked ---------------------------------------------------

#define NPU_POINTWISE3(NAME, ATEN)                                                                                \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuTensor* tensor1, const npuTensor* tensor2, \
                                         const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {               \
    if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunn" #NAME ": null value");                                \
    return prepare("npunn" #NAME, {self, tensor1, tensor2, out},                                                   \
                   [x = desc(self), a = desc(tensor1), b = desc(tensor2), v = *value, o = desc(out)] {              \
                     at::Tensor result = view(o);                                                                  \
                     ATEN(result, view(x), view(a), view(b), aten_scalar(v));                                      \
                   }, workspace_size, executor);                                                                   \
  }                                                                                                                \
  NPUNN_RUN(NAME)

NPU_POINTWISE3(Addcmul, at::addcmul_out)
NPU_POINTWISE3(Addcdiv, at::addcdiv_out)

npuError npunnLerpsGetWorkspaceSize(const npuTensor* self, const npuTensor* end, const npuScalar* weight,
                                    npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!weight) return fail(NPU_ERROR_INVALID_PARAM, "npunnLerps: null weight");
  return prepare("npunnLerps", {self, end, out}, [x = desc(self), e = desc(end), w = *weight, o = desc(out)] {
    at::Tensor result = view(o);
    at::lerp_out(result, view(x), view(e), aten_scalar(w));
  }, workspace_size, executor);
}
NPUNN_RUN(Lerps)

npuError npunnWhereGetWorkspaceSize(const npuTensor* condition, const npuTensor* self, const npuTensor* other,
                                    npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnWhere", {condition, self, other, out},
                 [c = desc(condition), a = desc(self), b = desc(other), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::where_out(result, view(c), view(a), view(b));
                 }, workspace_size, executor);
}
NPUNN_RUN(Where)

npuError npunnInplaceMaskedFillScalarGetWorkspaceSize(npuTensor* self, const npuTensor* mask, const npuScalar* value,
                                                      NPUNN_QUERY_ARGS) {
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceMaskedFillScalar: null value");
  return prepare("npunnInplaceMaskedFillScalar", {self, mask}, [x = desc(self), m = desc(mask), v = *value] {
    view(x).masked_fill_(view(m), aten_scalar(v));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceMaskedFillScalar)

npuError npunnTrilGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnTril", {self, out}, [x = desc(self), diagonal, o = desc(out)] {
    at::Tensor result = view(o);
    at::tril_out(result, view(x), diagonal);
  }, workspace_size, executor);
}
NPUNN_RUN(Tril)

npuError npunnTriuGetWorkspaceSize(const npuTensor* self, int64_t diagonal, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnTriu", {self, out}, [x = desc(self), diagonal, o = desc(out)] {
    at::Tensor result = view(o);
    at::triu_out(result, view(x), diagonal);
  }, workspace_size, executor);
}
NPUNN_RUN(Triu)

// ---- fills, ranges, random ------------------------------------------------

npuError npunnInplaceFillScalarGetWorkspaceSize(npuTensor* self, const npuScalar* value, NPUNN_QUERY_ARGS) {
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceFillScalar: null value");
  return prepare("npunnInplaceFillScalar", {self}, [x = desc(self), v = *value] { view(x).fill_(aten_scalar(v)); },
                 workspace_size, executor);
}
NPUNN_RUN(InplaceFillScalar)

npuError npunnInplaceZeroGetWorkspaceSize(npuTensor* self, NPUNN_QUERY_ARGS) {
  return prepare("npunnInplaceZero", {self}, [x = desc(self)] { view(x).zero_(); }, workspace_size, executor);
}
NPUNN_RUN(InplaceZero)

npuError npunnArangeGetWorkspaceSize(const npuScalar* start, const npuScalar* end, const npuScalar* step,
                                     npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!start || !end || !step) return fail(NPU_ERROR_INVALID_PARAM, "npunnArange: null scalar");
  return prepare("npunnArange", {out}, [a = *start, b = *end, s = *step, o = desc(out)] {
    at::Tensor result = view(o);
    at::arange_out(result, aten_scalar(a), aten_scalar(b), aten_scalar(s));
  }, workspace_size, executor);
}
NPUNN_RUN(Arange)

npuError npunnInplaceNormalGetWorkspaceSize(npuTensor* self, double mean, double std, npuRandState state,
                                            NPUNN_QUERY_ARGS) {
  if (!(std >= 0.0)) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceNormal: std must be >= 0");
  return prepare("npunnInplaceNormal", {self}, [x = desc(self), mean, std, state] {
    view(x).normal_(mean, std, alu::counter_generator(state.seed, state.offset));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceNormal)

npuError npunnInplaceUniformGetWorkspaceSize(npuTensor* self, double from, double to, npuRandState state,
                                             NPUNN_QUERY_ARGS) {
  if (!(from <= to)) return fail(NPU_ERROR_INVALID_PARAM, "npunnInplaceUniform: from must be <= to");
  return prepare("npunnInplaceUniform", {self}, [x = desc(self), from, to, state] {
    view(x).uniform_(from, to, alu::counter_generator(state.seed, state.offset));
  }, workspace_size, executor);
}
NPUNN_RUN(InplaceUniform)

npuError npunnDropoutGetWorkspaceSize(const npuTensor* input, double p, bool train, npuRandState state, npuTensor* out,
                                      npuTensor* mask, NPUNN_QUERY_ARGS) {
  if (!(p >= 0.0 && p <= 1.0)) return fail(NPU_ERROR_INVALID_PARAM, "npunnDropout: p must be in [0, 1]");
  return prepare("npunnDropout", {input, out, mask}, [x = desc(input), p, train, state, o = desc(out), m = desc(mask)] {
    alu::dropout(view(x), p, train, state.seed, state.offset, view(o), view(m));
  }, workspace_size, executor);
}
NPUNN_RUN(Dropout)

npuError npunnDropoutBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* mask, double scale,
                                              npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnDropoutBackward", {grad, mask, out}, [g = desc(grad), m = desc(mask), scale, o = desc(out)] {
    at::Tensor result = view(o);
    at::native_dropout_backward_out(result, view(g), view(m), scale);
  }, workspace_size, executor);
}
NPUNN_RUN(DropoutBackward)

// ---- matrix multiplication ------------------------------------------------

npuError npunnMmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnMm", {self, mat2, out}, [a = desc(self), b = desc(mat2), o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::mm_out(acc, view(a).to(acc.scalar_type()), view(b).to(acc.scalar_type())); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Mm)

npuError npunnBmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBmm", {self, mat2, out}, [a = desc(self), b = desc(mat2), o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::bmm_out(acc, view(a).to(acc.scalar_type()), view(b).to(acc.scalar_type())); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Bmm)

npuError npunnAddmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat1, const npuTensor* mat2,
                                    const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta || !alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnAddmm: null scalar");
  return prepare("npunnAddmm", {self, mat1, mat2, out},
                 [c = desc(self), a = desc(mat1), b = desc(mat2), beta = *beta, alpha = *alpha, o = desc(out)](void* ws) {
                   accumulate(ws, o, [&](at::Tensor& acc) {
                     const auto t = acc.scalar_type();
                     at::addmm_out(acc, view(c).to(t), view(a).to(t), view(b).to(t), aten_scalar(beta), aten_scalar(alpha));
                   });
                 }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Addmm)

npuError npunnBaddbmmGetWorkspaceSize(const npuTensor* self, const npuTensor* batch1, const npuTensor* batch2,
                                      const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta || !alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnBaddbmm: null scalar");
  return prepare("npunnBaddbmm", {self, batch1, batch2, out},
                 [c = desc(self), a = desc(batch1), b = desc(batch2), beta = *beta, alpha = *alpha, o = desc(out)](void* ws) {
                   accumulate(ws, o, [&](at::Tensor& acc) {
                     const auto t = acc.scalar_type();
                     at::baddbmm_out(acc, view(c).to(t), view(a).to(t), view(b).to(t), aten_scalar(beta), aten_scalar(alpha));
                   });
                 }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(Baddbmm)

// ---- reductions -----------------------------------------------------------

npuError npunnReduceSumGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                        NPUNN_QUERY_ARGS) {
  return prepare("npunnReduceSum", {self, out}, [x = desc(self), dims = optional_ints(dim), keepdim, o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::sum_out(acc, view(x), at::OptionalIntArrayRef(dims), keepdim, acc.scalar_type()); });
  }, workspace_size, executor, float_accumulator_bytes(out));
}
NPUNN_RUN(ReduceSum)

npuError npunnMeanGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out,
                                   NPUNN_QUERY_ARGS) {
  return prepare("npunnMean", {self, out}, [x = desc(self), dims = optional_ints(dim), keepdim, o = desc(out)](void* ws) {
    accumulate(ws, o, [&](at::Tensor& acc) { at::mean_out(acc, view(x), at::OptionalIntArrayRef(dims), keepdim, acc.scalar_type()); });
  }, workspace_size, executor, float_accumulator_bytes(out));
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

// ---- softmax and loss -----------------------------------------------------

npuError npunnSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnSoftmax", {self, out}, [x = desc(self), dim, o = desc(out)] {
    at::Tensor result = view(o);
    at::_softmax_out(result, view(x), dim, /*half_to_float=*/x.tensor.dtype != o.tensor.dtype);
  }, workspace_size, executor);
}
NPUNN_RUN(Softmax)

npuError npunnSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim,
                                              npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnSoftmaxBackward", {grad, output, out}, [g = desc(grad), y = desc(output), dim, o = desc(out)] {
    at::Tensor result = view(o);
    at::_softmax_backward_data_out(result, view(g), view(y), dim, result.scalar_type());
  }, workspace_size, executor);
}
NPUNN_RUN(SoftmaxBackward)

npuError npunnLogSoftmaxGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSoftmax", {self, out}, [x = desc(self), dim, o = desc(out)] {
    at::Tensor result = view(o);
    at::_log_softmax_out(result, view(x), dim, /*half_to_float=*/x.tensor.dtype != o.tensor.dtype);
  }, workspace_size, executor);
}
NPUNN_RUN(LogSoftmax)

npuError npunnLogSoftmaxBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* output, int64_t dim,
                                                 npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSoftmaxBackward", {grad, output, out}, [g = desc(grad), y = desc(output), dim, o = desc(out)] {
    at::Tensor result = view(o);
    at::_log_softmax_backward_data_out(result, view(g), view(y), dim, result.scalar_type());
  }, workspace_size, executor);
}
NPUNN_RUN(LogSoftmaxBackward)

npuError npunnNLLLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight,
                                      int64_t reduction, int64_t ignore_index, npuTensor* out, npuTensor* total_weight,
                                      NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss", {self, target, weight, out, total_weight},
                 [x = desc(self), t = desc(target), w = desc(weight), reduction, ignore_index, o = desc(out),
                  tw = desc(total_weight)] {
                   at::Tensor output = view(o);
                   at::Tensor total = view(tw);
                   // ATen's CPU kernel reads int64 targets; the chip reads int32 ones.
                   at::nll_loss_forward_out(output, total, view(x), view(t).to(at::kLong), optional_view(w), reduction,
                                            ignore_index);
                 }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss)

npuError npunnNLLLossBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuTensor* target,
                                              const npuTensor* weight, int64_t reduction, int64_t ignore_index,
                                              const npuTensor* total_weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLossBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLossBackward", {grad, self, target, weight, total_weight, out},
                 [g = desc(grad), x = desc(self), t = desc(target), w = desc(weight), reduction, ignore_index,
                  tw = desc(total_weight), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::nll_loss_backward_out(result, view(g), view(x), view(t).to(at::kLong), optional_view(w),
                                             reduction, ignore_index, view(tw));
                 }, workspace_size, executor);
}
NPUNN_RUN(NLLLossBackward)

// ---- shapes and indexing --------------------------------------------------

npuError npunnCatGetWorkspaceSize(const npuTensorList* tensors, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!tensors) return fail(NPU_ERROR_INVALID_PARAM, "npunnCat: null tensor list");
  std::vector<Desc> inputs;
  for (const npuTensor* t : tensors->tensors) {
    if (npuError e = check("npunnCat", t); e != NPU_SUCCESS) return e;
    inputs.push_back(desc(t));
  }
  return prepare("npunnCat", {out}, [inputs, dim, o = desc(out)] {
    std::vector<at::Tensor> views;
    for (const Desc& d : inputs) views.push_back(view(d));
    at::Tensor result = view(o);
    at::cat_out(result, views, dim);
  }, workspace_size, executor);
}
NPUNN_RUN(Cat)

npuError npunnIndexSelectGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out,
                                          NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnIndexSelect", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnIndexSelect", {self, index, out}, [x = desc(self), dim, i = desc(index), o = desc(out)] {
    at::Tensor result = view(o);
    at::index_select_out(result, view(x), dim, view(i));
  }, workspace_size, executor);
}
NPUNN_RUN(IndexSelect)

npuError npunnEmbeddingDenseBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* indices,
                                                     int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq,
                                                     npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnEmbeddingDenseBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnEmbeddingDenseBackward", {grad, indices, out},
                 [g = desc(grad), i = desc(indices), num_weights, padding_idx, scale_grad_by_freq, o = desc(out)] {
                   alu::store(view(o), at::embedding_dense_backward(view(g), view(i), num_weights, padding_idx,
                                                                    scale_grad_by_freq));
                 }, workspace_size, executor);
}
NPUNN_RUN(EmbeddingDenseBackward)

// ---- convolution ----------------------------------------------------------

npuError npunnConvolutionGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias,
                                          const npuIntArray* stride, const npuIntArray* padding,
                                          const npuIntArray* dilation, int64_t groups, npuTensor* out,
                                          NPUNN_QUERY_ARGS) {
  const char* op = "npunnConvolution";
  if (npuError e = require_format(op, "input", input, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  if (npuError e = require_format(op, "weight", weight, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  if (groups != 1) return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": grouped convolution");
  if (out && out->format == NPU_FORMAT_NC1HWC0 &&
      (out->rank != 5 || out->dim_sizes[1] != (weight->dim_sizes[0] + NPU_C0 - 1) / NPU_C0)) {
    return fail(NPU_ERROR_INVALID_PARAM, std::string(op) + ": an NC1HWC0 out must be (N, ceil(C_out/16), H, W, 16)");
  }
  return prepare(op, {input, weight, bias, out},
                 [x = desc(input), w = desc(weight), b = desc(bias), s = ints(stride), p = ints(padding),
                  d = ints(dilation), o = desc(out)] {
                   // Zero-padded channels contribute nothing to the sums.
                   const at::Tensor result = at::convolution(unblock(view(x)), unblock(view(w)), optional_view(b), s,
                                                             p, d, /*transposed=*/false, {0, 0}, 1);
                   if (is_blocked(o)) {
                     // The padded output channels of the weight are zeros: write the real ones.
                     block_into(view(o), result.narrow(1, 0, w.tensor.dim_sizes[0]));
                   } else {
                     alu::store(view(o), result);
                   }
                 }, workspace_size, executor);
}
NPUNN_RUN(Convolution)

npuError npunnConvolutionBackwardGetWorkspaceSize(const npuTensor* grad_output, const npuTensor* input,
                                                  const npuTensor* weight, const npuIntArray* stride,
                                                  const npuIntArray* padding, const npuIntArray* dilation,
                                                  int64_t groups, npuTensor* grad_input, npuTensor* grad_weight,
                                                  npuTensor* grad_bias, NPUNN_QUERY_ARGS) {
  const char* op = "npunnConvolutionBackward";
  for (auto [what, t] : {std::pair{"grad_output", grad_output}, {"input", input}, {"weight", weight}}) {
    if (npuError e = require_format(op, what, t, NPU_FORMAT_NC1HWC0); e != NPU_SUCCESS) return e;
  }
  if (groups != 1) return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": grouped convolution");
  return prepare(op, {grad_output, input, weight, grad_input, grad_weight, grad_bias},
                 [g = desc(grad_output), x = desc(input), w = desc(weight), s = ints(stride), p = ints(padding),
                  d = ints(dilation), gi = desc(grad_input), gw = desc(grad_weight), gb = desc(grad_bias)] {
                   // On the caller's channel counts, without the padding: the sums
                   // then run in CPU's order, and float16 gradients round as CPU's.
                   const at::Tensor weight_padded = unblock_nchw(view(w));
                   const int64_t out_channels = weight_padded.size(0);
                   const int64_t in_channels = gi.present ? gi.tensor.dim_sizes[1]
                                               : gw.present ? gw.tensor.dim_sizes[1] : weight_padded.size(1);
                   const at::Tensor grad = unblock_nchw(view(g)).narrow(1, 0, out_channels).contiguous();
                   const at::Tensor input = unblock_nchw(view(x)).narrow(1, 0, in_channels).contiguous();
                   const at::Tensor weight = weight_padded.narrow(1, 0, in_channels).contiguous();
                   const std::array<bool, 3> mask{gi.present, gw.present, gb.present};
                   const std::vector<int64_t> bias_sizes{out_channels};
                   auto [dx, dw, db] = at::convolution_backward(grad, input, weight, bias_sizes, s, p, d,
                                                                /*transposed=*/false, {0, 0}, 1, mask);
                   // Results are ND with the caller's channel count: drop the padding.
                   if (gi.present) alu::store(view(gi), dx.narrow(1, 0, gi.tensor.dim_sizes[1]));
                   if (gw.present) alu::store(view(gw), dw.narrow(1, 0, gw.tensor.dim_sizes[1]));
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(ConvolutionBackward)

// ---- pooling --------------------------------------------------------------

npuError npunnMaxPool2dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size,
                                                   const npuIntArray* stride, const npuIntArray* padding,
                                                   const npuIntArray* dilation, bool ceil_mode, npuTensor* out,
                                                   npuTensor* indices, NPUNN_QUERY_ARGS) {
  if (self && out && indices && (self->format != out->format || self->format != indices->format)) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnMaxPool2dWithIndices: self, out and indices must be in one format");
  }
  return prepare("npunnMaxPool2dWithIndices", {self, out, indices},
                 [x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), d = ints(dilation),
                  ceil_mode, o = desc(out), i = desc(indices)] {
                   // NC1HWC0: pooled plane by plane, as the channels-last planes it is.
                   const bool blocked = is_blocked(x);
                   auto [values, where] = at::max_pool2d_with_indices(blocked ? planes(view(x)) : view(x), k, s, p, d,
                                                                      ceil_mode);
                   alu::store(blocked ? planes(view(o)) : view(o), values);
                   alu::store(blocked ? planes(view(i)) : view(i), where);
                 }, workspace_size, executor);
}
NPUNN_RUN(MaxPool2dWithIndices)

npuError npunnMaxPool2dWithIndicesBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                           const npuIntArray* kernel_size, const npuIntArray* stride,
                                                           const npuIntArray* padding, const npuIntArray* dilation,
                                                           bool ceil_mode, const npuTensor* indices, npuTensor* out,
                                                           NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMaxPool2dWithIndicesBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnMaxPool2dWithIndicesBackward", {grad, self, indices, out},
                 [g = desc(grad), x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding),
                  d = ints(dilation), ceil_mode, i = desc(indices), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::max_pool2d_with_indices_backward_out(result, view(g), view(x), k, s, p, d, ceil_mode,
                                                            view(i).to(at::kLong));
                 }, workspace_size, executor);
}
NPUNN_RUN(MaxPool2dWithIndicesBackward)

npuError npunnAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernel_size,
                                        const npuIntArray* stride, const npuIntArray* padding, bool ceil_mode,
                                        bool count_include_pad, int64_t divisor_override, npuTensor* out,
                                        NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool2d", {self, out},
                 [x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), ceil_mode,
                  count_include_pad, divisor_override, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::avg_pool2d_out(result, view(x), k, s, p, ceil_mode, count_include_pad,
                                      divisor_override ? std::optional<int64_t>(divisor_override) : std::nullopt);
                 }, workspace_size, executor);
}
NPUNN_RUN(AvgPool2d)

npuError npunnAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self,
                                                const npuIntArray* kernel_size, const npuIntArray* stride,
                                                const npuIntArray* padding, bool ceil_mode, bool count_include_pad,
                                                int64_t divisor_override, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool2dBackward", {grad, self, out},
                 [g = desc(grad), x = desc(self), k = ints(kernel_size), s = ints(stride), p = ints(padding), ceil_mode,
                  count_include_pad, divisor_override, o = desc(out)] {
                   at::Tensor result = view(o);
                   at::avg_pool2d_backward_out(result, view(g), view(x), k, s, p, ceil_mode, count_include_pad,
                                               divisor_override ? std::optional<int64_t>(divisor_override)
                                                                : std::nullopt);
                 }, workspace_size, executor);
}
NPUNN_RUN(AvgPool2dBackward)

npuError npunnAdaptiveAvgPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* output_size, npuTensor* out,
                                                NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool2d", {self, out}, [x = desc(self), size = ints(output_size), o = desc(out)] {
    alu::store(view(o), at::_adaptive_avg_pool2d(view(x), size));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool2d)

npuError npunnAdaptiveAvgPool2dBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, npuTensor* out,
                                                        NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool2dBackward", {grad, self, out}, [g = desc(grad), x = desc(self), o = desc(out)] {
    alu::store(view(o), at::_adaptive_avg_pool2d_backward(view(g), view(x)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool2dBackward)

// ---- normalization --------------------------------------------------------

npuError npunnBatchNormGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* bias,
                                        npuTensor* running_mean, npuTensor* running_var, bool training,
                                        double momentum, double eps, npuTensor* out, npuTensor* save_mean,
                                        npuTensor* save_invstd, NPUNN_QUERY_ARGS) {
  if (input && out && input->format != out->format) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnBatchNorm: input and out must be in the same format");
  }
  if (input && input->format == NPU_FORMAT_NC1HWC0 && !training && (!running_mean || !running_var)) {
    return fail(NPU_ERROR_INVALID_PARAM, "npunnBatchNorm: inference in NC1HWC0 needs the running statistics");
  }
  return prepare("npunnBatchNorm", {input, weight, bias, running_mean, running_var, out, save_mean, save_invstd},
                 [x = desc(input), w = desc(weight), b = desc(bias), rm = desc(running_mean), rv = desc(running_var),
                  training, momentum, eps, o = desc(out), sm = desc(save_mean), si = desc(save_invstd)] {
                   // Running statistics are updated in place, in device memory.
                   if (is_blocked(x)) {
                     batch_norm_blocked(view(x), optional_view(w), optional_view(b), optional_view(rm),
                                        optional_view(rv), training, momentum, eps, view(o), view(sm), view(si));
                     return;
                   }
                   auto [y, mean, invstd] = at::native_batch_norm(view(x), optional_view(w), optional_view(b),
                                                                  optional_view(rm), optional_view(rv), training,
                                                                  momentum, eps);
                   alu::store(view(o), y);
                   alu::store(view(sm), mean);
                   alu::store(view(si), invstd);
                 }, workspace_size, executor);
}
NPUNN_RUN(BatchNorm)

npuError npunnBatchNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input, const npuTensor* weight,
                                                const npuTensor* running_mean, const npuTensor* running_var,
                                                const npuTensor* save_mean, const npuTensor* save_invstd,
                                                bool training, double eps, npuTensor* grad_input,
                                                npuTensor* grad_weight, npuTensor* grad_bias, NPUNN_QUERY_ARGS) {
  return prepare("npunnBatchNormBackward",
                 {grad, input, weight, running_mean, running_var, save_mean, save_invstd, grad_input, grad_weight,
                  grad_bias},
                 [g = desc(grad), x = desc(input), w = desc(weight), rm = desc(running_mean), rv = desc(running_var),
                  sm = desc(save_mean), si = desc(save_invstd), training, eps, gi = desc(grad_input),
                  gw = desc(grad_weight), gb = desc(grad_bias)] {
                   auto [dx, dw, db] = at::native_batch_norm_backward(
                       view(g), view(x), optional_view(w), optional_view(rm), optional_view(rv), optional_view(sm),
                       optional_view(si), training, eps, {gi.present, gw.present, gb.present});
                   if (gi.present) alu::store(view(gi), dx);
                   if (gw.present) alu::store(view(gw), dw);
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(BatchNormBackward)

npuError npunnLayerNormGetWorkspaceSize(const npuTensor* input, const npuIntArray* normalized_shape,
                                        const npuTensor* weight, const npuTensor* bias, double eps, npuTensor* out,
                                        npuTensor* mean, npuTensor* rstd, NPUNN_QUERY_ARGS) {
  return prepare("npunnLayerNorm", {input, weight, bias, out, mean, rstd},
                 [x = desc(input), shape = ints(normalized_shape), w = desc(weight), b = desc(bias), eps,
                  o = desc(out), m = desc(mean), r = desc(rstd)] {
                   auto [y, mu, inv] = at::native_layer_norm(view(x), shape, optional_view(w), optional_view(b), eps);
                   alu::store(view(o), y);
                   alu::store(view(m), mu);
                   alu::store(view(r), inv);
                 }, workspace_size, executor);
}
NPUNN_RUN(LayerNorm)

npuError npunnLayerNormBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* input,
                                                const npuIntArray* normalized_shape, const npuTensor* mean,
                                                const npuTensor* rstd, const npuTensor* weight, const npuTensor* bias,
                                                npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_bias,
                                                NPUNN_QUERY_ARGS) {
  return prepare("npunnLayerNormBackward", {grad, input, mean, rstd, weight, bias, grad_input, grad_weight, grad_bias},
                 [g = desc(grad), x = desc(input), shape = ints(normalized_shape), m = desc(mean), r = desc(rstd),
                  w = desc(weight), b = desc(bias), gi = desc(grad_input), gw = desc(grad_weight),
                  gb = desc(grad_bias)] {
                   auto [dx, dw, db] = at::native_layer_norm_backward(view(g), view(x), shape, view(m), view(r),
                                                                      optional_view(w), optional_view(b),
                                                                      {gi.present, gw.present, gb.present});
                   if (gi.present) alu::store(view(gi), dx);
                   if (gw.present) alu::store(view(gw), dw);
                   if (gb.present) alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(LayerNormBackward)

// ---- activations, losses, 3-D/adaptive pooling, padding, group norm ---------

npuError npunnEluGetWorkspaceSize(const npuTensor* self, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null alpha");
  if (!scale) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null scale");
  if (!inputScale) return fail(NPU_ERROR_INVALID_PARAM, "npunnElu: null inputScale");
  return prepare("npunnElu", {self, out}, [self = desc(self), alpha = *alpha, scale = *scale, inputScale = *inputScale, out = desc(out)] {
    alu::store(view(out), at::elu(view(self), aten_scalar(alpha), aten_scalar(scale), aten_scalar(inputScale)));
  }, workspace_size, executor);
}
NPUNN_RUN(Elu)

npuError npunnEluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuScalar* alpha, const npuScalar* scale, const npuScalar* inputScale, bool isResult, const npuTensor* selfOrResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null alpha");
  if (!scale) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null scale");
  if (!inputScale) return fail(NPU_ERROR_INVALID_PARAM, "npunnEluBackward: null inputScale");
  return prepare("npunnEluBackward", {gradOutput, selfOrResult, out}, [gradOutput = desc(gradOutput), alpha = *alpha, scale = *scale, inputScale = *inputScale, isResult, selfOrResult = desc(selfOrResult), out = desc(out)] {
    alu::store(view(out), at::elu_backward(view(gradOutput), aten_scalar(alpha), aten_scalar(scale), aten_scalar(inputScale), isResult, view(selfOrResult)));
  }, workspace_size, executor);
}
NPUNN_RUN(EluBackward)

npuError npunnHardtanhGetWorkspaceSize(const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!minVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanh: null minVal");
  if (!maxVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanh: null maxVal");
  return prepare("npunnHardtanh", {self, out}, [self = desc(self), minVal = *minVal, maxVal = *maxVal, out = desc(out)] {
    alu::store(view(out), at::hardtanh(view(self), aten_scalar(minVal), aten_scalar(maxVal)));
  }, workspace_size, executor);
}
NPUNN_RUN(Hardtanh)

npuError npunnHardtanhBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* minVal, const npuScalar* maxVal, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!minVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanhBackward: null minVal");
  if (!maxVal) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardtanhBackward: null maxVal");
  return prepare("npunnHardtanhBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), minVal = *minVal, maxVal = *maxVal, out = desc(out)] {
    alu::store(view(out), at::hardtanh_backward(view(gradOutput), view(self), aten_scalar(minVal), aten_scalar(maxVal)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardtanhBackward)

npuError npunnLeakyReluGetWorkspaceSize(const npuTensor* self, const npuScalar* negativeSlope, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!negativeSlope) return fail(NPU_ERROR_INVALID_PARAM, "npunnLeakyRelu: null negativeSlope");
  return prepare("npunnLeakyRelu", {self, out}, [self = desc(self), negativeSlope = *negativeSlope, out = desc(out)] {
    alu::store(view(out), at::leaky_relu(view(self), aten_scalar(negativeSlope)));
  }, workspace_size, executor);
}
NPUNN_RUN(LeakyRelu)

npuError npunnLeakyReluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* negativeSlope, bool selfIsResult, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!negativeSlope) return fail(NPU_ERROR_INVALID_PARAM, "npunnLeakyReluBackward: null negativeSlope");
  return prepare("npunnLeakyReluBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), negativeSlope = *negativeSlope, selfIsResult, out = desc(out)] {
    alu::store(view(out), at::leaky_relu_backward(view(gradOutput), view(self), aten_scalar(negativeSlope), selfIsResult));
  }, workspace_size, executor);
}
NPUNN_RUN(LeakyReluBackward)

npuError npunnSoftplusGetWorkspaceSize(const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplus: null beta");
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplus: null threshold");
  return prepare("npunnSoftplus", {self, out}, [self = desc(self), beta = *beta, threshold = *threshold, out = desc(out)] {
    alu::store(view(out), at::softplus(view(self), aten_scalar(beta), aten_scalar(threshold)));
  }, workspace_size, executor);
}
NPUNN_RUN(Softplus)

npuError npunnSoftplusBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* beta, const npuScalar* threshold, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!beta) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplusBackward: null beta");
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftplusBackward: null threshold");
  return prepare("npunnSoftplusBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), beta = *beta, threshold = *threshold, out = desc(out)] {
    alu::store(view(out), at::softplus_backward(view(gradOutput), view(self), aten_scalar(beta), aten_scalar(threshold)));
  }, workspace_size, executor);
}
NPUNN_RUN(SoftplusBackward)

npuError npunnSoftshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftshrink: null lambd");
  return prepare("npunnSoftshrink", {self, out}, [self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::softshrink(view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(Softshrink)

npuError npunnSoftshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnSoftshrinkBackward: null lambd");
  return prepare("npunnSoftshrinkBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::softshrink_backward(view(gradOutput), view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(SoftshrinkBackward)

npuError npunnHardshrinkGetWorkspaceSize(const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardshrink: null lambd");
  return prepare("npunnHardshrink", {self, out}, [self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::hardshrink(view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(Hardshrink)

npuError npunnHardshrinkBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuScalar* lambd, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!lambd) return fail(NPU_ERROR_INVALID_PARAM, "npunnHardshrinkBackward: null lambd");
  return prepare("npunnHardshrinkBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), lambd = *lambd, out = desc(out)] {
    alu::store(view(out), at::hardshrink_backward(view(gradOutput), view(self), aten_scalar(lambd)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardshrinkBackward)

NPU_UNARY(Hardswish, at::hardswish_out)

npuError npunnHardswishBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnHardswishBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), out = desc(out)] {
    alu::store(view(out), at::hardswish_backward(view(gradOutput), view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(HardswishBackward)

NPU_UNARY(Hardsigmoid, at::hardsigmoid_out)

npuError npunnHardsigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out,
                                                  NPUNN_QUERY_ARGS) {
  return prepare("npunnHardsigmoidBackward", {gradOutput, self, out},
                 [g = desc(gradOutput), x = desc(self), o = desc(out)] {
                   alu::store(view(o), at::hardsigmoid_backward(view(g), view(x)));
                 }, workspace_size, executor);
}
NPUNN_RUN(HardsigmoidBackward)

npuError npunnLogSigmoidGetWorkspaceSize(const npuTensor* self, npuTensor* out, npuTensor* buffer, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSigmoid", {self, out, buffer}, [self = desc(self), out = desc(out), buffer = desc(buffer)] {
    auto [y, saved] = at::log_sigmoid_forward(view(self));
    alu::store(view(out), y);
    alu::store(view(buffer), saved);
  }, workspace_size, executor);
}
NPUNN_RUN(LogSigmoid)

npuError npunnLogSigmoidBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* buffer, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnLogSigmoidBackward", {gradOutput, self, buffer, out}, [gradOutput = desc(gradOutput), self = desc(self), buffer = desc(buffer), out = desc(out)] {
    alu::store(view(out), at::log_sigmoid_backward(view(gradOutput), view(self), view(buffer)));
  }, workspace_size, executor);
}
NPUNN_RUN(LogSigmoidBackward)

NPU_UNARY(Mish, at::mish_out)

npuError npunnThresholdGetWorkspaceSize(const npuTensor* self, const npuScalar* threshold, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!threshold) return fail(NPU_ERROR_INVALID_PARAM, "npunnThreshold: null threshold");
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnThreshold: null value");
  return prepare("npunnThreshold", {self, out}, [self = desc(self), threshold = *threshold, value = *value, out = desc(out)] {
    alu::store(view(out), at::threshold(view(self), aten_scalar(threshold), aten_scalar(value)));
  }, workspace_size, executor);
}
NPUNN_RUN(Threshold)

npuError npunnGluGetWorkspaceSize(const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnGlu", {self, out}, [self = desc(self), dim, out = desc(out)] {
    alu::store(view(out), at::glu(view(self), dim));
  }, workspace_size, executor);
}
NPUNN_RUN(Glu)

npuError npunnGluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnGluBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), dim, out = desc(out)] {
    alu::store(view(out), at::glu_backward(view(gradOutput), view(self), dim));
  }, workspace_size, executor);
}
NPUNN_RUN(GluBackward)

npuError npunnPreluGetWorkspaceSize(const npuTensor* self, const npuTensor* weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnPrelu", {self, weight, out}, [self = desc(self), weight = desc(weight), out = desc(out)] {
    alu::store(view(out), at::_prelu_kernel(view(self), view(weight)));
  }, workspace_size, executor);
}
NPUNN_RUN(Prelu)

npuError npunnPreluBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* weight, npuTensor* gradInput, npuTensor* gradWeight, NPUNN_QUERY_ARGS) {
  return prepare("npunnPreluBackward", {gradOutput, self, weight, gradInput, gradWeight}, [gradOutput = desc(gradOutput), self = desc(self), weight = desc(weight), gradInput = desc(gradInput), gradWeight = desc(gradWeight)] {
    auto [dx, dw] = at::_prelu_kernel_backward(view(gradOutput), view(self), view(weight));
    alu::store(view(gradInput), dx);
    alu::store(view(gradWeight), dw);
  }, workspace_size, executor);
}
NPUNN_RUN(PreluBackward)

NPU_UNARY(Sgn, at::sgn_out)

npuError npunnClampMinGetWorkspaceSize(const npuTensor* self, const npuScalar* min, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!min) return fail(NPU_ERROR_INVALID_PARAM, "npunnClampMin: null min");
  return prepare("npunnClampMin", {self, out}, [self = desc(self), min = *min, out = desc(out)] {
    alu::store(view(out), at::clamp_min(view(self), aten_scalar(min)));
  }, workspace_size, executor);
}
NPUNN_RUN(ClampMin)

npuError npunnAnyGetWorkspaceSize(const npuTensor* self, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAny", {self, out}, [self = desc(self), dim = ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), dim.size() == 1 ? at::any(view(self), dim[0], keepdim) : at::any(view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(Any)

npuError npunnMseLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnMseLoss", {self, target, out}, [self = desc(self), target = desc(target), reduction, out = desc(out)] {
    alu::store(view(out), at::mse_loss(view(self), view(target), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MseLoss)

npuError npunnMseLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnMseLossBackward", {gradOutput, self, target, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), reduction, out = desc(out)] {
    alu::store(view(out), at::mse_loss_backward(view(gradOutput), view(self), view(target), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MseLossBackward)

npuError npunnSmoothL1LossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnSmoothL1Loss", {self, target, out}, [self = desc(self), target = desc(target), reduction, beta, out = desc(out)] {
    alu::store(view(out), at::smooth_l1_loss(view(self), view(target), reduction, beta));
  }, workspace_size, executor);
}
NPUNN_RUN(SmoothL1Loss)

npuError npunnSmoothL1LossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnSmoothL1LossBackward", {gradOutput, self, target, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), reduction, beta, out = desc(out)] {
    alu::store(view(out), at::smooth_l1_loss_backward(view(gradOutput), view(self), view(target), reduction, beta));
  }, workspace_size, executor);
}
NPUNN_RUN(SmoothL1LossBackward)

npuError npunnHuberLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnHuberLoss", {self, target, out}, [self = desc(self), target = desc(target), reduction, delta, out = desc(out)] {
    alu::store(view(out), at::huber_loss(view(self), view(target), reduction, delta));
  }, workspace_size, executor);
}
NPUNN_RUN(HuberLoss)

npuError npunnHuberLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnHuberLossBackward", {gradOutput, self, target, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), reduction, delta, out = desc(out)] {
    alu::store(view(out), at::huber_loss_backward(view(gradOutput), view(self), view(target), reduction, delta));
  }, workspace_size, executor);
}
NPUNN_RUN(HuberLossBackward)

npuError npunnBinaryCrossEntropyGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBinaryCrossEntropy", {self, target, weight, out}, [self = desc(self), target = desc(target), weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::binary_cross_entropy(view(self), view(target), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(BinaryCrossEntropy)

npuError npunnBinaryCrossEntropyBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBinaryCrossEntropyBackward", {gradOutput, self, target, weight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::binary_cross_entropy_backward(view(gradOutput), view(self), view(target), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(BinaryCrossEntropyBackward)

npuError npunnNLLLoss2dGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, npuTensor* out, npuTensor* totalWeight, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss2d", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss2d", {self, target, weight, out, totalWeight}, [self = desc(self), target = desc(target), weight = desc(weight), reduction, ignoreIndex, out = desc(out), totalWeight = desc(totalWeight)] {
    auto [loss, total] = at::nll_loss2d_forward(view(self), view(target).to(at::kLong), optional_view(weight), reduction, ignoreIndex);
    alu::store(view(out), loss);
    alu::store(view(totalWeight), total);
  }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss2d)

npuError npunnNLLLoss2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, const npuTensor* totalWeight, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss2dBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss2dBackward", {gradOutput, self, target, weight, totalWeight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), weight = desc(weight), reduction, ignoreIndex, totalWeight = desc(totalWeight), out = desc(out)] {
    alu::store(view(out), at::nll_loss2d_backward(view(gradOutput), view(self), view(target).to(at::kLong), optional_view(weight), reduction, ignoreIndex, view(totalWeight)));
  }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss2dBackward)

npuError npunnMultiMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultiMarginLoss", "target", target); e != NPU_SUCCESS) return e;
  if (!p) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLoss: null p");
  if (!margin) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLoss: null margin");
  return prepare("npunnMultiMarginLoss", {self, target, weight, out}, [self = desc(self), target = desc(target), p = *p, margin = *margin, weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::multi_margin_loss(view(self), view(target).to(at::kLong), aten_scalar(p), aten_scalar(margin), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MultiMarginLoss)

npuError npunnMultiMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultiMarginLossBackward", "target", target); e != NPU_SUCCESS) return e;
  if (!p) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLossBackward: null p");
  if (!margin) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLossBackward: null margin");
  return prepare("npunnMultiMarginLossBackward", {gradOutput, self, target, weight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), p = *p, margin = *margin, weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::multi_margin_loss_backward(view(gradOutput), view(self), view(target).to(at::kLong), aten_scalar(p), aten_scalar(margin), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MultiMarginLossBackward)

npuError npunnMultilabelMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, npuTensor* isTarget, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultilabelMarginLoss", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnMultilabelMarginLoss", {self, target, out, isTarget}, [self = desc(self), target = desc(target), reduction, out = desc(out), isTarget = desc(isTarget)] {
    auto [loss, marks] = at::multilabel_margin_loss_forward(view(self), view(target).to(at::kLong), reduction);
    alu::store(view(out), loss);
    alu::store(view(isTarget), marks);
  }, workspace_size, executor);
}
NPUNN_RUN(MultilabelMarginLoss)

npuError npunnMultilabelMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, const npuTensor* isTarget, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultilabelMarginLossBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnMultilabelMarginLossBackward", {gradOutput, self, target, isTarget, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), reduction, isTarget = desc(isTarget), out = desc(out)] {
    alu::store(view(out), at::multilabel_margin_loss_backward(view(gradOutput), view(self), view(target).to(at::kLong), reduction, view(isTarget)));
  }, workspace_size, executor);
}
NPUNN_RUN(MultilabelMarginLossBackward)

npuError npunnAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool3d", {self, out}, [self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), ceilMode, countIncludePad, divisorOverride, out = desc(out)] {
    alu::store(view(out), at::avg_pool3d(view(self), kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride ? std::optional<int64_t>(divisorOverride) : std::nullopt));
  }, workspace_size, executor);
}
NPUNN_RUN(AvgPool3d)

npuError npunnAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAvgPool3dBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), ceilMode, countIncludePad, divisorOverride, out = desc(out)] {
    alu::store(view(out), at::avg_pool3d_backward(view(gradOutput), view(self), kernelSize, stride, padding, ceilMode, countIncludePad, divisorOverride ? std::optional<int64_t>(divisorOverride) : std::nullopt));
  }, workspace_size, executor);
}
NPUNN_RUN(AvgPool3dBackward)

npuError npunnMaxPool3dWithIndicesGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnMaxPool3dWithIndices", {self, out, indices}, [self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), dilation = ints(dilation), ceilMode, out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::max_pool3d_with_indices(view(self), kernelSize, stride, padding, dilation, ceilMode);
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(MaxPool3dWithIndices)

npuError npunnMaxPool3dWithIndicesBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* stride, const npuIntArray* padding, const npuIntArray* dilation, bool ceilMode, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMaxPool3dWithIndicesBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnMaxPool3dWithIndicesBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), stride = ints(stride), padding = ints(padding), dilation = ints(dilation), ceilMode, indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::max_pool3d_with_indices_backward(view(gradOutput), view(self), kernelSize, stride, padding, dilation, ceilMode, view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(MaxPool3dWithIndicesBackward)

npuError npunnAdaptiveMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveMaxPool2d", {self, out, indices}, [self = desc(self), outputSize = ints(outputSize), out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::adaptive_max_pool2d(view(self), outputSize);
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool2d)

npuError npunnAdaptiveMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnAdaptiveMaxPool2dBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnAdaptiveMaxPool2dBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::adaptive_max_pool2d_backward(view(gradOutput), view(self), view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool2dBackward)

npuError npunnAdaptiveMaxPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveMaxPool3d", {self, out, indices}, [self = desc(self), outputSize = ints(outputSize), out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::adaptive_max_pool3d(view(self), outputSize);
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool3d)

npuError npunnAdaptiveMaxPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnAdaptiveMaxPool3dBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnAdaptiveMaxPool3dBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::adaptive_max_pool3d_backward(view(gradOutput), view(self), view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveMaxPool3dBackward)

npuError npunnAdaptiveAvgPool3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* outputSize, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool3d", {self, out}, [self = desc(self), outputSize = ints(outputSize), out = desc(out)] {
    alu::store(view(out), at::_adaptive_avg_pool3d(view(self), outputSize));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool3d)

npuError npunnAdaptiveAvgPool3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnAdaptiveAvgPool3dBackward", {gradOutput, self, out}, [gradOutput = desc(gradOutput), self = desc(self), out = desc(out)] {
    alu::store(view(out), at::_adaptive_avg_pool3d_backward(view(gradOutput), view(self)));
  }, workspace_size, executor);
}
NPUNN_RUN(AdaptiveAvgPool3dBackward)

npuError npunnFractionalMaxPool2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* randomSamples, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnFractionalMaxPool2d", {self, randomSamples, out, indices}, [self = desc(self), kernelSize = ints(kernelSize), outputSize = ints(outputSize), randomSamples = desc(randomSamples), out = desc(out), indices = desc(indices)] {
    auto [values, where] = at::fractional_max_pool2d(view(self), kernelSize, outputSize, view(randomSamples));
    alu::store(view(out), values);
    alu::store(view(indices), where);
  }, workspace_size, executor);
}
NPUNN_RUN(FractionalMaxPool2d)

npuError npunnFractionalMaxPool2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* kernelSize, const npuIntArray* outputSize, const npuTensor* indices, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnFractionalMaxPool2dBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnFractionalMaxPool2dBackward", {gradOutput, self, indices, out}, [gradOutput = desc(gradOutput), self = desc(self), kernelSize = ints(kernelSize), outputSize = ints(outputSize), indices = desc(indices), out = desc(out)] {
    alu::store(view(out), at::fractional_max_pool2d_backward(view(gradOutput), view(self), kernelSize, outputSize, view(indices).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(FractionalMaxPool2dBackward)

// Padding: one operator per mode and rank, as ATen has.
#define NPU_PAD(NAME, ATEN)                                                                                      \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out,       \
                                         NPUNN_QUERY_ARGS) {                                                     \
    return prepare("npunn" #NAME, {self, out}, [x = desc(self), p = ints(padding), o = desc(out)] {               \
      alu::store(view(o), ATEN(view(x), p));                                                                     \
    }, workspace_size, executor);                                                                                \
  }                                                                                                              \
  NPUNN_RUN(NAME)                                                                                                \
  npuError npunn##NAME##BackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self,              \
                                                 const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS) { \
    return prepare("npunn" #NAME "Backward", {gradOutput, self, out},                                            \
                   [g = desc(gradOutput), x = desc(self), p = ints(padding), o = desc(out)] {                    \
                     alu::store(view(o), ATEN##_backward(view(g), view(x), p));                                  \
                   }, workspace_size, executor);                                                                 \
  }                                                                                                              \
  NPUNN_RUN(NAME##Backward)

NPU_PAD(ReflectionPad1d, at::reflection_pad1d)
NPU_PAD(ReflectionPad2d, at::reflection_pad2d)
NPU_PAD(ReflectionPad3d, at::reflection_pad3d)
NPU_PAD(ReplicationPad1d, at::replication_pad1d)
NPU_PAD(ReplicationPad2d, at::replication_pad2d)
NPU_PAD(ReplicationPad3d, at::replication_pad3d)

npuError npunnGroupNormGetWorkspaceSize(const npuTensor* self, const npuTensor* gamma, const npuTensor* beta, int64_t n, int64_t c, int64_t hxw, int64_t group, double eps, npuTensor* out, npuTensor* meanOut, npuTensor* rstdOut, NPUNN_QUERY_ARGS) {
  return prepare("npunnGroupNorm", {self, gamma, beta, out, meanOut, rstdOut}, [self = desc(self), gamma = desc(gamma), beta = desc(beta), n, c, hxw, group, eps, out = desc(out), meanOut = desc(meanOut), rstdOut = desc(rstdOut)] {
    auto [y, mu, rs] = at::native_group_norm(view(self), optional_view(gamma), optional_view(beta), n, c, hxw, group, eps);
    alu::store(view(out), y);
    alu::store(view(meanOut), mu);
    alu::store(view(rstdOut), rs);
  }, workspace_size, executor);
}
NPUNN_RUN(GroupNorm)

npuError npunnGroupNormBackwardGetWorkspaceSize(const npuTensor* gradOut, const npuTensor* self, const npuTensor* mean, const npuTensor* rstd, const npuTensor* gamma, int64_t n, int64_t c, int64_t hxw, int64_t group, npuTensor* gradInput, npuTensor* gradGamma, npuTensor* gradBeta, NPUNN_QUERY_ARGS) {
  return prepare("npunnGroupNormBackward", {gradOut, self, mean, rstd, gamma, gradInput, gradGamma, gradBeta}, [gradOut = desc(gradOut), self = desc(self), mean = desc(mean), rstd = desc(rstd), gamma = desc(gamma), n, c, hxw, group, gradInput = desc(gradInput), gradGamma = desc(gradGamma), gradBeta = desc(gradBeta)] {
    auto [dx, dg, db] = at::native_group_norm_backward(view(gradOut), view(self), view(mean), view(rstd), optional_view(gamma), n, c, hxw, group, {gradInput.present, gradGamma.present, gradBeta.present});
    if (gradInput.present) alu::store(view(gradInput), dx);
    if (gradGamma.present) alu::store(view(gradGamma), dg);
    if (gradBeta.present) alu::store(view(gradBeta), db);
  }, workspace_size, executor);
}
NPUNN_RUN(GroupNormBackward)

// ---- more elementwise, reductions, gather/scatter -------------------------

NPU_UNARY(Tan, at::tan_out)
NPU_UNARY(Asin, at::asin_out)
NPU_UNARY(Acos, at::acos_out)
NPU_UNARY(Atan, at::atan_out)
NPU_UNARY(Sinh, at::sinh_out)
NPU_UNARY(Cosh, at::cosh_out)
NPU_UNARY(Asinh, at::asinh_out)
NPU_UNARY(Acosh, at::acosh_out)
NPU_UNARY(Atanh, at::atanh_out)
NPU_UNARY(Exp2, at::exp2_out)
NPU_UNARY(Log10, at::log10_out)
NPU_UNARY(Frac, at::frac_out)
NPU_UNARY(Erfc, at::erfc_out)
NPU_UNARY(Erfinv, at::erfinv_out)
NPU_UNARY(Lgamma, at::lgamma_out)
NPU_UNARY(Digamma, at::digamma_out)
NPU_UNARY(Sinc, at::sinc_out)
NPU_UNARY(BitwiseNot, at::bitwise_not_out)
NPU_UNARY(Signbit, at::signbit_out)
NPU_UNARY(IsPosInf, at::isposinf_out)

NPU_BINARY(BitwiseAndTensor, at::bitwise_and_out)
NPU_BINARY(BitwiseOrTensor, at::bitwise_or_out)
NPU_BINARY(BitwiseXorTensor, at::bitwise_xor_out)
NPU_BINARY(LogicalAnd, at::logical_and_out)
NPU_BINARY(LogicalOr, at::logical_or_out)
NPU_BINARY(LogicalXor, at::logical_xor_out)
NPU_BINARY(Atan2, at::atan2_out)
NPU_BINARY(FmodTensor, at::fmod_out)
NPU_BINARY(RemainderTensorTensor, at::remainder_out)
NPU_BINARY(Hypot, at::hypot_out)
NPU_BINARY(Copysign, at::copysign_out)
NPU_BINARY(XLogYTensor, at::xlogy_out)
NPU_BINARY(LogAddExp, at::logaddexp_out)
NPU_BINARY(LogAddExp2, at::logaddexp2_out)
NPU_BINARY(Fmax, at::fmax_out)
NPU_BINARY(Fmin, at::fmin_out)

NPU_BINARY_SCALAR(BitwiseAndScalar, at::bitwise_and_out)
NPU_BINARY_SCALAR(BitwiseOrScalar, at::bitwise_or_out)
NPU_BINARY_SCALAR(BitwiseXorScalar, at::bitwise_xor_out)
NPU_BINARY_SCALAR(FmodScalar, at::fmod_out)
NPU_BINARY_SCALAR(RemainderTensorScalar, at::remainder_out)

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
  return prepare("npunnMaxDim", {self, out, indices}, [self = desc(self), dim, keepdim, out = desc(out), indices = desc(indices)] {
    auto [value, index] = at::max(view(self), dim, keepdim);
    alu::store(view(out), value);
    alu::store(view(indices), index);
  }, workspace_size, executor);
}
NPUNN_RUN(MaxDim)

npuError npunnMinDimGetWorkspaceSize(const npuTensor* self, int64_t dim, bool keepdim, npuTensor* out, npuTensor* indices, NPUNN_QUERY_ARGS) {
  return prepare("npunnMinDim", {self, out, indices}, [self = desc(self), dim, keepdim, out = desc(out), indices = desc(indices)] {
    auto [value, index] = at::min(view(self), dim, keepdim);
    alu::store(view(out), value);
    alu::store(view(indices), index);
  }, workspace_size, executor);
}
NPUNN_RUN(MinDim)

npuError npunnNormGetWorkspaceSize(const npuTensor* self, const npuScalar* p, const npuIntArray* dim, bool keepdim, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnNorm", {self, out}, [self = desc(self), p = p ? std::optional<npuScalar>(*p) : std::nullopt, dim = optional_ints(dim), keepdim, out = desc(out)] {
    alu::store(view(out), at::linalg_vector_norm(view(self), p ? aten_scalar(*p) : at::Scalar(2.0), at::OptionalIntArrayRef(dim), keepdim, view(out).scalar_type()));
  }, workspace_size, executor);
}
NPUNN_RUN(Norm)

npuError npunnGatherGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnGather", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnGather", {self, index, out}, [self = desc(self), dim, index = desc(index), out = desc(out)] {
    alu::store(view(out), at::gather(view(self), dim, view(index).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(Gather)

npuError npunnScatterGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnScatter", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnScatter", {self, index, src, out}, [self = desc(self), dim, index = desc(index), src = desc(src), out = desc(out)] {
    alu::store(view(out), at::scatter(view(self), dim, view(index).to(at::kLong), view(src)));
  }, workspace_size, executor);
}
NPUNN_RUN(Scatter)

npuError npunnScatterValueGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnScatterValue", "index", index); e != NPU_SUCCESS) return e;
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnScatterValue: null value");
  return prepare("npunnScatterValue", {self, index, out}, [self = desc(self), dim, index = desc(index), value = *value, out = desc(out)] {
    alu::store(view(out), at::scatter(view(self), dim, view(index).to(at::kLong), aten_scalar(value)));
  }, workspace_size, executor);
}
NPUNN_RUN(ScatterValue)

npuError npunnScatterAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnScatterAdd", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnScatterAdd", {self, index, src, out}, [self = desc(self), dim, index = desc(index), src = desc(src), out = desc(out)] {
    alu::store(view(out), at::scatter_add(view(self), dim, view(index).to(at::kLong), view(src)));
  }, workspace_size, executor);
}
NPUNN_RUN(ScatterAdd)

npuError npunnIndexAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* source, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnIndexAdd", "index", index); e != NPU_SUCCESS) return e;
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnIndexAdd: null alpha");
  return prepare("npunnIndexAdd", {self, index, source, out}, [self = desc(self), dim, index = desc(index), source = desc(source), alpha = *alpha, out = desc(out)] {
    alu::store(view(out), at::index_add(view(self), dim, view(index).to(at::kLong), view(source), aten_scalar(alpha)));
  }, workspace_size, executor);
}
NPUNN_RUN(IndexAdd)

}  // extern "C"

// ---- detection ops: torchvision's CPU kernels on the ALU ----------------------

namespace {
namespace vision = torch_fl::sim::alu::torchvision;

npuError require_dtype(const char* op, const char* what, const npuTensor* t, npuDataType dtype) {
  if (t && t->dtype != dtype) {
    return fail(NPU_ERROR_NOT_SUPPORTED, std::string(op) + ": " + what + " must be " +
                                             c10::toString(aten_dtype(dtype)) + ", got " +
                                             c10::toString(aten_dtype(t->dtype)));
  }
  return NPU_SUCCESS;
}
}  // namespace

extern "C" {

npuError npunnNmsGetWorkspaceSize(const npuTensor* boxes, const npuTensor* scores, double iou_threshold,
                                  npuTensor* keep, npuTensor* kept, NPUNN_QUERY_ARGS) {
  if (npuError e = require_dtype("npunnNms", "keep", keep, NPU_INT64); e != NPU_SUCCESS) return e;
  if (npuError e = require_dtype("npunnNms", "kept", kept, NPU_INT64); e != NPU_SUCCESS) return e;
  return prepare("npunnNms", {boxes, scores, keep, kept},
                 [b = desc(boxes), s = desc(scores), iou_threshold, k = desc(keep), n = desc(kept)] {
                   vision::nms(view(b), view(s), iou_threshold, view(k), view(n));
                 }, workspace_size, executor);
}
NPUNN_RUN(Nms)

npuError npunnRoiAlignGetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale,
                                       int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                                       bool aligned, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnRoiAlign", {input, rois, out},
                 [x = desc(input), r = desc(rois), spatial_scale, pooled_height, pooled_width, sampling_ratio,
                  aligned, o = desc(out)] {
                   alu::store(view(o), vision::roi_align(view(x), view(r), spatial_scale, pooled_height,
                                                         pooled_width, sampling_ratio, aligned));
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiAlign)

npuError npunnRoiAlignBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* rois, double spatial_scale,
                                               int64_t pooled_height, int64_t pooled_width, int64_t sampling_ratio,
                                               bool aligned, npuTensor* grad_input, NPUNN_QUERY_ARGS) {
  return prepare("npunnRoiAlignBackward", {grad, rois, grad_input},
                 [g = desc(grad), r = desc(rois), spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned,
                  gi = desc(grad_input)] {
                   const at::Tensor out = view(gi);
                   alu::store(out, vision::roi_align_backward(view(g), view(r), spatial_scale, pooled_height,
                                                              pooled_width, out.size(0), out.size(1), out.size(2),
                                                              out.size(3), sampling_ratio, aligned));
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiAlignBackward)

npuError npunnRoiPoolGetWorkspaceSize(const npuTensor* input, const npuTensor* rois, double spatial_scale,
                                      int64_t pooled_height, int64_t pooled_width, npuTensor* out, npuTensor* argmax,
                                      NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnRoiPool", "argmax", argmax); e != NPU_SUCCESS) return e;
  return prepare("npunnRoiPool", {input, rois, out, argmax},
                 [x = desc(input), r = desc(rois), spatial_scale, pooled_height, pooled_width, o = desc(out),
                  a = desc(argmax)] {
                   auto [values, where] = vision::roi_pool(view(x), view(r), spatial_scale, pooled_height, pooled_width);
                   alu::store(view(o), values);
                   alu::store(view(a), where);
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiPool)

npuError npunnRoiPoolBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* rois, const npuTensor* argmax,
                                              double spatial_scale, int64_t pooled_height, int64_t pooled_width,
                                              npuTensor* grad_input, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnRoiPoolBackward", "argmax", argmax); e != NPU_SUCCESS) return e;
  return prepare("npunnRoiPoolBackward", {grad, rois, argmax, grad_input},
                 [g = desc(grad), r = desc(rois), a = desc(argmax), spatial_scale, pooled_height, pooled_width,
                  gi = desc(grad_input)] {
                   const at::Tensor out = view(gi);
                   alu::store(out, vision::roi_pool_backward(view(g), view(r), view(a), spatial_scale, pooled_height,
                                                             pooled_width, out.size(0), out.size(1), out.size(2),
                                                             out.size(3)));
                 }, workspace_size, executor);
}
NPUNN_RUN(RoiPoolBackward)

npuError npunnDeformConv2dGetWorkspaceSize(const npuTensor* input, const npuTensor* weight, const npuTensor* offset,
                                           const npuTensor* mask, const npuTensor* bias, int64_t stride_h,
                                           int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
                                           int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
                                           npuTensor* out, NPUNN_QUERY_ARGS) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return prepare("npunnDeformConv2d", {input, weight, offset, mask, bias, out},
                 [x = desc(input), w = desc(weight), off = desc(offset), m = desc(mask), b = desc(bias), params,
                  o = desc(out)] {
                   alu::store(view(o), vision::deform_conv2d(view(x), view(w), view(off), view(m), view(b), params));
                 }, workspace_size, executor);
}
NPUNN_RUN(DeformConv2d)

npuError npunnDeformConv2dBackwardGetWorkspaceSize(
    const npuTensor* grad, const npuTensor* input, const npuTensor* weight, const npuTensor* offset,
    const npuTensor* mask, const npuTensor* bias, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
    int64_t dilation_h, int64_t dilation_w, int64_t groups, int64_t offset_groups, bool use_mask,
    npuTensor* grad_input, npuTensor* grad_weight, npuTensor* grad_offset, npuTensor* grad_mask, npuTensor* grad_bias,
    NPUNN_QUERY_ARGS) {
  const vision::DeformConv2dParams params{stride_h,   stride_w, pad_h,         pad_w,   dilation_h,
                                          dilation_w, groups,   offset_groups, use_mask};
  return prepare("npunnDeformConv2dBackward",
                 {grad, input, weight, offset, mask, bias, grad_input, grad_weight, grad_offset, grad_mask, grad_bias},
                 [g = desc(grad), x = desc(input), w = desc(weight), off = desc(offset), m = desc(mask), b = desc(bias),
                  params, gi = desc(grad_input), gw = desc(grad_weight), go = desc(grad_offset), gm = desc(grad_mask),
                  gb = desc(grad_bias)] {
                   auto [dx, dw, doff, dm, db] =
                       vision::deform_conv2d_backward(view(g), view(x), view(w), view(off), view(m), view(b), params);
                   alu::store(view(gi), dx);
                   alu::store(view(gw), dw);
                   alu::store(view(go), doff);
                   alu::store(view(gm), dm);
                   alu::store(view(gb), db);
                 }, workspace_size, executor);
}
NPUNN_RUN(DeformConv2dBackward)

}  // extern "C"
