// Random numbers from a counter-based generator: element i of a call draws from
// (seed, offset, counter), with no state carried between elements, so the
// numbers depend on the generator's seed and offset alone (not on how work-items
// are scheduled) and a call repeats after manual_seed. `i` is the element's
// position in the output's logical order, whatever its strides.

// splitmix64's finaliser over a sum of the three inputs, 64 well-mixed bits.
// The sum carries splitmix64's increment, so seed 0, offset 0, element 0 (what
// manual_seed(0) gives first) does not hash 0 to 0: a normal would be exactly 0.
inline ulong tfl_random_bits(ulong seed, ulong offset, ulong counter) {
  ulong z = seed * 0xBF58476D1CE4E5B9UL + offset * 0xD1B54A32D192ED03UL + (counter + 1) * 0x9E3779B97F4A7C15UL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
  return z ^ (z >> 31);
}

// A uniform number in [0, 1) with as many bits as W's mantissa holds (24 or 53),
// so that rounding never reaches 1.
inline W tfl_uniform(ulong seed, ulong offset, ulong counter) {
  const ulong bits = tfl_random_bits(seed, offset, counter);
#ifdef TFL_COMPUTE_DOUBLE
  return (W)(bits >> 11) * (W)1.1102230246251565e-16;  // 2^-53
#else
  return (W)(bits >> 40) * (W)5.9604644775390625e-8;   // 2^-24
#endif
}

#ifdef RANDOM_UNIFORM
// out = low + (high - low) * u
__kernel void random_fill(Geometry g, __global TOUT* out, W low, W high, ulong seed, ulong offset) {
  long at[1];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 1, at);
    STORE_OUT(out, at[0], low + (high - low) * tfl_uniform(seed, offset, (ulong)i));
  }
}
#endif

#ifdef RANDOM_NORMAL
// out = mean + std * z, z standard normal by Box-Muller from two uniforms.
__kernel void random_fill(Geometry g, __global TOUT* out, W mean, W std, ulong seed, ulong offset) {
  long at[1];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 1, at);
    const W u1 = (W)1 - tfl_uniform(seed, offset, 2 * (ulong)i);  // (0, 1]: log stays finite
    const W u2 = tfl_uniform(seed, offset, 2 * (ulong)i + 1);
    const W z = sqrt((W)-2 * log(u1)) * cos((W)6.283185307179586 * u2);
    STORE_OUT(out, at[0], mean + std * z);
  }
}
#endif

#ifdef DROPOUT
// Operands: 0 out, 1 x, 2 mask (bool). Each element is kept with probability
// 1 - p; out = x * mask * scale as ATen computes it (a NaN stays NaN where it
// is dropped; scale is 0 when p is 1).
__kernel void dropout(Geometry g, __global TOUT* out, __global const TA* x, __global uchar* mask, W p, W scale,
                      ulong seed, ulong offset) {
  long at[3];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    const uchar keep = tfl_uniform(seed, offset, (ulong)i) >= p;
    mask[at[2]] = keep;
    STORE_OUT(out, at[0], LOAD_A(x, at[1]) * (W)keep * scale);
  }
}
#endif

#ifdef DROPOUT_BACKWARD
// Operands: 0 out, 1 grad, 2 mask (bool): out = grad * mask * scale.
__kernel void dropout_backward(Geometry g, __global TOUT* out, __global const TA* grad, __global const uchar* mask,
                               W scale) {
  long at[3];
  TFL_FOR_EACH(i, g.numel) {
    tfl_locate(&g, i, 3, at);
    STORE_OUT(out, at[0], LOAD_A(grad, at[1]) * (W)mask[at[2]] * scale);
  }
}
#endif
