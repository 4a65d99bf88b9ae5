// Data movement: cat as casting copies into slices of out (the unary kernel),
// arange, index_select and embedding's gradient (kernels/ocl_data.cl).
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

namespace torch_fl::ocl::ops {
namespace {

bool is_index_type(ElementType type) { return type == ElementType::kI32 || type == ElementType::kI64; }

// W, TFL_INTEGRAL and the element macros of OUT, A and the index type I.
std::string data_prelude(const std::string& compute, const oclopsTensor_t& out, const oclopsTensor_t* a,
                         const oclopsTensor_t* index, const char* kernel) {
  std::string text = fp64_pragma(compute, {out.dtype, a ? a->dtype : out.dtype}) + "#define W " + compute + "\n";
  if (compute == "long") text += "#define TFL_INTEGRAL\n";
  text += element_macros("OUT", out.dtype, compute);
  if (a) text += element_macros("A", a->dtype, compute);
  if (index) text += element_macros("I", index->dtype, "long");
  return text + "#define " + kernel + "\n" + kIndexingSource + kDataSource;
}

}  // namespace
}  // namespace torch_fl::ocl::ops

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsCat(oclopsStream_t stream, oclopsTensorList_t tensors, int64_t dim, const oclopsTensor_t* out) {
  if (!out || (tensors.count > 0 && !tensors.tensors)) return invalid("oclopsCat: missing operand");
  const int64_t d = dim < 0 ? dim + out->dim : dim;
  if (d < 0 || d >= out->dim) return invalid("oclopsCat: dim " + std::to_string(dim) + " out of range");
  int64_t start = 0;
  for (int32_t k = 0; k < tensors.count; ++k) {
    const oclopsTensor_t& part = tensors.tensors[k];
    if (part.dim == 1 && part.shape[0] == 0 && out->dim != 1) continue;  // the legacy empty tensor
    oclopsTensor_t slice = *out;  // out's rows [start, start + part's size) along d
    slice.shape[d] = part.shape[d];
    slice.offset += start * out->stride[d];
    start += part.shape[d];
    if (numel(part) == 0) continue;
    if (const oclopsStatus_t status = oclopsUnary(stream, OCLOPS_IDENTITY, &part, &slice)) return status;
  }
  if (start != out->shape[d]) return invalid("oclopsCat: the parts do not fill out along dim");
  return OCLOPS_SUCCESS;
}

oclopsStatus_t oclopsArange(oclopsStream_t stream, oclopsScalar_t start, oclopsScalar_t step,
                            const oclopsTensor_t* out) {
  if (!out || out->dim != 1) return invalid("oclopsArange: out must be 1-D");
  if (out->shape[0] == 0) return OCLOPS_SUCCESS;
  const Device& device = device_of(stream);
  std::string compute = compute_type({out->dtype}, device.fp64);
  if (compute.empty()) return not_supported(std::string("oclopsArange: dtype ") + element_name(out->dtype));
  if (compute == "float" && device.fp64) compute = "double";
  Launch launch(*stream, data_prelude(compute, *out, nullptr, nullptr, "ARANGE"), "", "arange");
  launch.value(static_cast<cl_long>(out->shape[0])).value(static_cast<cl_long>(out->offset));
  launch.value(static_cast<cl_long>(out->stride[0])).buffer(out->buffer);
  if (compute == "long") {
    launch.value(static_cast<cl_long>(start.integer)).value(static_cast<cl_long>(step.integer));
  } else if (compute == "double") {
    launch.value(static_cast<cl_double>(start.floating)).value(static_cast<cl_double>(step.floating));
  } else {
    launch.value(static_cast<cl_float>(start.floating)).value(static_cast<cl_float>(step.floating));
  }
  return from_driver(launch.run(static_cast<uint64_t>(out->shape[0])));
}

namespace torch_fl::ocl::ops {
namespace {
// out[...] = a[..., index[...] along d, ...]: index_select (index_strides: the 1-D
// index's stride along d only) and gather (index shaped like out). A bad index
// raises at the next synchronisation (the stream's fault record, ocl_fault.h).
oclopsStatus_t take_along(const char* fn, oclopsStream_t stream, const oclopsTensor_t& a, int64_t d,
                          const oclopsTensor_t& index, const int64_t* index_strides,
                          const oclopsTensor_t& out) {
  Geometry g = make_geometry(out.dim, out.shape);
  if (g.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&g, 0, out.stride, out.offset);
  int64_t a_strides[OCLOPS_MAX_DIMS] = {0};
  for (int32_t k = 0; k < a.dim; ++k) a_strides[k] = k == d ? 0 : a.stride[k];
  set_operand(&g, 1, a_strides, a.offset);
  set_operand(&g, 2, index_strides, index.offset);
  const std::string compute = compute_type({out.dtype, a.dtype}, device_of(stream).fp64);
  if (compute.empty()) return not_supported(std::string(fn) + ": dtype " + element_name(a.dtype));
  Launch launch(*stream, data_prelude(compute, out, &a, &index, "INDEX_SELECT"), "", "index_select");
  launch.value(g).buffer(out.buffer).buffer(a.buffer).buffer(index.buffer);
  const int64_t a_stride = a.dim == 0 ? 0 : a.stride[d], a_size = a.dim == 0 ? 1 : a.shape[d];
  launch.value(static_cast<cl_long>(a_stride)).value(static_cast<cl_long>(a_size));
  launch.fault_record(fn);
  return from_driver(launch.run(static_cast<uint64_t>(g.numel)));
}
}  // namespace
}  // namespace torch_fl::ocl::ops

oclopsStatus_t oclopsIndexSelect(oclopsStream_t stream, const oclopsTensor_t* a, int64_t dim,
                                 const oclopsTensor_t* index, const oclopsTensor_t* out) {
  if (!a || !index || !out || !is_index_type(index->dtype) || index->dim > 1) {
    return invalid("oclopsIndexSelect: a, a 1-D int32 or int64 index and out are needed");
  }
  const int32_t rank = a->dim == 0 ? 1 : a->dim;
  const int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank || out->dim != a->dim) return invalid("oclopsIndexSelect: dim out of range");
  int64_t index_strides[OCLOPS_MAX_DIMS] = {0};
  if (a->dim > 0) index_strides[d] = index->dim == 1 ? index->stride[0] : 0;
  return take_along("oclopsIndexSelect", stream, *a, d, *index, index_strides, *out);
}

oclopsStatus_t oclopsGather(oclopsStream_t stream, const oclopsTensor_t* a, int64_t dim, const oclopsTensor_t* index,
                            const oclopsTensor_t* out) {
  if (out && numel(*out) == 0) return OCLOPS_SUCCESS;  // an empty index may have any dtype
  if (!a || !index || !out || !is_index_type(index->dtype) || index->dim != out->dim) {
    return invalid("oclopsGather: a, an int32 or int64 index shaped like out and out are needed");
  }
  const int32_t rank = a->dim == 0 ? 1 : a->dim;
  const int64_t d = dim < 0 ? dim + rank : dim;
  if (d < 0 || d >= rank || (a->dim != out->dim && a->dim > 0)) return invalid("oclopsGather: dim out of range");
  return take_along("oclopsGather", stream, *a, d, *index, index->stride, *out);
}

oclopsStatus_t oclopsTriangle(oclopsStream_t stream, const oclopsTensor_t* a, int64_t diagonal, bool lower,
                              const oclopsTensor_t* out) {
  if (!a || !out || out->dim < 2 || out->dim > OCLOPS_MAX_DIMS) return invalid("oclopsTriangle: a tensor of 2 dims or more");
  Geometry g = make_geometry(out->dim, out->shape);
  if (g.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&g, 0, out->stride, out->offset);
  if (!broadcast_into(&g, 1, *a)) return invalid("oclopsTriangle: a and out differ in shape");
  const std::string compute = compute_type({out->dtype, a->dtype}, device_of(stream).fp64);
  if (compute.empty()) return not_supported(std::string("oclopsTriangle: dtype ") + element_name(a->dtype));
  Launch launch(*stream, data_prelude(compute, *out, a, nullptr, "TRIANGLE"), "", "triangle");
  launch.value(g).buffer(out->buffer).buffer(a->buffer);
  launch.value(static_cast<cl_long>(diagonal)).value(static_cast<cl_int>(lower ? 1 : 0));
  return from_driver(launch.run(static_cast<uint64_t>(g.numel)));
}

oclopsStatus_t oclopsEmbeddingBackward(oclopsStream_t stream, const oclopsTensor_t* grad,
                                       const oclopsTensor_t* indices, int64_t padding_idx, bool scale_by_freq,
                                       const oclopsTensor_t* out) {
  if (!grad || !indices || !out || !is_index_type(indices->dtype) || out->dim != 2 || grad->dim < 1) {
    return invalid("oclopsEmbeddingBackward: grad, int32 or int64 indices and a 2-D out are needed");
  }
  const int64_t rows = out->shape[0], columns = out->shape[1], n = numel(*indices);
  if (grad->shape[grad->dim - 1] != columns || numel(*grad) != n * columns) {
    return invalid("oclopsEmbeddingBackward: grad is not indices' shape by out's columns");
  }
  if (rows * columns == 0) return OCLOPS_SUCCESS;
  const Device& device = device_of(stream);
  std::string compute = compute_type({out->dtype, grad->dtype}, device.fp64);
  if (compute.empty() || compute == "long") return not_supported("oclopsEmbeddingBackward: floating point only");
  Launch launch(*stream, data_prelude(compute, *out, grad, indices, "EMBEDDING_BACKWARD"), "", "embedding_backward");
  launch.value(static_cast<cl_long>(rows)).value(static_cast<cl_long>(columns)).value(static_cast<cl_long>(n));
  launch.buffer(out->buffer).value(static_cast<cl_long>(out->offset));
  launch.buffer(grad->buffer).value(static_cast<cl_long>(grad->offset));
  launch.buffer(n > 0 ? indices->buffer : out->buffer).value(static_cast<cl_long>(indices->offset));
  launch.value(static_cast<cl_long>(padding_idx)).value(static_cast<cl_int>(scale_by_freq ? 1 : 0));
  return from_driver(launch.run(static_cast<uint64_t>(rows * columns)));
}
