// Strided iteration shared by the driver's and the op library's kernels: a
// linear index over the iteration shape → each operand's element offset.
// The host builds the same struct (ocl_geometry.h); both sides use 64-bit
// fields only, so the layouts agree without packing rules.
#define TFL_MAX_DIMS 12
#define TFL_OPERANDS 3

typedef struct {
  long sizes[TFL_MAX_DIMS];
  long strides[TFL_OPERANDS][TFL_MAX_DIMS];  // in elements
  long offsets[TFL_OPERANDS];                // in elements, from each buffer's start
  long ndim;
  long numel;
} Geometry;

// The element offsets of `linear` in operands 0 .. n-1.
inline void tfl_locate(const Geometry* g, long linear, int n, long* offsets) {
  for (int k = 0; k < n; ++k) offsets[k] = g->offsets[k];
  for (long d = g->ndim - 1; d >= 0; --d) {
    const long size = g->sizes[d];
    const long index = linear % size;
    linear /= size;
    for (int k = 0; k < n; ++k) offsets[k] += index * g->strides[k][d];
  }
}

// Every work-item walks the range with the grid's stride: the host may launch
// fewer items than elements.
#define TFL_FOR_EACH(i, total) for (long i = get_global_id(0); i < (total); i += get_global_size(0))
