// dst[i] = cast(src[i]) over two strided views of one shape. The host prepends
// the element macros (TDST, TSRC, LOAD_SRC, STORE_DST: ocl_element_types.h).
__kernel void copy_strided(Geometry g, __global TDST* dst, __global const TSRC* src) {
  long at[2];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 2, at);
    STORE_DST(dst, at[0], LOAD_SRC(src, at[1]));
  }
}
