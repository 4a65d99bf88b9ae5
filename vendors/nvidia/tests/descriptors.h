// Tensor descriptors for the op library's tests: contiguous unless strides are given.
#pragma once

#include <cstdint>
#include <vector>

#include "nv_ops.h"

inline nvopsTensor_t described(void* data, nvopsDtype_t dtype, std::vector<int64_t> shape,
                               std::vector<int64_t> strides = {}) {
  nvopsTensor_t t{};
  t.data = data;
  t.dtype = dtype;
  t.dim = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int d = t.dim - 1; d >= 0; --d) {
    t.shape[d] = shape[d];
    t.stride[d] = strides.empty() ? stride : strides[d];
    stride *= shape[d];
  }
  return t;
}
