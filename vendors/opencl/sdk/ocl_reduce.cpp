// Sums over a set of dims: the output's elements in parallel, each adding its
// block of the input sequentially (in double where the device has it, so long
// float32 sums stay as accurate as PyTorch's pairwise ones).
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsReduceSum(oclopsStream_t stream, const oclopsTensor_t* a, oclopsDims_t dims, bool keepdim,
                               const oclopsTensor_t* out) {
  if (!a || !out || a->dim > OCLOPS_MAX_DIMS) return invalid("oclopsReduceSum: missing operand");
  bool reduce[OCLOPS_MAX_DIMS] = {false};
  for (int32_t i = 0; i < dims.count; ++i) {
    const int64_t rank = a->dim == 0 ? 1 : a->dim;  // a scalar has dim 0 (or -1), as in ATen
    const int64_t dim = dims.dims[i] < 0 ? dims.dims[i] + rank : dims.dims[i];
    if (dim < 0 || dim >= rank) {
      return invalid("oclopsReduceSum: dim " + std::to_string(dims.dims[i]) + " out of range for " +
                     std::to_string(a->dim) + " dims");
    }
    if (a->dim > 0) reduce[dim] = true;
  }
  for (int32_t d = 0; d < a->dim; ++d) reduce[d] = reduce[d] || dims.count == 0;

  // kept: out's elements (out strides, and where each block starts in a); reduced: one block.
  int64_t kept_sizes[OCLOPS_MAX_DIMS], kept_out[OCLOPS_MAX_DIMS], kept_in[OCLOPS_MAX_DIMS];
  int64_t reduced_sizes[OCLOPS_MAX_DIMS], reduced_in[OCLOPS_MAX_DIMS];
  int32_t kept = 0, reduced = 0;
  const int32_t expected_out_dim = keepdim ? a->dim : a->dim - [&] {
    int32_t count = 0;
    for (int32_t d = 0; d < a->dim; ++d) count += reduce[d];
    return count;
  }();
  if (out->dim != expected_out_dim) {
    return invalid("oclopsReduceSum: out has " + std::to_string(out->dim) + " dims, expected " +
                   std::to_string(expected_out_dim));
  }
  for (int32_t d = 0, o = 0; d < a->dim; ++d) {
    if (reduce[d]) {
      reduced_sizes[reduced] = a->shape[d];
      reduced_in[reduced++] = a->stride[d];
      if (keepdim) ++o;
    } else {
      kept_sizes[kept] = a->shape[d];
      kept_in[kept] = a->stride[d];
      kept_out[kept++] = out->stride[o++];
    }
  }
  Geometry kept_geometry = make_geometry(kept, kept_sizes);
  if (kept_geometry.numel == 0) return OCLOPS_SUCCESS;
  set_operand(&kept_geometry, 0, kept_out, out->offset);
  set_operand(&kept_geometry, 1, kept_in, a->offset);
  Geometry reduced_geometry = make_geometry(reduced, reduced_sizes);
  set_operand(&reduced_geometry, 1, reduced_in, 0);

  const Device& device = device_of(stream);
  std::string compute = compute_type({out->dtype, a->dtype}, device.fp64);
  if (compute.empty()) return not_supported(std::string("oclopsReduceSum: dtype ") + element_name(a->dtype));
  if (compute == "float" && device.fp64) compute = "double";
  const std::string source = fp64_pragma(compute, {out->dtype, a->dtype}) + "#define W " + compute + "\n" +
                             element_macros("OUT", out->dtype, compute) + element_macros("A", a->dtype, compute) +
                             kIndexingSource + kReduceSource;
  return from_driver(Launch(*stream, source, "", "sum")
                         .value(kept_geometry)
                         .value(reduced_geometry)
                         .buffer(out->buffer)
                         .buffer(a->buffer)
                         .run(static_cast<uint64_t>(kept_geometry.numel)));
}
