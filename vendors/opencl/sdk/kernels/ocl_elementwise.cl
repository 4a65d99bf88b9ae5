// Elementwise kernels over strided, broadcast operands (Geometry: operand 0 is
// out, then the inputs). The host prepends W (the compute type), the element
// macros of OUT, A and B, and the op: BINARY_OP(x, y, alpha), UNARY_OP(x) or
// FILL; only the kernel whose op is defined is compiled.
#ifdef BINARY_OP
__kernel void binary(Geometry g, __global TOUT* out, __global const TA* a, __global const TB* b, W alpha) {
  long at[3];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    const W x = LOAD_A(a, at[1]);
    const W y = LOAD_B(b, at[2]);
    STORE_OUT(out, at[0], BINARY_OP(x, y, alpha));
  }
}
#endif

#ifdef UNARY_OP
__kernel void unary(Geometry g, __global TOUT* out, __global const TA* a) {
  long at[2];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 2, at);
    const W x = LOAD_A(a, at[1]);
    STORE_OUT(out, at[0], UNARY_OP(x));
  }
}
#endif

#ifdef FILL
__kernel void fill(Geometry g, __global TOUT* out, W value) {
  long at[1];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 1, at);
    STORE_OUT(out, at[0], value);
  }
}
#endif
