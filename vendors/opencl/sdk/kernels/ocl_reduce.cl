// Reductions. `kept` iterates the output (operand 0: out, operand 1: the input at
// the start of its reduced block, operand 2: a second output or input); `reduced`
// iterates one block (each operand's strides along the reduced dims). One
// work-item per output element, accumulating in W. The host prepends the op:
// REDUCE_INIT, REDUCE_STEP(acc, v, p), REDUCE_FINISH(acc, n, p) (REDUCE_CENTERED,
// REDUCE_SHIFT_BY_MAX: v is taken from a shift), ARG_BETTER(v, best), or SOFTMAX / SOFTMAX_BACKWARD
// with LOG_SOFTMAX for the log form, or SCAN_INIT and SCAN_STEP(acc, v).
#ifdef REDUCE_STEP
#ifndef TFL_INTEGRAL
// A vector norm's order p, decided per step (p is a kernel argument, not a macro,
// so one program serves every order).
inline W tfl_norm_init(W p) { return p == -(W)INFINITY ? (W)INFINITY : (W)0; }
inline W tfl_norm_step(W acc, W v, W p) {
  const W m = fabs(v);
  if (p == (W)INFINITY) return isnan(m) || m > acc ? m : acc;
  if (p == -(W)INFINITY) return isnan(m) || m < acc ? m : acc;
  if (p == 0) return acc + (W)(m != 0);
  if (p == 1) return acc + m;
  if (p == 2) return acc + m * m;
  return acc + pow(m, p);
}
inline W tfl_norm_finish(W acc, W p) {
  if (isinf(p) || p == 0 || p == 1) return acc;
  if (p == 2) return sqrt(acc);
  return pow(acc, (W)1 / p);
}
#endif

__kernel void reduce(Geometry kept, Geometry reduced, __global TOUT* out, __global const TA* a, W p) {
  long at[2], inner[2];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 2, at);
    // v is taken from a shift: the block's mean (REDUCE_CENTERED: var, std) or its
    // largest finite value (REDUCE_SHIFT_BY_MAX: logsumexp, so exp cannot overflow).
#if defined(REDUCE_CENTERED)
    W shift = 0;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      shift += LOAD_A(a, at[1] + inner[1]);
    }
    shift /= (W)reduced.numel;
#elif defined(REDUCE_SHIFT_BY_MAX)
    W shift = -(W)INFINITY;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      const W v = LOAD_A(a, at[1] + inner[1]);
      shift = isnan(v) || v > shift ? v : shift;
    }
    if (isinf(shift)) shift = 0;  // as CPU: all -inf gives -inf, an inf gives inf (or NaN)
#else
    const W shift = 0;
#endif
    W acc = REDUCE_INIT;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      const W v = LOAD_A(a, at[1] + inner[1]) - shift;
      acc = REDUCE_STEP(acc, v, p);
    }
    STORE_OUT(out, at[0], REDUCE_FINISH(acc, reduced.numel, p));
  }
}
#endif

#ifdef ARG_BETTER
// values (operand 0) may be absent: WRITE_VALUES is defined when it is there.
__kernel void arg_reduce(Geometry kept, Geometry reduced, __global TOUT* values, __global const TA* a,
                         __global long* indices) {
  long at[3], inner[2];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 3, at);
    W best = 0;
    long best_index = 0;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      const W v = LOAD_A(a, at[1] + inner[1]);
      if (j == 0 || ARG_BETTER(v, best)) {
        best = v;
        best_index = j;
      }
    }
#ifdef WRITE_VALUES
    STORE_OUT(values, at[0], best);
#endif
    indices[at[2]] = best_index;
  }
}
#endif

// The scan and softmax kernels below: out (operand 0) and a (operand 1) have
// the same shape; `reduced` walks dim.
#ifdef SCAN_STEP
__kernel void scan(Geometry kept, Geometry reduced, __global TOUT* out, __global const TA* a) {
  long at[2], inner[2];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 2, at);
    W acc = SCAN_INIT;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      acc = SCAN_STEP(acc, LOAD_A(a, at[1] + inner[1]));
      STORE_OUT(out, at[0] + inner[0], acc);
    }
  }
}
#endif

#ifdef SOFTMAX
__kernel void softmax(Geometry kept, Geometry reduced, __global TOUT* out, __global const TA* a) {
  long at[2], inner[2];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 2, at);
    W max_value = -(W)INFINITY;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      const W v = LOAD_A(a, at[1] + inner[1]);
      max_value = isnan(v) || v > max_value ? v : max_value;
    }
    W total = 0;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      total += exp(LOAD_A(a, at[1] + inner[1]) - max_value);
    }
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      const W shifted = LOAD_A(a, at[1] + inner[1]) - max_value;
#ifdef LOG_SOFTMAX
      STORE_OUT(out, at[0] + inner[0], shifted - log(total));
#else
      STORE_OUT(out, at[0] + inner[0], exp(shifted) / total);
#endif
    }
  }
}
#endif

#ifdef SOFTMAX_BACKWARD
// out (operand 0), grad (1) and the forward's output (2) have the same shape.
__kernel void softmax_backward(Geometry kept, Geometry reduced, __global TOUT* out, __global const TA* grad,
                               __global const TB* output) {
  long at[3], inner[3];
  TFL_FOR_EACH(i, kept.numel) {
    tfl_locate(&kept, i, 3, at);
    W total = 0;
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 3, inner);
#ifdef LOG_SOFTMAX
      total += LOAD_A(grad, at[1] + inner[1]);
#else
      total += LOAD_A(grad, at[1] + inner[1]) * LOAD_B(output, at[2] + inner[2]);
#endif
    }
    for (long j = 0; j < reduced.numel; ++j) {
      tfl_locate(&reduced, j, 3, inner);
      const W g = LOAD_A(grad, at[1] + inner[1]);
      const W y = LOAD_B(output, at[2] + inner[2]);
#ifdef LOG_SOFTMAX
      STORE_OUT(out, at[0] + inner[0], g - exp(y) * total);
#else
      STORE_OUT(out, at[0] + inner[0], y * (g - total));
#endif
    }
  }
}
#endif
