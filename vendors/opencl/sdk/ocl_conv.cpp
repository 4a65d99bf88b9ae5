// Convolution (1-D and 2-D, not transposed) as im2col + CLBlast GEMM, one
// (batch element, group) at a time, and its backward: the input's gradient by
// the transposed weights and col2im, the weights' by products with the input's
// columns accumulated over the batch, the bias's by a sum.
#include <algorithm>
#include <string>
#include <vector>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

namespace {

// kernels/ocl_conv.cl's ConvShape, field for field.
struct ConvShape {
  cl_long channels, height, width, out_height, out_width, kernel_h, kernel_w;
  cl_long stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  cl_long channel_stride, row_stride, column_stride, offset;
};
static_assert(sizeof(ConvShape) == 17 * 8, "ConvShape must match kernels/ocl_conv.cl");

// One convolution's sizes (per group), a 1-D one as 2-D of height 1.
struct Conv {
  int64_t batch = 0, groups = 1, channels = 0, filters = 0;  // channels and filters per group
  int64_t height = 1, width = 0, out_height = 1, out_width = 0, kernel_h = 1, kernel_w = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;
  int64_t taps() const { return channels * kernel_h * kernel_w; }   // rows of the column matrix
  int64_t positions() const { return out_height * out_width; }      // its columns
};

bool read_conv(const oclopsTensor_t& input, const oclopsTensor_t& weight, const oclopsTensor_t& output,
               oclopsDims_t stride, oclopsDims_t padding, oclopsDims_t dilation, int64_t groups, Conv* conv,
               std::string* why) {
  const int32_t spatial = input.dim - 2;
  if ((spatial != 1 && spatial != 2) || weight.dim != input.dim || output.dim != input.dim) {
    *why = "1-D or 2-D convolutions only (input N x C x [H x] W, weight and output alike)";
    return false;
  }
  if (stride.count != spatial || padding.count != spatial || dilation.count != spatial || groups < 1) {
    *why = "stride, padding and dilation need one entry per spatial dim, groups at least 1";
    return false;
  }
  conv->batch = input.shape[0];
  conv->groups = groups;
  conv->channels = input.shape[1] / groups;
  conv->filters = weight.shape[0] / groups;
  if (conv->channels * groups != input.shape[1] || conv->filters * groups != weight.shape[0] ||
      weight.shape[1] != conv->channels || output.shape[1] != weight.shape[0] || output.shape[0] != input.shape[0]) {
    *why = "channels, filters and groups do not agree";
    return false;
  }
  const int32_t h = spatial == 2 ? 0 : -1, w = spatial - 1;  // index into the lists; -1: height 1
  conv->width = input.shape[input.dim - 1];
  conv->out_width = output.shape[output.dim - 1];
  conv->kernel_w = weight.shape[weight.dim - 1];
  conv->stride_w = stride.dims[w], conv->pad_w = padding.dims[w], conv->dilation_w = dilation.dims[w];
  if (h == 0) {
    conv->height = input.shape[2], conv->out_height = output.shape[2], conv->kernel_h = weight.shape[2];
    conv->stride_h = stride.dims[h], conv->pad_h = padding.dims[h], conv->dilation_h = dilation.dims[h];
  }
  if (conv->stride_h < 1 || conv->stride_w < 1 || conv->dilation_h < 1 || conv->dilation_w < 1) {
    *why = "stride and dilation must be positive";
    return false;
  }
  return true;
}

// The ConvShape of image tensor `t` (the input or its gradient) at (n, group).
ConvShape image_shape(const Conv& conv, const oclopsTensor_t& t, int64_t n, int64_t group) {
  const bool two_d = t.dim == 4;
  return ConvShape{conv.channels, conv.height, conv.width, conv.out_height, conv.out_width, conv.kernel_h,
                   conv.kernel_w, conv.stride_h, conv.stride_w, conv.pad_h, conv.pad_w, conv.dilation_h,
                   conv.dilation_w, t.stride[1], two_d ? t.stride[2] : 0, t.stride[t.dim - 1],
                   t.offset + n * t.stride[0] + group * conv.channels * t.stride[1]};
}

oclopsTensor_t matrix(cl_mem buffer, int64_t offset, oclopsDtype_t dtype, int64_t rows, int64_t cols,
                      int64_t row_stride, int64_t col_stride) {
  oclopsTensor_t m{};
  m.buffer = buffer, m.offset = offset, m.dtype = dtype, m.dim = 2;
  m.shape[0] = rows, m.shape[1] = cols, m.stride[0] = row_stride, m.stride[1] = col_stride;
  return m;
}

bool is_contiguous(const oclopsTensor_t& t) {
  int64_t expected = 1;
  for (int32_t d = t.dim - 1; d >= 0; --d) {
    if (t.shape[d] != 1 && t.stride[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

// A contiguous tensor of t's shape and dtype in a new buffer (released by the caller).
oclopsStatus_t scratch_like(oclopsStream_t stream, const oclopsTensor_t& t, oclopsTensor_t* scratch) {
  *scratch = t;
  scratch->offset = 0;
  int64_t count = 1;
  for (int32_t d = t.dim - 1; d >= 0; --d) {
    scratch->stride[d] = count;
    count *= t.shape[d];
  }
  cl_int error = CL_SUCCESS;
  scratch->buffer = clCreateBuffer(stream->context(), CL_MEM_READ_WRITE, count * element_size(t.dtype), nullptr, &error);
  return error == CL_SUCCESS ? OCLOPS_SUCCESS : from_driver(error);
}

// The kernels of ocl_conv.cl for one dtype (columns are kept in the image's dtype).
class ConvKernels {
 public:
  ConvKernels(oclopsStream_t stream, oclopsDtype_t dtype) : stream_(stream) {
    compute_ = compute_type({dtype}, device_of(stream).fp64);
    source_ = fp64_pragma(compute_, {dtype}) + "#define W " + compute_ + "\n" +
              element_macros("OUT", dtype, compute_) + element_macros("A", dtype, compute_) + kIndexingSource +
              kConvSource;
  }
  bool usable() const { return !compute_.empty(); }
  oclopsStatus_t im2col(const ConvShape& shape, cl_mem col, cl_mem image, int64_t items) {
    return from_driver(Launch(*stream_, source_, "", "im2col").value(shape).buffer(col).buffer(image)
                           .run(static_cast<uint64_t>(items)));
  }
  oclopsStatus_t col2im(const ConvShape& shape, cl_mem image, cl_mem col, int64_t items) {
    return from_driver(Launch(*stream_, source_, "", "col2im").value(shape).buffer(image).buffer(col)
                           .run(static_cast<uint64_t>(items)));
  }

 private:
  oclopsStream_t stream_;
  std::string compute_, source_;
};

// The call's temporary buffers, released when it returns (queued work keeps them).
struct Buffers {
  std::vector<cl_mem> held;
  ~Buffers() {
    for (cl_mem buffer : held) clReleaseMemObject(buffer);
  }
  oclopsStatus_t create(oclopsStream_t stream, size_t bytes, cl_mem* buffer) {
    cl_int error = CL_SUCCESS;
    *buffer = clCreateBuffer(stream->context(), CL_MEM_READ_WRITE, std::max<size_t>(bytes, 1), nullptr, &error);
    if (error != CL_SUCCESS) return from_driver(error);
    held.push_back(*buffer);
    return OCLOPS_SUCCESS;
  }
};

// Where results go: `t` itself when contiguous, else a contiguous scratch copied into t at the end.
oclopsStatus_t contiguous_target(oclopsStream_t stream, const oclopsTensor_t& t, Buffers* buffers,
                                 oclopsTensor_t* target) {
  if (is_contiguous(t)) {
    *target = t;
    return OCLOPS_SUCCESS;
  }
  if (const oclopsStatus_t status = scratch_like(stream, t, target)) return status;
  buffers->held.push_back(target->buffer);
  return OCLOPS_SUCCESS;
}

oclopsStatus_t finish_target(oclopsStream_t stream, const oclopsTensor_t& target, const oclopsTensor_t& t) {
  return target.buffer == t.buffer ? OCLOPS_SUCCESS : oclopsUnary(stream, OCLOPS_IDENTITY, &target, &t);
}

constexpr oclopsScalar_t kOne{1.0, 1};
constexpr oclopsScalar_t kZero{0.0, 0};

}  // namespace

oclopsStatus_t oclopsConvolution(oclopsStream_t stream, const oclopsTensor_t* input, const oclopsTensor_t* weight,
                                 const oclopsTensor_t* bias, oclopsDims_t stride, oclopsDims_t padding,
                                 oclopsDims_t dilation, int64_t groups, const oclopsTensor_t* out) {
  if (!input || !weight || !out) return invalid("oclopsConvolution: missing operand");
  Conv conv;
  std::string why;
  if (!read_conv(*input, *weight, *out, stride, padding, dilation, groups, &conv, &why)) {
    return invalid("oclopsConvolution: " + why);
  }
  if (!is_contiguous(*weight)) return invalid("oclopsConvolution: the weight must be contiguous");
  const oclopsDtype_t dtype = out->dtype;
  ConvKernels kernels(stream, dtype);
  if (!kernels.usable() || input->dtype != dtype || weight->dtype != dtype) {
    return not_supported(std::string("oclopsConvolution: dtype ") + element_name(dtype));
  }
  if (numel(*out) == 0) return OCLOPS_SUCCESS;
  Buffers buffers;
  oclopsTensor_t target;
  if (const oclopsStatus_t status = contiguous_target(stream, *out, &buffers, &target)) return status;
  const bool with_bias = bias && bias->buffer;  // (no input channels: oclopsGemm gives the bias, or 0)
  cl_mem col = nullptr;
  const int64_t taps = conv.taps(), positions = conv.positions();
  if (const oclopsStatus_t status = buffers.create(stream, taps * positions * element_size(dtype), &col)) return status;
  const oclopsTensor_t columns = matrix(col, 0, dtype, taps, positions, positions, 1);
  for (int64_t n = 0; n < conv.batch; ++n) {
    for (int64_t g = 0; g < conv.groups; ++g) {
      if (taps > 0) {
        if (const oclopsStatus_t status = kernels.im2col(image_shape(conv, *input, n, g), col, input->buffer,
                                                         taps * positions)) {
          return status;
        }
      }
      const oclopsTensor_t filters = matrix(weight->buffer, weight->offset + g * conv.filters * taps, dtype,
                                            conv.filters, taps, taps, 1);
      const oclopsTensor_t block = matrix(target.buffer, target.offset + (n * conv.groups + g) * conv.filters * positions,
                                          dtype, conv.filters, positions, positions, 1);
      // the bias, broadcast along the positions, is out's starting value
      const oclopsTensor_t bias_block = with_bias ? matrix(bias->buffer, bias->offset + g * conv.filters * bias->stride[0],
                                                           bias->dtype, conv.filters, positions, bias->stride[0], 0)
                                                  : oclopsTensor_t{};
      if (const oclopsStatus_t status = oclopsGemm(stream, &filters, &columns, with_bias ? &bias_block : nullptr,
                                                   with_bias ? kOne : kZero, kOne, &block)) {
        return status;
      }
    }
  }
  return finish_target(stream, target, *out);
}

oclopsStatus_t oclopsConvolutionBackward(oclopsStream_t stream, const oclopsTensor_t* grad_output,
                                         const oclopsTensor_t* input, const oclopsTensor_t* weight, oclopsDims_t stride,
                                         oclopsDims_t padding, oclopsDims_t dilation, int64_t groups,
                                         const oclopsTensor_t* grad_input, const oclopsTensor_t* grad_weight,
                                         const oclopsTensor_t* grad_bias) {
  if (!grad_output || !input || !weight) return invalid("oclopsConvolutionBackward: missing operand");
  Conv conv;
  std::string why;
  if (!read_conv(*input, *weight, *grad_output, stride, padding, dilation, groups, &conv, &why)) {
    return invalid("oclopsConvolutionBackward: " + why);
  }
  if (!is_contiguous(*weight) || !is_contiguous(*grad_output)) {
    return invalid("oclopsConvolutionBackward: the weight and grad_output must be contiguous");
  }
  const oclopsDtype_t dtype = grad_output->dtype;
  ConvKernels kernels(stream, dtype);
  if (!kernels.usable() || input->dtype != dtype || weight->dtype != dtype) {
    return not_supported(std::string("oclopsConvolutionBackward: dtype ") + element_name(dtype));
  }
  const bool want_input = grad_input && grad_input->buffer, want_weight = grad_weight && grad_weight->buffer;
  Buffers buffers;
  oclopsTensor_t weight_target{};
  if (want_weight) {
    if (const oclopsStatus_t status = contiguous_target(stream, *grad_weight, &buffers, &weight_target)) return status;
    if (const oclopsStatus_t status = oclopsFill(stream, &weight_target, kZero)) return status;
  }
  const int64_t taps = conv.taps(), positions = conv.positions();
  cl_mem col = nullptr;
  if ((want_input || want_weight) && taps * positions > 0) {
    if (const oclopsStatus_t status = buffers.create(stream, taps * positions * element_size(dtype), &col)) return status;
  }
  for (int64_t n = 0; col && n < conv.batch; ++n) {
    for (int64_t g = 0; g < conv.groups; ++g) {
      const oclopsTensor_t grads = matrix(grad_output->buffer,
                                          grad_output->offset + (n * conv.groups + g) * conv.filters * positions,
                                          dtype, conv.filters, positions, positions, 1);
      const int64_t filters_at = weight->offset + g * conv.filters * taps;
      if (want_input) {  // columns = filters^T @ grads, folded back onto the input's positions
        const oclopsTensor_t filters_t = matrix(weight->buffer, filters_at, dtype, taps, conv.filters, 1, taps);
        const oclopsTensor_t columns = matrix(col, 0, dtype, taps, positions, positions, 1);
        if (const oclopsStatus_t status = oclopsGemm(stream, &filters_t, &grads, nullptr, kZero, kOne, &columns)) {
          return status;
        }
        if (const oclopsStatus_t status = kernels.col2im(image_shape(conv, *grad_input, n, g), grad_input->buffer,
                                                         col, conv.channels * conv.height * conv.width)) {
          return status;
        }
      }
      if (want_weight) {  // grad_weight += grads @ columns^T
        if (const oclopsStatus_t status = kernels.im2col(image_shape(conv, *input, n, g), col, input->buffer,
                                                         taps * positions)) {
          return status;
        }
        const oclopsTensor_t columns_t = matrix(col, 0, dtype, positions, taps, 1, positions);
        const oclopsTensor_t block = matrix(weight_target.buffer, weight_target.offset + g * conv.filters * taps,
                                            dtype, conv.filters, taps, taps, 1);
        if (const oclopsStatus_t status = oclopsGemm(stream, &grads, &columns_t, &block, kOne, kOne, &block)) {
          return status;
        }
      }
    }
  }
  if (want_input && !col && numel(*grad_input) > 0) {  // no products: the gradient is 0
    if (const oclopsStatus_t status = oclopsFill(stream, grad_input, kZero)) return status;
  }
  if (want_weight) {
    if (const oclopsStatus_t status = finish_target(stream, weight_target, *grad_weight)) return status;
  }
  if (grad_bias && grad_bias->buffer) {  // the sum over the batch and the positions
    oclopsDims_t dims{};
    dims.dims[dims.count++] = 0;
    for (int32_t d = 2; d < grad_output->dim; ++d) dims.dims[dims.count++] = d;
    return oclopsReduceSum(stream, grad_output, dims, false, grad_bias);
  }
  return OCLOPS_SUCCESS;
}
