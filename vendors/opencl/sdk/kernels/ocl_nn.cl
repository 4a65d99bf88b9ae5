// Losses and normalisation over contiguous operands (offsets in elements). The
// host prepends W, the element macros (OUT, A: the input, B: weight, C: bias or
// the second output, G: a gradient, S: statistics, I: indices) and the kernel's
// name as a macro; only that kernel is compiled.
#ifdef NLL_LOSS
// per_sample (reduction none of a batch): one work-item per sample, total_weight 0;
// otherwise one work-item sums them all (a single sample, reduction none included,
// reports its weight as total_weight, as CPU does).
__kernel void nll_loss(long n, long c, int reduction, int per_sample, long ignore_index, int has_weight,
                       __global TOUT* out, long out_offset, __global TC* total_weight, long tw_offset,
                       __global const TA* self, long self_offset, __global const TI* target, long target_offset,
                       __global const TB* weight, long weight_offset, TFL_FAULT_ARGS) {
  const long items = per_sample ? n : 1;
  TFL_FOR_EACH(i, items) {
    W loss = 0, weights = 0;
    const long first = per_sample ? i : 0, last = per_sample ? i + 1 : n;
    for (long k = first; k < last; ++k) {
      const long t = (long)target[target_offset + k];
      if (t == ignore_index) continue;
      if (t < 0 || t >= c) {
        TFL_FAULT(t, c);
        continue;
      }
      const W w = has_weight ? LOAD_B(weight, weight_offset + t) : (W)1;
      loss -= w * LOAD_A(self, self_offset + k * c + t);
      weights += w;
    }
    if (per_sample) {
      STORE_OUT(out, out_offset + i, loss);
      if (i == 0) STORE_C(total_weight, tw_offset, (W)0);
    } else {
      STORE_OUT(out, out_offset, reduction == 1 ? loss / weights : loss);
      STORE_C(total_weight, tw_offset, weights);
    }
  }
}
#endif

#ifdef NLL_LOSS_BACKWARD
// One work-item per element (sample k, class j) of the gradient.
__kernel void nll_loss_backward(long n, long c, int reduction, long ignore_index, int has_weight,
                                __global TOUT* grad_input, long gi_offset, __global const TG* grad, long grad_offset,
                                long grad_stride, __global const TC* total_weight, long tw_offset,
                                __global const TI* target, long target_offset, __global const TB* weight,
                                long weight_offset, TFL_FAULT_ARGS) {
  TFL_FOR_EACH(i, n * c) {
    const long k = i / c, j = i % c;
    const long t = (long)target[target_offset + k];
    if (j == 0 && t != ignore_index && (t < 0 || t >= c)) TFL_FAULT(t, c);
    W value = 0;
    if (j == t && t != ignore_index) {
      const W w = has_weight ? LOAD_B(weight, weight_offset + t) : (W)1;
      const W g = LOAD_G(grad, grad_offset + (reduction == 0 ? k * grad_stride : 0));
      value = -w * g;
      if (reduction == 1) value /= LOAD_C(total_weight, tw_offset);
    }
    STORE_OUT(grad_input, gi_offset + i, value);
  }
}
#endif

#ifdef LAYER_NORM
// One work-item per row.
__kernel void layer_norm(long rows, long cols, W eps, int has_weight, int has_bias, __global TOUT* out,
                         long out_offset, __global TS* mean, long mean_offset, __global TS* rstd, long rstd_offset,
                         __global const TA* x, long x_offset, __global const TB* weight, long weight_offset,
                         __global const TC* bias, long bias_offset) {
  TFL_FOR_EACH(i, rows) {
    const long row = x_offset + i * cols;
    W sum = 0;
    for (long j = 0; j < cols; ++j) sum += LOAD_A(x, row + j);
    const W mu = sum / (W)cols;
    W squares = 0;
    for (long j = 0; j < cols; ++j) {
      const W d = LOAD_A(x, row + j) - mu;
      squares += d * d;
    }
    const W r = (W)1 / sqrt(squares / (W)cols + eps);
    for (long j = 0; j < cols; ++j) {
      W y = (LOAD_A(x, row + j) - mu) * r;
      if (has_weight) y *= LOAD_B(weight, weight_offset + j);
      if (has_bias) y += LOAD_C(bias, bias_offset + j);
      STORE_OUT(out, out_offset + i * cols + j, y);
    }
    STORE_S(mean, mean_offset + i, mu);
    STORE_S(rstd, rstd_offset + i, r);
  }
}
#endif

#ifdef LAYER_NORM_BACKWARD_INPUT
// One work-item per row: dx = rstd * (g w - mean(g w) - xhat mean(g w xhat)).
__kernel void layer_norm_backward_input(long rows, long cols, int has_weight, __global TOUT* grad_x, long gx_offset,
                                        __global const TG* grad, long grad_offset, __global const TA* x,
                                        long x_offset, __global const TS* mean, long mean_offset,
                                        __global const TS* rstd, long rstd_offset, __global const TB* weight,
                                        long weight_offset) {
  TFL_FOR_EACH(i, rows) {
    const W mu = LOAD_S(mean, mean_offset + i), r = LOAD_S(rstd, rstd_offset + i);
    W a = 0, b = 0;
    for (long j = 0; j < cols; ++j) {
      const W gw = LOAD_G(grad, grad_offset + i * cols + j) * (has_weight ? LOAD_B(weight, weight_offset + j) : (W)1);
      a += gw;
      b += gw * (LOAD_A(x, x_offset + i * cols + j) - mu) * r;
    }
    a /= (W)cols;
    b /= (W)cols;
    for (long j = 0; j < cols; ++j) {
      const W gw = LOAD_G(grad, grad_offset + i * cols + j) * (has_weight ? LOAD_B(weight, weight_offset + j) : (W)1);
      const W xhat = (LOAD_A(x, x_offset + i * cols + j) - mu) * r;
      STORE_OUT(grad_x, gx_offset + i * cols + j, r * (gw - a - xhat * b));
    }
  }
}
#endif

#ifdef LAYER_NORM_BACKWARD_PARAMS
// One work-item per column: grad_weight = sum of g xhat, grad_bias = sum of g (OUT: both).
__kernel void layer_norm_backward_params(long rows, long cols, int want_weight, int want_bias,
                                         __global TOUT* grad_weight, long gw_offset, __global TOUT* grad_bias,
                                         long gb_offset, __global const TG* grad, long grad_offset,
                                         __global const TA* x, long x_offset, __global const TS* mean,
                                         long mean_offset, __global const TS* rstd, long rstd_offset) {
  TFL_FOR_EACH(j, cols) {
    W gw = 0, gb = 0;
    for (long i = 0; i < rows; ++i) {
      const W g = LOAD_G(grad, grad_offset + i * cols + j);
      const W xhat = (LOAD_A(x, x_offset + i * cols + j) - LOAD_S(mean, mean_offset + i)) * LOAD_S(rstd, rstd_offset + i);
      gw += g * xhat;
      gb += g;
    }
    if (want_weight) STORE_OUT(grad_weight, gw_offset + j, gw);
    if (want_bias) STORE_OUT(grad_bias, gb_offset + j, gb);
  }
}
#endif
