// Data movement. The host prepends W, the element macros of OUT and A, TI (the
// index type) and the kernel's name as a macro; only that kernel is compiled.
#ifdef ARANGE
__kernel void arange(long numel, long out_offset, long out_stride, __global TOUT* out, W start, W step) {
  TFL_FOR_EACH(i, numel) STORE_OUT(out, out_offset + i * out_stride, start + (W)i * step);
}
#endif

#ifdef INDEX_SELECT
// g: operand 0 out, operand 1 a without dim (stride 0 there), operand 2 the index
// (index_select: its stride along dim only; gather: shaped like out). An index
// out of range, a negative one included, is a fault (as CPU raises for both).
__kernel void index_select(Geometry g, __global TOUT* out, __global const TA* a, __global const TI* index,
                           long a_stride, long a_size, TFL_FAULT_ARGS) {
  long at[3];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    const long k = (long)index[at[2]];
    const int inside = k >= 0 && k < a_size;
    if (!inside) TFL_FAULT(k, a_size);
    STORE_OUT(out, at[0], inside ? LOAD_A(a, at[1] + k * a_stride) : (W)0);
  }
}
#endif

#ifdef TRIANGLE
// g iterates out's shape (at least 2-D); a column's and a row's place come from the linear index.
__kernel void triangle(Geometry g, __global TOUT* out, __global const TA* a, long diagonal, int lower) {
  long at[2];
  const long columns = g.sizes[g.ndim - 1], rows = g.sizes[g.ndim - 2];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 2, at);
    const long column = i % columns, row = (i / columns) % rows;
    const int keep = lower ? column - row <= diagonal : column - row >= diagonal;
    STORE_OUT(out, at[0], keep ? LOAD_A(a, at[1]) : (W)0);
  }
}
#endif

#ifdef EMBEDDING_BACKWARD
// One work-item per element of out (row w, column d), summing in the order of n
// as the CPU does.
__kernel void embedding_backward(long rows, long columns, long n, __global TOUT* out, long out_offset,
                                 __global const TA* grad, long grad_offset, __global const TI* indices,
                                 long indices_offset, long padding_idx, int scale_by_freq) {
  TFL_FOR_EACH(i, rows * columns) {
    const long w = i / columns, d = i % columns;
    W total = 0;
    long count = 0;
    if (w != padding_idx) {
      for (long j = 0; j < n; ++j) {
        if ((long)indices[indices_offset + j] == w) {
          total += LOAD_A(grad, grad_offset + j * columns + d);
          ++count;
        }
      }
    }
    if (scale_by_freq && count > 0) total /= (W)count;
    STORE_OUT(out, out_offset + i, total);
  }
}
#endif
