#include "ocl_geometry.h"

#include <cstring>

namespace torch_fl::ocl {

Geometry make_geometry(int32_t ndim, const int64_t* sizes) {
  Geometry geometry;
  std::memset(&geometry, 0, sizeof(geometry));
  geometry.ndim = ndim;
  geometry.numel = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    geometry.sizes[d] = sizes[d];
    geometry.numel *= sizes[d];
  }
  return geometry;
}

void set_operand(Geometry* geometry, int k, const int64_t* strides, int64_t offset) {
  for (int64_t d = 0; d < geometry->ndim; ++d) geometry->strides[k][d] = strides[d];
  geometry->offsets[k] = offset;
}

}  // namespace torch_fl::ocl
