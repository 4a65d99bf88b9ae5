// 2-D max, average and adaptive average pooling and their backward
// (kernels/ocl_pool.cl). Inputs are N x C x H x W or C x H x W, any strides;
// the output's shape (and with it ceil_mode) comes from ATen's meta functions.
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

namespace {

// kernels/ocl_pool.cl's PoolShape, field for field.
struct PoolShape {
  cl_long channels, height, width, out_height, out_width;
  cl_long kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  cl_long in_n, in_c, in_h, in_w, in_offset;
  cl_long out_n, out_c, out_h, out_w, out_offset;
  cl_long index_n, index_c, index_h, index_w, index_offset;
  cl_long count_include_pad, divisor;
};
static_assert(sizeof(PoolShape) == 30 * 8, "PoolShape must match kernels/ocl_pool.cl");

// A pooling parameter of one or two entries (one: both dims), or `otherwise` when empty.
bool pair_of(oclopsDims_t list, int64_t otherwise_h, int64_t otherwise_w, cl_long* h, cl_long* w) {
  if (list.count == 0) {
    *h = otherwise_h, *w = otherwise_w;
    return true;
  }
  if (list.count != 1 && list.count != 2) return false;
  *h = list.dims[0];
  *w = list.dims[list.count - 1];
  return true;
}

// Strides of a 3-D or 4-D tensor as (n, c, h, w); a 3-D one has one batch element.
void strides_of(const oclopsTensor_t& t, cl_long* n, cl_long* c, cl_long* h, cl_long* w, cl_long* offset) {
  const int32_t base = t.dim - 3;
  *n = base == 1 ? t.stride[0] : 0;
  *c = t.stride[base], *h = t.stride[base + 1], *w = t.stride[base + 2], *offset = t.offset;
}

// The shape of a pooling from `input` (the image side) to `output`.
bool make_shape(const oclopsTensor_t& input, const oclopsTensor_t& output, PoolShape* s, std::string* why) {
  if ((input.dim != 3 && input.dim != 4) || output.dim != input.dim) {
    *why = "input and output must be N x C x H x W or C x H x W";
    return false;
  }
  const int32_t base = input.dim - 3;
  for (int32_t d = 0; d <= base; ++d) {
    if (input.shape[d] != output.shape[d]) {
      *why = "input and output differ in batch or channels";
      return false;
    }
  }
  *s = PoolShape{};
  s->channels = input.shape[base];
  s->height = input.shape[base + 1], s->width = input.shape[base + 2];
  s->out_height = output.shape[base + 1], s->out_width = output.shape[base + 2];
  s->kernel_h = s->kernel_w = s->stride_h = s->stride_w = s->dilation_h = s->dilation_w = 1;
  strides_of(input, &s->in_n, &s->in_c, &s->in_h, &s->in_w, &s->in_offset);
  strides_of(output, &s->out_n, &s->out_c, &s->out_h, &s->out_w, &s->out_offset);
  return true;
}

bool set_window(PoolShape* s, oclopsDims_t kernel, oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation,
                std::string* why) {
  if (!pair_of(kernel, 0, 0, &s->kernel_h, &s->kernel_w) ||
      !pair_of(stride, s->kernel_h, s->kernel_w, &s->stride_h, &s->stride_w) ||
      !pair_of(padding, 0, 0, &s->pad_h, &s->pad_w) || !pair_of(dilation, 1, 1, &s->dilation_h, &s->dilation_w) ||
      s->kernel_h < 1 || s->kernel_w < 1 || s->stride_h < 1 || s->stride_w < 1 || s->dilation_h < 1 ||
      s->dilation_w < 1) {
    *why = "kernel_size, stride, padding and dilation need one or two entries, positive (padding: any)";
    return false;
  }
  return true;
}

// The shape of a windowed pooling (max, avg) from `input` to `output`; `fn`, the
// call, names the error.
oclopsStatus_t window_shape(const char* fn, const oclopsTensor_t& input, const oclopsTensor_t& output,
                            oclopsDims_t kernel, oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation,
                            PoolShape* s) {
  std::string why;
  if (!make_shape(input, output, s, &why) || !set_window(s, kernel, stride, padding, dilation, &why)) {
    return invalid(std::string(fn) + ": " + why);
  }
  return OCLOPS_SUCCESS;
}

// A max pooling's shape, with its indices (int64, at the output's positions).
oclopsStatus_t max_window_shape(const char* fn, const oclopsTensor_t& input, const oclopsTensor_t& output,
                                oclopsDims_t kernel, oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation,
                                const oclopsTensor_t& indices, PoolShape* s) {
  if (oclopsStatus_t status = window_shape(fn, input, output, kernel, stride, padding, dilation, s)) return status;
  if (indices.dtype != ElementType::kI64) return invalid(std::string(fn) + ": indices must be int64");
  strides_of(indices, &s->index_n, &s->index_c, &s->index_h, &s->index_w, &s->index_offset);
  return OCLOPS_SUCCESS;
}

int64_t batch_of(const oclopsTensor_t& t) { return t.dim == 4 ? t.shape[0] : 1; }

// Queues `kernel` over `total` items: (shape, total, buffers...).
oclopsStatus_t run_pool(oclopsStream_t stream, const char* kernel, const PoolShape& shape, int64_t total,
                        oclopsDtype_t out_type, oclopsDtype_t in_type, std::initializer_list<cl_mem> buffers) {
  if (total == 0) return OCLOPS_SUCCESS;
  const std::string compute = compute_type({out_type, in_type}, device_of(stream).fp64);
  if (compute.empty() || !is_floating(in_type)) {
    return not_supported(std::string(kernel) + ": dtype " + element_name(in_type));
  }
  const std::string source = fp64_pragma(compute, {out_type, in_type}) + "#define W " + compute + "\n" +
                             element_macros("OUT", out_type, compute) + element_macros("A", in_type, compute) +
                             kIndexingSource + kPoolSource;
  Launch launch(*stream, source, "", kernel);
  launch.value(shape).value(static_cast<cl_long>(total));
  for (cl_mem buffer : buffers) launch.buffer(buffer);
  return from_driver(launch.run(static_cast<uint64_t>(total)));
}

}  // namespace

oclopsStatus_t oclopsMaxPool2d(oclopsStream_t stream, const oclopsTensor_t* self, oclopsDims_t kernel,
                               oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation,
                               const oclopsTensor_t* out, const oclopsTensor_t* indices) {
  if (!self || !out || !indices) return invalid("oclopsMaxPool2d: missing operand");
  PoolShape s;
  if (oclopsStatus_t status =
          max_window_shape("oclopsMaxPool2d", *self, *out, kernel, stride, padding, dilation, *indices, &s)) {
    return status;
  }
  return run_pool(stream, "max_pool", s, numel(*out), out->dtype, self->dtype,
                  {out->buffer, indices->buffer, self->buffer});
}

oclopsStatus_t oclopsMaxPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                       const oclopsTensor_t* self, oclopsDims_t kernel, oclopsDims_t stride,
                                       oclopsDims_t padding, oclopsDims_t dilation, const oclopsTensor_t* indices,
                                       const oclopsTensor_t* grad_input) {
  if (!grad_output || !self || !indices || !grad_input) return invalid("oclopsMaxPool2dBackward: missing operand");
  PoolShape s;
  if (oclopsStatus_t status = max_window_shape("oclopsMaxPool2dBackward", *grad_input, *grad_output, kernel, stride,
                                               padding, dilation, *indices, &s)) {
    return status;
  }
  return run_pool(stream, "max_pool_backward", s, numel(*grad_input), grad_input->dtype, grad_output->dtype,
                  {grad_input->buffer, indices->buffer, grad_output->buffer});
}

oclopsStatus_t oclopsAvgPool2d(oclopsStream_t stream, const oclopsTensor_t* self, oclopsDims_t kernel,
                               oclopsDims_t stride, oclopsDims_t padding, bool count_include_pad, int64_t divisor,
                               const oclopsTensor_t* out) {
  if (!self || !out) return invalid("oclopsAvgPool2d: missing operand");
  PoolShape s;
  if (oclopsStatus_t status = window_shape("oclopsAvgPool2d", *self, *out, kernel, stride, padding, {}, &s)) {
    return status;
  }
  s.count_include_pad = count_include_pad, s.divisor = divisor;
  return run_pool(stream, "avg_pool", s, numel(*out), out->dtype, self->dtype, {out->buffer, self->buffer});
}

oclopsStatus_t oclopsAvgPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                       const oclopsTensor_t* self, oclopsDims_t kernel, oclopsDims_t stride,
                                       oclopsDims_t padding, bool count_include_pad, int64_t divisor,
                                       const oclopsTensor_t* grad_input) {
  if (!grad_output || !self || !grad_input) return invalid("oclopsAvgPool2dBackward: missing operand");
  PoolShape s;
  if (oclopsStatus_t status =
          window_shape("oclopsAvgPool2dBackward", *grad_input, *grad_output, kernel, stride, padding, {}, &s)) {
    return status;
  }
  s.count_include_pad = count_include_pad, s.divisor = divisor;
  return run_pool(stream, "avg_pool_backward", s, numel(*grad_input), grad_input->dtype, grad_output->dtype,
                  {grad_input->buffer, grad_output->buffer});
}

oclopsStatus_t oclopsAdaptiveAvgPool2d(oclopsStream_t stream, const oclopsTensor_t* self, const oclopsTensor_t* out) {
  if (!self || !out) return invalid("oclopsAdaptiveAvgPool2d: missing operand");
  PoolShape s;
  std::string why;
  if (!make_shape(*self, *out, &s, &why)) return invalid("oclopsAdaptiveAvgPool2d: " + why);
  return run_pool(stream, "adaptive_avg_pool", s, numel(*out), out->dtype, self->dtype, {out->buffer, self->buffer});
}

oclopsStatus_t oclopsAdaptiveAvgPool2dBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                               const oclopsTensor_t* self, const oclopsTensor_t* grad_input) {
  if (!grad_output || !self || !grad_input) return invalid("oclopsAdaptiveAvgPool2dBackward: missing operand");
  PoolShape s;
  std::string why;
  if (!make_shape(*grad_input, *grad_output, &s, &why)) return invalid("oclopsAdaptiveAvgPool2dBackward: " + why);
  return run_pool(stream, "adaptive_avg_pool_backward", s, numel(*grad_input), grad_input->dtype, grad_output->dtype,
                  {grad_input->buffer, grad_output->buffer});
}
