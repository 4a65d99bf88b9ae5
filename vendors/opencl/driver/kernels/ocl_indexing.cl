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

// A bad index, reported to the host through the stream's fault record
// (ocl_fault.h): kernels that can meet one end their parameters with
// TFL_FAULT_ARGS, read 0 instead of out of bounds, and call TFL_FAULT. The
// first report wins; the host raises it at the next synchronisation.
#define TFL_FAULT_ARGS __global long* tfl_fault_record, int tfl_launch
#define TFL_FAULT(value, bound) tfl_fault(tfl_fault_record, tfl_launch, (long)(value), (long)(bound))
inline void tfl_fault(__global long* record, int launch, long value, long bound) {
  // The record: the launch's id in its first 32 bits, then the value and the bound.
  if (atomic_cmpxchg((volatile __global int*)record, 0, launch) == 0) {
    record[1] = value;
    record[2] = bound;
  }
}

// The output index whose window puts tap `tap` (taps `dilation` apart) on input
// index `at`, given the padding and stride, into *origin; false where no
// output's window does. A gather that reverses a windowed op reads these
// (col2im, max pooling's backward).
inline bool tfl_window_origin(long at, long tap, long pad, long dilation, long stride, long outputs, long* origin) {
  const long scaled = at + pad - tap * dilation;
  *origin = scaled / stride;
  return scaled >= 0 && scaled % stride == 0 && *origin < outputs;
}

// Both dims at once, for a shape `s` with the fields of ConvShape and PoolShape:
// the output (y, x) whose window puts tap (i, j) on input (h, w).
#define TFL_WINDOW_OVER(s, h, w, i, j, y, x)                                                      \
  (tfl_window_origin((h), (i), (s).pad_h, (s).dilation_h, (s).stride_h, (s).out_height, &(y)) && \
   tfl_window_origin((w), (j), (s).pad_w, (s).dilation_w, (s).stride_w, (s).out_width, &(x)))
