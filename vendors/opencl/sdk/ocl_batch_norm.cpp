// Batch normalization forward and backward (kernels/ocl_batch_norm.cl): one
// work-item per channel, the per-channel vectors (weight, bias, running and
// saved statistics, the parameters' gradients) each in its own dtype.
#include <initializer_list>
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

namespace {

enum Flag : cl_int {
  kTraining = 1, kWeight = 2, kBias = 4, kRunning = 8, kGradInput = 16, kGradWeight = 32, kGradBias = 64
};

// kernels/ocl_batch_norm.cl's Vectors: offset and stride of each per-channel vector.
struct Vectors {
  cl_long offset[8];
  cl_long stride[8];
};
enum Vector { kWeightVector, kBiasVector, kRunningMean, kRunningVar, kSaveMean, kSaveInvstd, kGradWeightVector,
              kGradBiasVector };

bool present(const oclopsTensor_t* t) { return t && t->buffer; }

// Channel c of the input-shaped operands (kept) and the batch and spatial
// positions within it (reduced), for operands 0 .. tensors.size() - 1.
bool channel_geometry(std::initializer_list<const oclopsTensor_t*> tensors, Geometry* kept, Geometry* reduced) {
  const oclopsTensor_t& first = **tensors.begin();
  if (first.dim < 2) return false;
  const int64_t channels = first.shape[1];
  int64_t sizes[OCLOPS_MAX_DIMS];
  int32_t count = 0;
  for (int32_t d = 0; d < first.dim; ++d) {
    if (d != 1) sizes[count++] = first.shape[d];
  }
  *kept = make_geometry(1, &channels);
  *reduced = make_geometry(count, sizes);
  int k = 0;
  for (const oclopsTensor_t* t : tensors) {
    if (t->dim != first.dim) return false;
    int64_t strides[OCLOPS_MAX_DIMS];
    for (int32_t d = 0, r = 0; d < t->dim; ++d) {
      if (t->shape[d] != first.shape[d]) return false;
      if (d != 1) strides[r++] = t->stride[d];
    }
    set_operand(kept, k, &t->stride[1], t->offset);
    set_operand(reduced, k, strides, 0);
    ++k;
  }
  return true;
}

// The Vectors of the per-channel tensors (absent ones: offset 0, never read).
Vectors vectors_of(std::initializer_list<const oclopsTensor_t*> tensors) {
  Vectors v{};
  int k = 0;
  for (const oclopsTensor_t* t : tensors) {
    if (present(t)) {
      v.offset[k] = t->offset;
      v.stride[k] = t->dim == 0 ? 0 : t->stride[0];
    }
    ++k;
  }
  return v;
}

// The kernels' source: W, and element macros for each role (an absent tensor
// takes the input's dtype: its macros exist but are never used).
std::string batch_norm_source(const std::string& compute, oclopsDtype_t fallback,
                              std::initializer_list<std::pair<const char*, const oclopsTensor_t*>> roles) {
  std::string macros = "#define W " + compute + "\n";
  bool fp64 = compute == "double";
  for (const auto& [name, tensor] : roles) {
    const oclopsDtype_t type = present(tensor) ? tensor->dtype : fallback;
    fp64 = fp64 || type == ElementType::kF64;
    macros += element_macros(name, type, compute);
  }
  return (fp64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "") + macros + kIndexingSource +
         kBatchNormSource;
}

template <typename Value>
Launch& push_floating(Launch& launch, const std::string& compute, Value value) {
  return compute == "double" ? launch.value(static_cast<cl_double>(value)) : launch.value(static_cast<cl_float>(value));
}

std::string compute_for(oclopsStream_t stream, oclopsDtype_t type) {
  std::string compute = compute_type({type}, device_of(stream).fp64);
  // statistics over many elements: in double where the device has it, as the sums are
  if (compute == "float" && device_of(stream).fp64) compute = "double";
  return is_floating(type) ? compute : "";
}

}  // namespace

oclopsStatus_t oclopsBatchNorm(oclopsStream_t stream, const oclopsTensor_t* input, const oclopsTensor_t* weight,
                               const oclopsTensor_t* bias, const oclopsTensor_t* running_mean,
                               const oclopsTensor_t* running_var, bool training, double momentum, double eps,
                               const oclopsTensor_t* out, const oclopsTensor_t* save_mean,
                               const oclopsTensor_t* save_invstd) {
  if (!input || !out) return invalid("oclopsBatchNorm: missing operand");
  const bool running = present(running_mean) && present(running_var);
  if (!training && !running) return invalid("oclopsBatchNorm: evaluation needs the running statistics");
  if (training && (!present(save_mean) || !present(save_invstd)) && numel(*input) > 0) {
    return invalid("oclopsBatchNorm: training needs save_mean and save_invstd");
  }
  Geometry kept, reduced;
  if (!channel_geometry({out, input}, &kept, &reduced)) {
    return invalid("oclopsBatchNorm: input and out must be N x C x ... of one shape");
  }
  if (kept.numel == 0 || (reduced.numel == 0 && !training)) return OCLOPS_SUCCESS;
  const std::string compute = compute_for(stream, input->dtype);
  if (compute.empty()) return not_supported(std::string("oclopsBatchNorm: dtype ") + element_name(input->dtype));
  const std::string source = batch_norm_source(
      compute, input->dtype,
      {{"OUT", out}, {"A", input}, {"B", input},  // B: the backward kernel's, which the program holds too
       {"P", present(weight) ? weight : bias}, {"R", running_mean}, {"S", save_mean}});
  const cl_int flags = (training ? kTraining : 0) | (present(weight) ? kWeight : 0) | (present(bias) ? kBias : 0) |
                       (running ? kRunning : 0);
  Launch launch(*stream, source, "", "batch_norm");
  launch.value(kept).value(reduced)
      .value(vectors_of({weight, bias, running_mean, running_var, save_mean, save_invstd, nullptr, nullptr}))
      .buffer(out->buffer).buffer(input->buffer)
      .buffer(present(weight) ? weight->buffer : nullptr).buffer(present(bias) ? bias->buffer : nullptr)
      .buffer(running ? running_mean->buffer : nullptr).buffer(running ? running_var->buffer : nullptr)
      .buffer(training ? save_mean->buffer : nullptr).buffer(training ? save_invstd->buffer : nullptr);
  push_floating(push_floating(launch, compute, momentum), compute, eps).value(flags);
  return from_driver(launch.run(static_cast<uint64_t>(kept.numel)));
}

oclopsStatus_t oclopsBatchNormBackward(oclopsStream_t stream, const oclopsTensor_t* grad_out,
                                       const oclopsTensor_t* input, const oclopsTensor_t* weight,
                                       const oclopsTensor_t* running_mean, const oclopsTensor_t* running_var,
                                       const oclopsTensor_t* save_mean, const oclopsTensor_t* save_invstd, bool train,
                                       double eps, const oclopsTensor_t* grad_input, const oclopsTensor_t* grad_weight,
                                       const oclopsTensor_t* grad_bias) {
  if (!grad_out || !input) return invalid("oclopsBatchNormBackward: missing operand");
  if (train ? !(present(save_mean) && present(save_invstd)) : !(present(running_mean) && present(running_var))) {
    if (numel(*input) > 0) return invalid("oclopsBatchNormBackward: the statistics the forward used are missing");
  }
  const bool want_input = present(grad_input);
  if (numel(*input) == 0) {  // no elements: the parameters' gradients are 0, the input's empty
    for (const oclopsTensor_t* grad : {grad_weight, grad_bias}) {
      if (!present(grad)) continue;
      if (const oclopsStatus_t status = oclopsFill(stream, grad, oclopsScalar_t{0.0, 0})) return status;
    }
    return OCLOPS_SUCCESS;
  }
  Geometry kept, reduced;
  if (!channel_geometry({want_input ? grad_input : input, input, grad_out}, &kept, &reduced)) {
    return invalid("oclopsBatchNormBackward: grad_out, input and grad_input must be N x C x ... of one shape");
  }
  if (kept.numel == 0) return OCLOPS_SUCCESS;
  const std::string compute = compute_for(stream, input->dtype);
  if (compute.empty()) return not_supported(std::string("oclopsBatchNormBackward: dtype ") + element_name(input->dtype));
  const std::string source = batch_norm_source(
      compute, input->dtype,
      {{"OUT", want_input ? grad_input : input}, {"A", input}, {"B", grad_out},
       {"P", present(weight) ? weight : present(grad_weight) ? grad_weight : grad_bias}, {"R", running_mean},
       {"S", save_mean}});
  const cl_int flags = (train ? kTraining : 0) | (present(weight) ? kWeight : 0) | (want_input ? kGradInput : 0) |
                       (present(grad_weight) ? kGradWeight : 0) | (present(grad_bias) ? kGradBias : 0);
  Launch launch(*stream, source, "", "batch_norm_backward");
  launch.value(kept).value(reduced)
      .value(vectors_of({weight, nullptr, running_mean, running_var, save_mean, save_invstd, grad_weight, grad_bias}))
      .buffer(want_input ? grad_input->buffer : nullptr).buffer(input->buffer).buffer(grad_out->buffer)
      .buffer(present(weight) ? weight->buffer : nullptr)
      .buffer(present(running_mean) ? running_mean->buffer : nullptr)
      .buffer(present(running_var) ? running_var->buffer : nullptr)
      .buffer(present(save_mean) ? save_mean->buffer : nullptr)
      .buffer(present(save_invstd) ? save_invstd->buffer : nullptr)
      .buffer(present(grad_weight) ? grad_weight->buffer : nullptr)
      .buffer(present(grad_bias) ? grad_bias->buffer : nullptr);
  push_floating(launch, compute, eps).value(flags);
  return from_driver(launch.run(static_cast<uint64_t>(kept.numel)));
}
