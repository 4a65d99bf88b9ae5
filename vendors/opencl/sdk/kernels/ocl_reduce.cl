// Sums over some dims. `kept` iterates the output (operand 0: out, operand 1:
// the input at the start of its reduced block); `reduced` iterates one block
// (operand 1: the input's strides along the reduced dims). One work-item per
// output element, accumulating in W.
__kernel void sum(Geometry kept, Geometry reduced, __global TOUT* out, __global const TA* a) {
  long at[2], inner[2];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 2, at);
    W total = 0;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      total += LOAD_A(a, at[1] + inner[1]);
    }
    STORE_OUT(out, at[0], total);
  }
}
