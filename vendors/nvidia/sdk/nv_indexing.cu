// Index kernels (index_select, the embedding's gradient) and cat, which is a copy
// per input into its slice of the result.
#include "nv_element_bodies.cuh"

using namespace nvops;

extern "C" {

nvopsStatus_t nvopsIndexSelect(cudaStream_t stream, const nvopsTensor_t* x, int64_t dim, const nvopsTensor_t* index,
                               const nvopsTensor_t* out) {
  if (!x || !index || !out || x->dtype != out->dtype || element_size(x->dtype) == 0 || !index_type(index->dtype) ||
      index->dim > 1) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                "nvopsIndexSelect: x and result of one dtype, and a 1-D int32 or int64 index");
  }
  const int32_t rank = x->dim == 0 ? 1 : x->dim;  // a 0-dim x is seen as 1-D of one element
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || out->dim != x->dim) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsIndexSelect: dim out of range");
  }
  const int64_t selected = index->dim == 0 ? 1 : index->shape[0];
  IndexSelectBody body{};
  body.walk.dim = rank;
  for (int d = 0; d < rank; ++d) {
    const int64_t out_size = x->dim == 0 ? 1 : out->shape[d];
    const int64_t expected = d == dim ? selected : (x->dim == 0 ? 1 : x->shape[d]);
    if (out_size != expected) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsIndexSelect: result shape mismatch");
    body.walk.shape[d] = out_size;
    body.walk.stride[0][d] = x->dim == 0 ? 0 : out->stride[d];
    body.walk.stride[1][d] = d == dim || x->dim == 0 ? 0 : x->stride[d];
  }
  const int64_t n = numel(*out);
  if (n == 0) return NVOPS_SUCCESS;
  NVOPS_ENTER(stream, "nvopsIndexSelect");
  body.dim = static_cast<int32_t>(dim);
  body.x_dim_size = x->dim == 0 ? 1 : x->shape[dim];
  body.x_dim_stride = x->dim == 0 ? 0 : x->stride[dim];
  body.index = index->data, body.index_type = index->dtype, body.index_stride = index->dim == 0 ? 0 : index->stride[0];
  body.out = out->data, body.x = x->data, body.bytes = element_size(x->dtype);
  return launch_each(stream, n, body, "nvopsIndexSelect");
}

nvopsStatus_t nvopsEmbeddingBackward(cudaStream_t stream, const nvopsTensor_t* grad, const nvopsTensor_t* indices,
                                     int64_t padding_idx, const nvopsTensor_t* out) {
  if (!grad || !indices || !out || grad->dtype != NVOPS_F32 || out->dtype != NVOPS_F32 || out->dim != 2 ||
      !row_major(*grad) || !row_major(*out) || !row_major(*indices) || !index_type(indices->dtype) ||
      grad->dim != indices->dim + 1 || grad->shape[grad->dim - 1] != out->shape[1]) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT,
                "nvopsEmbeddingBackward: contiguous float32 grad (indices' shape x width) and result "
                "(rows x width), contiguous int32 or int64 indices");
  }
  NVOPS_ENTER(stream, "nvopsEmbeddingBackward");
  if (const nvopsStatus_t status = nvopsFill(stream, out, 0.0); status != NVOPS_SUCCESS) return status;
  EmbeddingBackwardBody body{};
  body.width = out->shape[1], body.rows = out->shape[0], body.padding_idx = padding_idx;
  body.grad = static_cast<const float*>(grad->data);
  body.indices = indices->data, body.index_type = indices->dtype;
  body.out = static_cast<float*>(out->data);
  return launch_each(stream, numel(*grad), body, "nvopsEmbeddingBackward");
}

nvopsStatus_t nvopsCat(cudaStream_t stream, nvopsTensorList_t tensors, int64_t dim, const nvopsTensor_t* out) {
  if (!out || tensors.count < 0 || (tensors.count > 0 && !tensors.tensors) || out->dim == 0) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCat: a list of inputs and a result of at least 1 dim");
  }
  if (dim < 0) dim += out->dim;
  if (dim < 0 || dim >= out->dim) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCat: dim out of range");
  // Check every input before the first copy: a refused call writes nothing.
  int64_t total = 0;
  for (int32_t i = 0; i < tensors.count; ++i) {
    const nvopsTensor_t& t = tensors.tensors[i];
    if (t.dim == 1 && t.shape[0] == 0) continue;  // ATen skips 1-D empty inputs
    bool fits = t.dim == out->dim && element_size(t.dtype) != 0;
    for (int d = 0; fits && d < out->dim; ++d) fits = d == dim || t.shape[d] == out->shape[d];
    if (!fits) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCat: input " + std::to_string(i) + " does not fit the result");
    total += t.shape[dim];
  }
  if (total != out->shape[dim]) return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsCat: the inputs do not fill the result");
  NVOPS_ENTER(stream, "nvopsCat");
  int64_t offset = 0;
  for (int32_t i = 0; i < tensors.count; ++i) {
    const nvopsTensor_t& t = tensors.tensors[i];
    if (t.dim == 1 && t.shape[0] == 0) continue;
    nvopsTensor_t slice = *out;
    slice.shape[dim] = t.shape[dim];
    slice.data = static_cast<char*>(out->data) + offset * out->stride[dim] * static_cast<int64_t>(element_size(out->dtype));
    offset += t.shape[dim];
    if (numel(slice) == 0) continue;
    if (const nvopsStatus_t status = nvopsCopy(stream, &slice, &t); status != NVOPS_SUCCESS) return status;
  }
  return NVOPS_SUCCESS;
}

}  // extern "C"
