// Batch normalization, one work-item per channel: `kept` iterates the channels
// (operand 0: out or the input's gradient, 1: the input, 2: the output's
// gradient, each at the start of its channel), `reduced` the batch and spatial
// positions within one channel. Sums run in W (double where the device has it).
// Absent tensors are NULL and never read (flags say which are present).
#define BN_TRAINING 1
#define BN_WEIGHT 2
#define BN_BIAS 4
#define BN_RUNNING 8
#define BN_GRAD_INPUT 16
#define BN_GRAD_WEIGHT 32
#define BN_GRAD_BIAS 64

// Where channel c of each per-channel vector lies: offset + c * stride (elements).
typedef struct {
  long offset[8];
  long stride[8];
} Vectors;
#define V_WEIGHT 0
#define V_BIAS 1
#define V_RUNNING_MEAN 2
#define V_RUNNING_VAR 3
#define V_SAVE_MEAN 4
#define V_SAVE_INVSTD 5
#define V_GRAD_WEIGHT 6
#define V_GRAD_BIAS 7
#define AT(k) (v.offset[k] + c * v.stride[k])

// out = (x - mean) * invstd * weight + bias, with the batch's statistics
// (saved, and folded into the running ones) when training, else the running ones.
__kernel void batch_norm(Geometry kept, Geometry reduced, Vectors v, __global TOUT* out, __global const TA* x,
                         __global const TP* weight, __global const TP* bias, __global TR* running_mean,
                         __global TR* running_var, __global TS* save_mean, __global TS* save_invstd, W momentum,
                         W eps, int flags) {
  long at[2], inner[2];
  TFL_FOR_EACH(c, kept.numel) {
    tfl_locate(&kept, c, 2, at);
    const long count = reduced.numel;
    W mean, invstd;
    if (flags & BN_TRAINING) {
      W total = 0;
      for (long j = 0; j < count; ++j) {
        tfl_locate(&reduced, j, 2, inner);
        total += LOAD_A(x, at[1] + inner[1]);
      }
      mean = total / count;
      W squares = 0;  // about the mean: no cancellation
      for (long j = 0; j < count; ++j) {
        tfl_locate(&reduced, j, 2, inner);
        const W d = LOAD_A(x, at[1] + inner[1]) - mean;
        squares += d * d;
      }
      invstd = (W)1 / sqrt(squares / count + eps);
      STORE_S(save_mean, AT(V_SAVE_MEAN), mean);
      STORE_S(save_invstd, AT(V_SAVE_INVSTD), invstd);
      if (flags & BN_RUNNING) {
        STORE_R(running_mean, AT(V_RUNNING_MEAN),
                momentum * mean + ((W)1 - momentum) * LOAD_R(running_mean, AT(V_RUNNING_MEAN)));
        STORE_R(running_var, AT(V_RUNNING_VAR),
                momentum * (squares / (count - 1)) + ((W)1 - momentum) * LOAD_R(running_var, AT(V_RUNNING_VAR)));
      }
    } else {
      mean = LOAD_R(running_mean, AT(V_RUNNING_MEAN));
      invstd = (W)1 / sqrt(LOAD_R(running_var, AT(V_RUNNING_VAR)) + eps);
    }
    const W scale = (flags & BN_WEIGHT) ? LOAD_P(weight, AT(V_WEIGHT)) * invstd : invstd;
    const W shift = (flags & BN_BIAS) ? LOAD_P(bias, AT(V_BIAS)) : (W)0;
    for (long j = 0; j < count; ++j) {
      tfl_locate(&reduced, j, 2, inner);
      STORE_OUT(out, at[0] + inner[0], (LOAD_A(x, at[1] + inner[1]) - mean) * scale + shift);
    }
  }
}

// The gradients of batch_norm: the weight's is sum(dy * (x - mean)) * invstd, the
// bias's sum(dy); the input's, when training, also flows through the statistics.
__kernel void batch_norm_backward(Geometry kept, Geometry reduced, Vectors v, __global TOUT* grad_input, __global const TA* x,
                                  __global const TB* grad_out, __global const TP* weight,
                                  __global const TR* running_mean, __global const TR* running_var,
                                  __global const TS* save_mean, __global const TS* save_invstd,
                                  __global TP* grad_weight, __global TP* grad_bias, W eps, int flags) {
  long at[3], inner[3];
  TFL_FOR_EACH(c, kept.numel) {
    tfl_locate(&kept, c, 3, at);
    const long count = reduced.numel;
    const bool training = flags & BN_TRAINING;
    const W mean = training ? LOAD_S(save_mean, AT(V_SAVE_MEAN)) : LOAD_R(running_mean, AT(V_RUNNING_MEAN));
    const W invstd = training ? LOAD_S(save_invstd, AT(V_SAVE_INVSTD))
                              : (W)1 / sqrt(LOAD_R(running_var, AT(V_RUNNING_VAR)) + eps);
    W sum_dy = 0, dot = 0;
    for (long j = 0; j < count; ++j) {
      tfl_locate(&reduced, j, 3, inner);
      const W dy = LOAD_B(grad_out, at[2] + inner[2]);
      sum_dy += dy;
      dot += dy * (LOAD_A(x, at[1] + inner[1]) - mean);
    }
    if (flags & BN_GRAD_WEIGHT) STORE_P(grad_weight, AT(V_GRAD_WEIGHT), dot * invstd);
    if (flags & BN_GRAD_BIAS) STORE_P(grad_bias, AT(V_GRAD_BIAS), sum_dy);
    if (flags & BN_GRAD_INPUT) {
      const W w = (flags & BN_WEIGHT) ? LOAD_P(weight, AT(V_WEIGHT)) : (W)1;
      const W mean_dy = training ? sum_dy / count : (W)0;
      const W k = training ? dot * invstd * invstd / count : (W)0;
      for (long j = 0; j < count; ++j) {
        tfl_locate(&reduced, j, 3, inner);
        const W dy = LOAD_B(grad_out, at[2] + inner[2]);
        const W centred = LOAD_A(x, at[1] + inner[1]) - mean;
        STORE_OUT(grad_input, at[0] + inner[0], (dy - mean_dy - centred * k) * invstd * w);
      }
    }
  }
}
