// 2-D pooling over the planes of an N x C x H x W (or C x H x W) tensor, any
// strides. Forward kernels run one work-item per output element; backward ones
// one per input element, gathering the output positions whose window holds it
// (no atomics), as col2im does.
typedef struct {
  long channels, height, width, out_height, out_width;
  long kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  long in_n, in_c, in_h, in_w, in_offset;          // the input (or its gradient)
  long out_n, out_c, out_h, out_w, out_offset;     // the output (or its gradient)
  long index_n, index_c, index_h, index_w, index_offset;  // max pooling's indices
  long count_include_pad, divisor;                 // average pooling (divisor 0: none given)
} PoolShape;

#define IN_AT(s, n, c, h, w) ((s).in_offset + (n) * (s).in_n + (c) * (s).in_c + (h) * (s).in_h + (w) * (s).in_w)
#define OUT_AT(s, n, c, y, x) ((s).out_offset + (n) * (s).out_n + (c) * (s).out_c + (y) * (s).out_h + (x) * (s).out_w)
#define INDEX_AT(s, n, c, y, x) \
  ((s).index_offset + (n) * (s).index_n + (c) * (s).index_c + (y) * (s).index_h + (x) * (s).index_w)

// Output element `i` as (n, c, y, x).
#define SPLIT_OUT(s, i, n, c, y, x)                                        \
  const long x = (i) % (s).out_width, y = ((i) / (s).out_width) % (s).out_height; \
  const long c = ((i) / ((s).out_width * (s).out_height)) % (s).channels;  \
  const long n = (i) / ((s).out_width * (s).out_height * (s).channels)
#define SPLIT_IN(s, i, n, c, h, w)                                         \
  const long w = (i) % (s).width, h = ((i) / (s).width) % (s).height;      \
  const long c = ((i) / ((s).width * (s).height)) % (s).channels;          \
  const long n = (i) / ((s).width * (s).height * (s).channels)

// The maximum of each window and where it is (h * W + w in the plane), NaN
// winning as in PyTorch; the index starts at the window's first valid element.
__kernel void max_pool(PoolShape s, long total, __global TOUT* out, __global long* indices, __global const TA* in) {
  TFL_FOR_EACH(i, total) {
    SPLIT_OUT(s, i, n, c, y, x);
    long h0 = y * s.stride_h - s.pad_h, w0 = x * s.stride_w - s.pad_w;
    while (h0 < 0) h0 += s.dilation_h;
    while (w0 < 0) w0 += s.dilation_w;
    const long h1 = min(y * s.stride_h - s.pad_h + (s.kernel_h - 1) * s.dilation_h + 1, s.height);
    const long w1 = min(x * s.stride_w - s.pad_w + (s.kernel_w - 1) * s.dilation_w + 1, s.width);
    W best = -INFINITY;
    long where = h0 * s.width + w0;
    for (long h = h0; h < h1; h += s.dilation_h) {
      for (long w = w0; w < w1; w += s.dilation_w) {
        const W v = LOAD_A(in, IN_AT(s, n, c, h, w));
        if (v > best || isnan(v)) {
          best = v;
          where = h * s.width + w;
        }
      }
    }
    STORE_OUT(out, OUT_AT(s, n, c, y, x), best);
    indices[INDEX_AT(s, n, c, y, x)] = where;
  }
}

// grad_input[h, w] = the sum of grad_output over the windows whose maximum it was.
__kernel void max_pool_backward(PoolShape s, long total, __global TOUT* grad_input, __global const long* indices,
                                __global const TA* grad_output) {
  TFL_FOR_EACH(i, total) {
    SPLIT_IN(s, i, n, c, h, w);
    W sum = 0;
    for (long a = 0; a < s.kernel_h; ++a) {
      for (long b = 0; b < s.kernel_w; ++b) {
        long y, x;
        if (!TFL_WINDOW_OVER(s, h, w, a, b, y, x)) continue;
        if (indices[INDEX_AT(s, n, c, y, x)] == h * s.width + w) sum += LOAD_A(grad_output, OUT_AT(s, n, c, y, x));
      }
    }
    STORE_OUT(grad_input, IN_AT(s, n, c, h, w), sum);
  }
}

// The window of output (y, x) clipped to the input, and what its sum is divided by.
inline long avg_window(const PoolShape* s, long y, long x, long* h0, long* h1, long* w0, long* w1) {
  *h0 = y * s->stride_h - s->pad_h;
  *w0 = x * s->stride_w - s->pad_w;
  *h1 = min(*h0 + s->kernel_h, s->height + s->pad_h);
  *w1 = min(*w0 + s->kernel_w, s->width + s->pad_w);
  const long padded = (*h1 - *h0) * (*w1 - *w0);
  *h0 = max(*h0, 0L);
  *w0 = max(*w0, 0L);
  *h1 = min(*h1, s->height);
  *w1 = min(*w1, s->width);
  if (s->divisor != 0) return s->divisor;
  return s->count_include_pad ? padded : (*h1 - *h0) * (*w1 - *w0);
}

__kernel void avg_pool(PoolShape s, long total, __global TOUT* out, __global const TA* in) {
  TFL_FOR_EACH(i, total) {
    SPLIT_OUT(s, i, n, c, y, x);
    long h0, h1, w0, w1;
    const long divide_by = avg_window(&s, y, x, &h0, &h1, &w0, &w1);
    W sum = 0;
    for (long h = h0; h < h1; ++h) {
      for (long w = w0; w < w1; ++w) sum += LOAD_A(in, IN_AT(s, n, c, h, w));
    }
    STORE_OUT(out, OUT_AT(s, n, c, y, x), sum / (W)divide_by);
  }
}

__kernel void avg_pool_backward(PoolShape s, long total, __global TOUT* grad_input, __global const TA* grad_output) {
  TFL_FOR_EACH(i, total) {
    SPLIT_IN(s, i, n, c, h, w);
    W sum = 0;
    for (long a = 0; a < s.kernel_h; ++a) {
      const long ys = h + s.pad_h - a;
      if (ys < 0 || ys % s.stride_h != 0 || ys / s.stride_h >= s.out_height) continue;
      for (long b = 0; b < s.kernel_w; ++b) {
        const long xs = w + s.pad_w - b;
        if (xs < 0 || xs % s.stride_w != 0 || xs / s.stride_w >= s.out_width) continue;
        const long y = ys / s.stride_h, x = xs / s.stride_w;
        long h0, h1, w0, w1;
        const long divide_by = avg_window(&s, y, x, &h0, &h1, &w0, &w1);
        if (h >= h0 && h < h1 && w >= w0 && w < w1) sum += LOAD_A(grad_output, OUT_AT(s, n, c, y, x)) / (W)divide_by;
      }
    }
    STORE_OUT(grad_input, IN_AT(s, n, c, h, w), sum);
  }
}

// Adaptive windows: [floor(y * H / OH), ceil((y + 1) * H / OH)).
inline long adaptive_start(long y, long out_size, long size) { return (y * size) / out_size; }
inline long adaptive_end(long y, long out_size, long size) { return ((y + 1) * size + out_size - 1) / out_size; }

__kernel void adaptive_avg_pool(PoolShape s, long total, __global TOUT* out, __global const TA* in) {
  TFL_FOR_EACH(i, total) {
    SPLIT_OUT(s, i, n, c, y, x);
    const long h0 = adaptive_start(y, s.out_height, s.height), h1 = adaptive_end(y, s.out_height, s.height);
    const long w0 = adaptive_start(x, s.out_width, s.width), w1 = adaptive_end(x, s.out_width, s.width);
    W sum = 0;
    for (long h = h0; h < h1; ++h) {
      for (long w = w0; w < w1; ++w) sum += LOAD_A(in, IN_AT(s, n, c, h, w));
    }
    STORE_OUT(out, OUT_AT(s, n, c, y, x), sum / (W)((h1 - h0) * (w1 - w0)));
  }
}

__kernel void adaptive_avg_pool_backward(PoolShape s, long total, __global TOUT* grad_input,
                                         __global const TA* grad_output) {
  TFL_FOR_EACH(i, total) {
    SPLIT_IN(s, i, n, c, h, w);
    W sum = 0;
    for (long y = 0; y < s.out_height; ++y) {
      const long h0 = adaptive_start(y, s.out_height, s.height), h1 = adaptive_end(y, s.out_height, s.height);
      if (h < h0 || h >= h1) continue;
      for (long x = 0; x < s.out_width; ++x) {
        const long w0 = adaptive_start(x, s.out_width, s.width), w1 = adaptive_end(x, s.out_width, s.width);
        if (w >= w0 && w < w1) sum += LOAD_A(grad_output, OUT_AT(s, n, c, y, x)) / (W)((h1 - h0) * (w1 - w0));
      }
    }
    STORE_OUT(grad_input, IN_AT(s, n, c, h, w), sum);
  }
}
