// For a vendor's SDK glue: an ATen dtype as the SDK's dtype enumerator. Every
// vendor's op library names the same twelve dtypes (bool, the integers, the
// floating and complex types), each in its own enum; the glue lists its
// enumerators once, in a table of this type, instead of a switch of its own,
// so a dtype the backends learn is added here for all of them.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>

namespace torch_fl {

template <class Dtype>
class SdkDtypes {
 public:
  // The SDK's enumerator for each dtype (pass its "no such dtype" one where it has none).
  constexpr SdkDtypes(Dtype boolean, Dtype uint8, Dtype int8, Dtype int16, Dtype int32, Dtype int64, Dtype float16,
                      Dtype bfloat16, Dtype float32, Dtype float64, Dtype complex64, Dtype complex128)
      : boolean_(boolean), uint8_(uint8), int8_(int8), int16_(int16), int32_(int32), int64_(int64), float16_(float16),
        bfloat16_(bfloat16), float32_(float32), float64_(float64), complex64_(complex64), complex128_(complex128) {}

  // The SDK's dtype of `type`; nullopt for a dtype outside the twelve (quantized, float8, ...).
  constexpr std::optional<Dtype> sdk_dtype(c10::ScalarType type) const {
    switch (type) {
      case c10::ScalarType::Bool: return boolean_;
      case c10::ScalarType::Byte: return uint8_;
      case c10::ScalarType::Char: return int8_;
      case c10::ScalarType::Short: return int16_;
      case c10::ScalarType::Int: return int32_;
      case c10::ScalarType::Long: return int64_;
      case c10::ScalarType::Half: return float16_;
      case c10::ScalarType::BFloat16: return bfloat16_;
      case c10::ScalarType::Float: return float32_;
      case c10::ScalarType::Double: return float64_;
      case c10::ScalarType::ComplexFloat: return complex64_;
      case c10::ScalarType::ComplexDouble: return complex128_;
      default: return std::nullopt;
    }
  }

 private:
  Dtype boolean_, uint8_, int8_, int16_, int32_, int64_;
  Dtype float16_, bfloat16_, float32_, float64_, complex64_, complex128_;
};

}  // namespace torch_fl
