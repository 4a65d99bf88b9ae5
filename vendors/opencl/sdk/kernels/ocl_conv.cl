// Convolution as matrix products (im2col): one (batch element, group) at a time,
// the host turns the input's patches into a column matrix, multiplies it by the
// weights on CLBlast, and for the input's gradient folds the columns back.
// Sizes are those of one group; 1-D convolutions have height 1.
typedef struct {
  long channels, height, width;            // of the input (one group)
  long out_height, out_width;
  long kernel_h, kernel_w;
  long stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  long channel_stride, row_stride, column_stride;  // of the image tensor, in elements
  long offset;                                     // where this (n, group) starts in it
} ConvShape;

// col[(c * kh + i) * kw + j][y * out_w + x] = image[c][y * sh - ph + i * dh][x * sw - pw + j * dw], 0 outside.
__kernel void im2col(ConvShape s, __global TOUT* col, __global const TA* image) {
  const long positions = s.out_height * s.out_width;
  const long taps = s.kernel_h * s.kernel_w;
  TFL_FOR_EACH(index, s.channels * taps * positions) {
    const long row = index / positions, position = index % positions;
    const long c = row / taps, i = (row / s.kernel_w) % s.kernel_h, j = row % s.kernel_w;
    const long h = (position / s.out_width) * s.stride_h - s.pad_h + i * s.dilation_h;
    const long w = (position % s.out_width) * s.stride_w - s.pad_w + j * s.dilation_w;
    const bool inside = h >= 0 && h < s.height && w >= 0 && w < s.width;
    STORE_OUT(col, index, inside ? LOAD_A(image, s.offset + c * s.channel_stride + h * s.row_stride +
                                                     w * s.column_stride)
                                 : (W)0);
  }
}

// The inverse gather: each image element is the sum of the column entries it was
// copied to (no atomics: one work-item per image element).
__kernel void col2im(ConvShape s, __global TOUT* image, __global const TA* col) {
  const long positions = s.out_height * s.out_width;
  TFL_FOR_EACH(index, s.channels * s.height * s.width) {
    const long c = index / (s.height * s.width), h = (index / s.width) % s.height, w = index % s.width;
    W total = 0;
    for (long i = 0; i < s.kernel_h; ++i) {
      for (long j = 0; j < s.kernel_w; ++j) {
        long y, x;
        if (!TFL_WINDOW_OVER(s, h, w, i, j, y, x)) continue;
        const long row = (c * s.kernel_h + i) * s.kernel_w + j;
        total += LOAD_A(col, row * positions + y * s.out_width + x);
      }
    }
    STORE_OUT(image, s.offset + c * s.channel_stride + h * s.row_stride + w * s.column_stride, total);
  }
}
