// Losses and normalisation (kernels/ocl_nn.cl) on contiguous operands.
#include <string>
#include <utility>
#include <vector>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

namespace torch_fl::ocl::ops {
namespace {

// Each named operand's element macros (an absent one takes the first's dtype),
// computed in double where the device has it (or float), with the kernel's name.
oclopsStatus_t nn_source(const char* fn, oclopsStream_t stream, const char* kernel,
                         std::vector<std::pair<const char*, const oclopsTensor_t*>> operands,
                         const oclopsTensor_t* index, std::string* compute, std::string* source) {
  const Device& device = device_of(stream);
  const ElementType first = operands.front().second->dtype;
  auto dtype = [&](size_t k) { return k < operands.size() && operands[k].second ? operands[k].second->dtype : first; };
  *compute = compute_type({dtype(0), dtype(1), dtype(2), dtype(3), dtype(4)}, device.fp64);
  if (compute->empty() || *compute == "long") return not_supported(std::string(fn) + ": floating-point dtypes only");
  if (*compute == "float" && device.fp64) *compute = "double";
  *source = fp64_pragma(*compute, {dtype(0), dtype(1), dtype(2), dtype(3), dtype(4)}) + "#define W " + *compute + "\n";
  for (const auto& [name, tensor] : operands) *source += element_macros(name, tensor ? tensor->dtype : first, *compute);
  if (index) *source += element_macros("I", index->dtype, "long");
  *source += std::string("#define ") + kernel + "\n" + kIndexingSource + kNnSource;
  return OCLOPS_SUCCESS;
}

bool present(const oclopsTensor_t* tensor) { return tensor && tensor->buffer; }

// The nll_loss kernels' program: `operands` (the result's first), then what both
// kernels read besides: the class weights (B; absent, each class weighs 1), the
// total weight (C) and the target (I).
oclopsStatus_t nll_source(const char* fn, oclopsStream_t stream, const char* kernel,
                          std::vector<std::pair<const char*, const oclopsTensor_t*>> operands,
                          const oclopsTensor_t* weight, const oclopsTensor_t* total_weight,
                          const oclopsTensor_t* target, std::string* compute, std::string* source) {
  operands.push_back({"B", present(weight) ? weight : nullptr});
  operands.push_back({"C", total_weight});
  return nn_source(fn, stream, kernel, std::move(operands), target, compute, source);
}

// Whether the kernels may index it as a dense row-major array (absent ones may).
bool dense(const oclopsTensor_t* tensor) {
  if (!present(tensor)) return true;
  int64_t expected = 1;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    if (tensor->shape[d] != 1 && tensor->stride[d] != expected) return false;
    expected *= tensor->shape[d];
  }
  return true;
}

oclopsStatus_t check_dense(const char* fn, std::initializer_list<const oclopsTensor_t*> tensors) {
  for (const oclopsTensor_t* tensor : tensors) {
    if (!dense(tensor)) return not_supported(std::string(fn) + ": operands must be contiguous");
  }
  return OCLOPS_SUCCESS;
}

// A buffer and its offset as two kernel arguments; an absent operand passes `stand_in`'s.
Launch& operand(Launch& launch, const oclopsTensor_t* tensor, const oclopsTensor_t& stand_in) {
  const oclopsTensor_t& t = present(tensor) ? *tensor : stand_in;
  return launch.buffer(t.buffer).value(static_cast<cl_long>(t.offset));
}

Launch& push_w(Launch& launch, const std::string& compute, double value) {
  if (compute == "double") return launch.value(static_cast<cl_double>(value));
  return launch.value(static_cast<cl_float>(value));
}

// Rows and columns of x over its last `normalized` dims.
bool rows_and_columns(const oclopsTensor_t& x, int32_t normalized, int64_t* rows, int64_t* cols) {
  if (normalized < 0 || normalized > x.dim) return false;
  *rows = 1;
  *cols = 1;
  for (int32_t d = 0; d < x.dim; ++d) (d < x.dim - normalized ? *rows : *cols) *= x.shape[d];
  return true;
}

}  // namespace
}  // namespace torch_fl::ocl::ops

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsNllLoss(oclopsStream_t stream, const oclopsTensor_t* self, const oclopsTensor_t* target,
                             const oclopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                             const oclopsTensor_t* output, const oclopsTensor_t* total_weight) {
  if (!self || !target || !output || !total_weight || self->dim < 1 || self->dim > 2 || reduction < 0 || reduction > 2) {
    return invalid("oclopsNllLoss: self (N, C) or (C), target, output and total_weight are needed");
  }
  if (oclopsStatus_t s = check_dense("oclopsNllLoss", {self, target, weight})) return s;
  const int64_t n = self->dim == 2 ? self->shape[0] : 1, c = self->shape[self->dim - 1];
  std::string compute, source;
  if (oclopsStatus_t s = nll_source("oclopsNllLoss", stream, "NLL_LOSS", {{"A", self}, {"OUT", output}}, weight,
                                    total_weight, target, &compute, &source)) {
    return s;
  }
  const bool per_sample = reduction == 0 && self->dim == 2;
  if (per_sample && n == 0) return OCLOPS_SUCCESS;
  if (n > 0 && !present(target)) return invalid("oclopsNllLoss: no target");
  Launch launch(*stream, source, "", "nll_loss");
  launch.value(static_cast<cl_long>(n)).value(static_cast<cl_long>(c)).value(static_cast<cl_int>(reduction));
  launch.value(static_cast<cl_int>(per_sample ? 1 : 0));
  launch.value(static_cast<cl_long>(ignore_index)).value(static_cast<cl_int>(present(weight) ? 1 : 0));
  operand(operand(launch, output, *output), total_weight, *total_weight);
  operand(operand(operand(launch, self, *output), target, *output), weight, *output);
  launch.fault_record("oclopsNllLoss");
  return from_driver(launch.run(static_cast<uint64_t>(per_sample ? n : 1)));
}

oclopsStatus_t oclopsNllLossBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                     const oclopsTensor_t* self, const oclopsTensor_t* target,
                                     const oclopsTensor_t* weight, int64_t reduction, int64_t ignore_index,
                                     const oclopsTensor_t* total_weight, const oclopsTensor_t* grad_input) {
  if (!grad_output || !self || !target || !total_weight || !grad_input || self->dim < 1 || self->dim > 2) {
    return invalid("oclopsNllLossBackward: a missing operand");
  }
  if (oclopsStatus_t s = check_dense("oclopsNllLossBackward", {target, weight, grad_input})) return s;
  const int64_t n = self->dim == 2 ? self->shape[0] : 1, c = self->shape[self->dim - 1];
  if (n * c == 0) return OCLOPS_SUCCESS;
  std::string compute, source;
  if (oclopsStatus_t s = nll_source("oclopsNllLossBackward", stream, "NLL_LOSS_BACKWARD",
                                    {{"OUT", grad_input}, {"G", grad_output}}, weight, total_weight, target, &compute,
                                    &source)) {
    return s;
  }
  const int64_t grad_stride = grad_output->dim == 1 ? grad_output->stride[0] : 0;
  Launch launch(*stream, source, "", "nll_loss_backward");
  launch.value(static_cast<cl_long>(n)).value(static_cast<cl_long>(c)).value(static_cast<cl_int>(reduction));
  launch.value(static_cast<cl_long>(ignore_index)).value(static_cast<cl_int>(present(weight) ? 1 : 0));
  operand(operand(launch, grad_input, *grad_input), grad_output, *grad_input).value(static_cast<cl_long>(grad_stride));
  operand(operand(operand(launch, total_weight, *grad_input), target, *grad_input), weight, *grad_input);
  launch.fault_record("oclopsNllLossBackward");
  return from_driver(launch.run(static_cast<uint64_t>(n * c)));
}

oclopsStatus_t oclopsLayerNorm(oclopsStream_t stream, const oclopsTensor_t* x, int32_t normalized_dims,
                               const oclopsTensor_t* weight, const oclopsTensor_t* bias, double eps,
                               const oclopsTensor_t* out, const oclopsTensor_t* mean, const oclopsTensor_t* rstd) {
  int64_t rows = 0, cols = 0;
  if (!x || !out || !mean || !rstd || !rows_and_columns(*x, normalized_dims, &rows, &cols)) {
    return invalid("oclopsLayerNorm: x, out, mean and rstd are needed, normalized_dims within x's");
  }
  if (oclopsStatus_t s = check_dense("oclopsLayerNorm", {x, weight, bias, out, mean, rstd})) return s;
  if (rows * cols == 0) return OCLOPS_SUCCESS;  // an empty row's statistics: left to the caller's allocation
  std::string compute, source;
  if (oclopsStatus_t s = nn_source("oclopsLayerNorm", stream, "LAYER_NORM",
                                   {{"A", x}, {"OUT", out}, {"B", present(weight) ? weight : nullptr},
                                    {"C", present(bias) ? bias : nullptr}, {"S", mean}},
                                   nullptr, &compute, &source)) {
    return s;
  }
  Launch launch(*stream, source, "", "layer_norm");
  launch.value(static_cast<cl_long>(rows)).value(static_cast<cl_long>(cols));
  push_w(launch, compute, eps).value(static_cast<cl_int>(present(weight))).value(static_cast<cl_int>(present(bias)));
  operand(operand(operand(launch, out, *out), mean, *out), rstd, *out);
  operand(operand(operand(launch, x, *out), weight, *out), bias, *out);
  return from_driver(launch.run(static_cast<uint64_t>(rows)));
}

oclopsStatus_t oclopsLayerNormBackward(oclopsStream_t stream, const oclopsTensor_t* grad, const oclopsTensor_t* x,
                                       int32_t normalized_dims, const oclopsTensor_t* mean,
                                       const oclopsTensor_t* rstd, const oclopsTensor_t* weight,
                                       const oclopsTensor_t* grad_x, const oclopsTensor_t* grad_weight,
                                       const oclopsTensor_t* grad_bias) {
  int64_t rows = 0, cols = 0;
  if (!grad || !x || !mean || !rstd || !rows_and_columns(*x, normalized_dims, &rows, &cols)) {
    return invalid("oclopsLayerNormBackward: grad, x, mean and rstd are needed, normalized_dims within x's");
  }
  if (oclopsStatus_t s = check_dense("oclopsLayerNormBackward", {grad, x, mean, rstd, weight, grad_x, grad_weight,
                                                                 grad_bias})) {
    return s;
  }
  if (present(grad_x) && rows * cols > 0) {
    std::string compute, source;
    if (oclopsStatus_t s = nn_source("oclopsLayerNormBackward", stream, "LAYER_NORM_BACKWARD_INPUT",
                                     {{"OUT", grad_x}, {"G", grad}, {"A", x}, {"S", mean},
                                      {"B", present(weight) ? weight : nullptr}},
                                     nullptr, &compute, &source)) {
      return s;
    }
    Launch launch(*stream, source, "", "layer_norm_backward_input");
    launch.value(static_cast<cl_long>(rows)).value(static_cast<cl_long>(cols)).value(static_cast<cl_int>(present(weight)));
    operand(operand(operand(launch, grad_x, *grad_x), grad, *grad_x), x, *grad_x);
    operand(operand(operand(launch, mean, *grad_x), rstd, *grad_x), weight, *grad_x);
    if (oclopsStatus_t s = from_driver(launch.run(static_cast<uint64_t>(rows)))) return s;
  }
  const oclopsTensor_t* param = present(grad_weight) ? grad_weight : grad_bias;
  if (!present(param) || cols == 0) return OCLOPS_SUCCESS;
  std::string compute, source;
  if (oclopsStatus_t s = nn_source("oclopsLayerNormBackward", stream, "LAYER_NORM_BACKWARD_PARAMS",
                                   {{"OUT", param}, {"G", grad}, {"A", x}, {"S", mean}}, nullptr, &compute, &source)) {
    return s;
  }
  if (present(grad_weight) && present(grad_bias) && grad_weight->dtype != grad_bias->dtype) {
    return not_supported("oclopsLayerNormBackward: weight and bias of different dtypes");
  }
  Launch launch(*stream, source, "", "layer_norm_backward_params");
  launch.value(static_cast<cl_long>(rows)).value(static_cast<cl_long>(cols));
  launch.value(static_cast<cl_int>(present(grad_weight))).value(static_cast<cl_int>(present(grad_bias)));
  operand(operand(launch, grad_weight, *param), grad_bias, *param);
  operand(operand(operand(operand(launch, grad, *param), x, *param), mean, *param), rstd, *param);
  return from_driver(launch.run(static_cast<uint64_t>(cols)));
}
