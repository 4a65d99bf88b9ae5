// The host side of kernels/ocl_indexing.cl's Geometry: where each operand's
// elements lie for one iteration shape. Kernels take it by value.
#pragma once

#include <CL/cl.h>

#include <cstdint>

namespace torch_fl::ocl {

constexpr int kMaxDims = 12;
constexpr int kOperands = 3;

struct Geometry {
  cl_long sizes[kMaxDims];
  cl_long strides[kOperands][kMaxDims];
  cl_long offsets[kOperands];
  cl_long ndim;
  cl_long numel;
};
static_assert(sizeof(Geometry) == 8 * (kMaxDims * (1 + kOperands) + kOperands + 2),
              "Geometry must match kernels/ocl_indexing.cl field for field");

// A geometry of `ndim` sizes with every operand's strides and offsets zero.
Geometry make_geometry(int32_t ndim, const int64_t* sizes);
// Operand `k` reads or writes with `strides` (elements) from element `offset`.
void set_operand(Geometry* geometry, int k, const int64_t* strides, int64_t offset);

}  // namespace torch_fl::ocl
