// Elementwise kernels over strided, broadcast operands (Geometry: operand 0 is
// out, then the inputs). The host prepends W (the compute type), the element
// macros of OUT, A, B and C, kernels/ocl_math.cl and the op: UNARY_OP(x, p0, p1,
// p2) (also a binary op with a scalar y, passed as p0), BINARY_OP(x, y, p0, p1),
// TERNARY_OP(x, y, z, p0) or FILL; only the kernel whose op is defined is compiled.
#ifdef BINARY_OP
__kernel void binary(Geometry g, __global TOUT* out, __global const TA* a, __global const TB* b, W p0, W p1) {
  long at[3];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    const W x = LOAD_A(a, at[1]);
    const W y = LOAD_B(b, at[2]);
    STORE_OUT(out, at[0], BINARY_OP(x, y, p0, p1));
  }
}
#endif

#ifdef TERNARY_OP
// A Geometry has three operands (and kernel arguments are limited to 1 KiB on
// some devices): c's strides come as a second one, its operand 0.
__kernel void ternary(Geometry g, Geometry h, __global TOUT* out, __global const TA* a, __global const TB* b,
                      __global const TC* c, W p0) {
  long at[3], at_c[1];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    tfl_locate(&h, i, 1, at_c);
    const W x = LOAD_A(a, at[1]);
    const W y = LOAD_B(b, at[2]);
    const W z = LOAD_C(c, at_c[0]);
    STORE_OUT(out, at[0], TERNARY_OP(x, y, z, p0));
  }
}
#endif

#ifdef UNARY_OP
__kernel void unary(Geometry g, __global TOUT* out, __global const TA* a, W p0, W p1, W p2) {
  long at[2];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 2, at);
    const W x = LOAD_A(a, at[1]);
    STORE_OUT(out, at[0], UNARY_OP(x, p0, p1, p2));
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
