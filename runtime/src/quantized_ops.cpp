// Quantized tensors on the device: a QTensorImpl whose storage is device memory
// and whose quantizer (scheme, scales, zero points) stays on the host, as on CUDA.
//
// - Quantizing and dequantizing run as ATen ops on the device (ATen's generic
//   quantize_per_tensor and dequantize call the kernel stubs registered here),
//   so every vendor computes them on its own chip, in the order CPU's kernels do.
// - Construction, the accessors, views and clones are ATen's device-generic
//   kernels; int_repr and copies are written here (all registered from
//   runtime/aten_kernels.yaml).
// - Every other quantized op runs on the CPU fallback (fallback.cpp): a spec has
//   no quantized kernels.
#include <ATen/ATen.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/quantized/AffineQuantizer.h>
#include <ATen/quantized/Quantizer.h>
#include <torch/library.h>

#include <limits>
#include <utility>
#include <vector>

#include "driver.h"

namespace torch_fl {
namespace {

bool sub_byte(at::ScalarType type) { return type == at::kQUInt4x2 || type == at::kQUInt2x4; }

int64_t bits_per_element(at::ScalarType type) { return type == at::kQUInt4x2 ? 4 : 2; }

// The integers a quantized dtype stores, as CPU's kernels clamp them.
std::pair<int64_t, int64_t> integer_range(at::ScalarType type) {
  switch (type) {
    case at::kQInt8: return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
    case at::kQUInt8: return {0, std::numeric_limits<uint8_t>::max()};
    case at::kQInt32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case at::kQUInt4x2: return {0, 15};
    case at::kQUInt2x4: return {0, 3};
    default: TORCH_CHECK(false, "[", driver().vendor, "] ", type, " is not a quantized dtype");
  }
}

// A plain tensor over a quantized tensor's memory, in the integer type it stores,
// with its sizes, strides and offset: what copies and int_repr read and write.
at::Tensor integer_view(const at::Tensor& q) {
  TORCH_CHECK(!sub_byte(q.scalar_type()), "[", driver().vendor, "] ", q.scalar_type(),
              " packs several elements in a byte: it has no integer view");
  return at::empty({0}, q.options().dtype(c10::toUnderlying(q.scalar_type())))
      .set_(q.storage(), q.storage_offset(), q.sizes(), q.strides());
}

// The packed bytes of a sub-byte quantized tensor (contiguous by construction).
at::Tensor packed_bytes(const at::Tensor& q) {
  const int64_t per_byte = 8 / bits_per_element(q.scalar_type());
  const int64_t count = (q.numel() + per_byte - 1) / per_byte;
  return at::empty({0}, q.options().dtype(at::kByte)).set_(q.storage(), 0, {count}, {1});
}

// `value` (one per channel) shaped to broadcast along dim `axis` of `like`.
at::Tensor along_axis(const at::Tensor& value, const at::Tensor& like, int64_t axis) {
  std::vector<int64_t> shape(static_cast<size_t>(like.dim()), 1);
  shape[static_cast<size_t>(axis)] = value.numel();
  return value.to(like.device()).reshape(shape);
}

// Whether this torch build's CPU quantizer adds the zero point before rounding
// (2.13's: nearbyint(zero_point + value / scale)) or after it (2.14's:
// zero_point + nearbyint(value / scale)). An odd zero point moves ties between the
// two, and the device must give CPU's integers, so the rule is read off CPU once:
// 0.05 / 0.1 is the tie 0.5, and a zero point of 1 makes it 1.5 if added first.
bool cpu_adds_zero_point_before_rounding(at::ScalarType type) {
  const auto probe = [](at::ScalarType probed) {
    const at::Tensor tie = at::full({1}, 0.05, at::TensorOptions().dtype(at::kFloat));
    return at::quantize_per_tensor(tie, 0.1, 1, probed).int_repr().item<int64_t>() == 2;
  };
  static const bool qint8 = probe(at::kQInt8), quint8 = probe(at::kQUInt8), qint32 = probe(at::kQInt32);
  return type == at::kQInt8 ? qint8 : type == at::kQUInt8 ? quint8 : qint32;
}

// The integers CPU's kernel computes from value * (1.0f / scale), in float, then
// clamped; ties round half to even (torch.round, as nearbyint).
at::Tensor quantized_integers(const at::Tensor& real, const at::Tensor& inverse_scale, const at::Tensor& zero_point,
                              at::ScalarType type) {
  const auto [low, high] = integer_range(type);
  const at::Tensor scaled = real.to(at::kFloat) * inverse_scale;
  const at::Tensor shifted = cpu_adds_zero_point_before_rounding(type)
                                 ? at::round(scaled + zero_point.to(at::kFloat))
                                 : at::round(scaled) + zero_point.to(at::kFloat);
  return shifted.to(at::kLong).clamp(low, high);
}

at::Tensor scalar_on(const at::Tensor& like, double value, at::ScalarType type) {
  return at::scalar_tensor(value, like.options().dtype(type));
}

// Sub-byte values packed as CPU packs them: element i in bits
// [(i % per_byte) * bits, ...) of byte i / per_byte. Shifts are written as products
// and quotients by powers of two: more specs have those kernels.
at::Tensor bit_positions(const at::Tensor& like, int64_t bits) {
  std::vector<int64_t> powers;
  for (int64_t shift = 0; shift < 8; shift += bits) powers.push_back(int64_t{1} << shift);
  return at::tensor(powers, at::kLong).to(like.device());
}

void pack_into(const at::Tensor& integers, const at::Tensor& q) {
  const int64_t bits = bits_per_element(q.scalar_type());
  const int64_t per_byte = 8 / bits;
  const at::Tensor bytes = packed_bytes(q);
  at::Tensor flat = integers.reshape({-1});
  flat = at::constant_pad_nd(flat, {0, bytes.numel() * per_byte - flat.numel()}, 0);
  bytes.copy_((flat.reshape({-1, per_byte}) * bit_positions(flat, bits)).sum(1).to(at::kByte));
}

at::Tensor unpack(const at::Tensor& q) {
  const int64_t bits = bits_per_element(q.scalar_type());
  const at::Tensor bytes = packed_bytes(q).to(at::kLong).unsqueeze(1);
  const at::Tensor values = at::remainder(at::div(bytes, bit_positions(bytes, bits), "floor"), 1 << bits);
  return values.reshape({-1}).narrow(0, 0, q.numel()).reshape(q.sizes());
}

void quantize_per_tensor_kernel(const at::Tensor& real, at::Tensor& q, double scale, int64_t zero_point) {
  const float inverse_scale = 1.0f / static_cast<float>(scale);
  integer_view(q).copy_(quantized_integers(real, scalar_on(real, inverse_scale, at::kFloat),
                                           scalar_on(real, static_cast<double>(zero_point), at::kLong),
                                           q.scalar_type()));
}

// CPU's: scale * (value - zero_point), the difference in integers.
void dequantize_per_tensor_kernel(const at::Tensor& q, at::Tensor& real, double scale, int64_t zero_point) {
  const at::Tensor difference = integer_view(q).to(at::kLong) - zero_point;
  real.copy_(difference.to(at::kFloat) * static_cast<float>(scale));
}

void quantize_per_channel_kernel(const at::Tensor& real, at::Tensor& q, const at::Tensor& scales,
                          const at::Tensor& zero_points, int64_t axis) {
  const at::Tensor inverse_scales = along_axis(scales, real, axis).to(at::kFloat).reciprocal();
  integer_view(q).copy_(
      quantized_integers(real, inverse_scales, along_axis(zero_points, real, axis), q.scalar_type()));
}

void dequantize_per_channel_kernel(const at::Tensor& q, at::Tensor& real, const at::Tensor& scales,
                            const at::Tensor& zero_points, int64_t axis) {
  const at::Tensor difference = integer_view(q).to(at::kLong) - along_axis(zero_points, q, axis).to(at::kLong);
  real.copy_(difference.to(at::kFloat) * along_axis(scales, q, axis).to(at::kFloat));
}

// Sub-byte dtypes take float zero points (CPU: nearbyint(value / scale) + zero_point,
// lrintf'd; a zero scale counts as 1).
void quantize_sub_byte_kernel(const at::Tensor& real, at::Tensor& q, float scale, float zero_point) {
  const float inverse_scale = scale == 0 ? 1.0f : 1.0f / scale;
  const auto [low, high] = integer_range(q.scalar_type());
  const at::Tensor shifted = at::round(real.to(at::kFloat) * inverse_scale) + zero_point;
  pack_into(at::round(shifted).to(at::kLong).clamp(low, high), q);
}

void dequantize_sub_byte_kernel(const at::Tensor& q, at::Tensor& real, float scale, float zero_point) {
  real.copy_((unpack(q).to(at::kFloat) - zero_point) * scale);
}

// Per-channel with float zero points (per_channel_affine_float_qparams: quint8 and the
// sub-byte dtypes, as embedding tables are quantized): CPU's
// lrintf(value * (1.0f / scale) + zero_point), a zero scale counting as 1.
void quantize_per_channel_float_qparams_kernel(const at::Tensor& real, at::Tensor& q, const at::Tensor& scales,
                                               const at::Tensor& zero_points, int64_t axis) {
  const auto [low, high] = integer_range(q.scalar_type());
  const at::Tensor channel_scales = along_axis(scales, real, axis).to(at::kFloat);
  const at::Tensor inverse_scales =
      at::where(channel_scales == 0, at::ones_like(channel_scales), channel_scales.reciprocal());
  const at::Tensor shifted =
      real.contiguous().to(at::kFloat) * inverse_scales + along_axis(zero_points, real, axis).to(at::kFloat);
  const at::Tensor integers = at::round(shifted).to(at::kLong).clamp(low, high);
  if (sub_byte(q.scalar_type())) {
    pack_into(integers, q);
  } else {
    integer_view(q).copy_(integers);
  }
}

void dequantize_per_channel_float_qparams_kernel(const at::Tensor& q, at::Tensor& real, const at::Tensor& scales,
                                                 const at::Tensor& zero_points, int64_t axis) {
  const at::Tensor integers = sub_byte(q.scalar_type()) ? unpack(q) : integer_view(q).to(at::kLong);
  real.copy_((integers.to(at::kFloat) - along_axis(zero_points, q, axis).to(at::kFloat)) *
             along_axis(scales, q, axis).to(at::kFloat));
}

}  // namespace

// The kernels runtime/aten_kernels.yaml registers for QuantizedPrivateUse1 besides
// ATen's own (construction, the accessors, views, clones; quantize_per_* for the
// dense key reach the stubs above).
namespace kernels {

at::Tensor quantized_int_repr(const at::Tensor& self) {
  if (sub_byte(self.scalar_type())) return packed_bytes(self).clone();  // CPU's: the packed bytes
  return at::empty(self.sizes(), self.options().dtype(c10::toUnderlying(self.scalar_type())),
                   self.suggest_memory_format())
      .copy_(integer_view(self));
}

// Copies where either side is a quantized device tensor (ATen's copy_ sends them
// here: _copy_from is how a backend outside ATen's list takes copies). The checks
// and the quantizer rule are ATen's copy_'s; the bytes move as integers.
at::Tensor quantized_copy_from(const at::Tensor& source, const at::Tensor& destination, bool non_blocking) {
  TORCH_CHECK(destination.is_quantized() || !source.is_quantized(),
              "Copying from quantized Tensor to non-quantized Tensor is not allowed, please use dequantize to get a "
              "float Tensor from a quantized Tensor");
  if (!source.is_quantized()) {
    // A real tensor into a quantized one: quantized with the destination's parameters.
    const at::Tensor real = source.to(destination.device()).expand(destination.sizes());
    const at::Tensor quantized = destination.quantizer()->quantize(real.contiguous());
    return quantized_copy_from(quantized, destination, non_blocking);
  }
  TORCH_CHECK(destination.qscheme() == source.qscheme(), "Quantized Copy only works with same qscheme");
  TORCH_CHECK(destination.scalar_type() == source.scalar_type(), "Copying from quantized Tensor of type ",
              source.scalar_type(), " to a quantized Tensor of type ", destination.scalar_type(), " is not allowed");
  at::set_quantizer_(destination, source.quantizer());
  if (sub_byte(source.scalar_type())) {
    TORCH_CHECK(destination.sizes() == source.sizes(), "[", driver().vendor, "] a copy between ",
                source.scalar_type(), " tensors needs equal sizes");
    packed_bytes(destination).copy_(packed_bytes(source), non_blocking);
  } else {
    integer_view(destination).copy_(integer_view(source), non_blocking);
  }
  return destination;
}

}  // namespace kernels

}  // namespace torch_fl

// The stubs ATen's generic quantize and dequantize call, for this device.
namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_tensor_affine_stub, &torch_fl::quantize_per_tensor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_tensor_affine_stub, &torch_fl::dequantize_per_tensor_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_channel_affine_stub, &torch_fl::quantize_per_channel_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_channel_affine_stub, &torch_fl::dequantize_per_channel_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_channel_float_qparams_stub,
                              &torch_fl::quantize_per_channel_float_qparams_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_channel_float_qparams_stub,
                              &torch_fl::dequantize_per_channel_float_qparams_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(quantize_tensor_per_tensor_affine_sub_byte_stub, &torch_fl::quantize_sub_byte_kernel)
REGISTER_PRIVATEUSE1_DISPATCH(dequantize_tensor_per_tensor_affine_sub_byte_stub, &torch_fl::dequantize_sub_byte_kernel)
}  // namespace at::native
