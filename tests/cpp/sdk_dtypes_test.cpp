// sdk_dtypes.h: the glue's table from ATen dtypes to an SDK's enumerators.
#include <gtest/gtest.h>

#include <utility>

#include <torch_fl/sdk_dtypes.h>

namespace {

// An SDK enum as C headers declare them, with its own order and a "none".
enum TinyDtype { TINY_NONE, TINY_F32, TINY_F16, TINY_BF16, TINY_F64, TINY_I8, TINY_I16, TINY_I32, TINY_I64, TINY_U8,
                 TINY_BOOL, TINY_C64, TINY_C128 };

constexpr torch_fl::SdkDtypes<TinyDtype> kTiny(TINY_BOOL, TINY_U8, TINY_I8, TINY_I16, TINY_I32, TINY_I64, TINY_F16,
                                               TINY_BF16, TINY_F32, TINY_F64, TINY_C64, TINY_C128);

TEST(SdkDtypes, EachOfTheTwelveDtypesIsItsOwnEnumerator) {
  const std::pair<c10::ScalarType, TinyDtype> expected[] = {
      {c10::kBool, TINY_BOOL},        {c10::kByte, TINY_U8},           {c10::kChar, TINY_I8},
      {c10::kShort, TINY_I16},        {c10::kInt, TINY_I32},           {c10::kLong, TINY_I64},
      {c10::kHalf, TINY_F16},         {c10::kBFloat16, TINY_BF16},     {c10::kFloat, TINY_F32},
      {c10::kDouble, TINY_F64},       {c10::kComplexFloat, TINY_C64},  {c10::kComplexDouble, TINY_C128},
  };
  for (const auto& [type, sdk] : expected) EXPECT_EQ(kTiny.sdk_dtype(type), sdk) << type;
  static_assert(kTiny.sdk_dtype(c10::kFloat) == TINY_F32, "usable in constant expressions");
}

TEST(SdkDtypes, ADtypeOutsideTheTwelveHasNone) {
  for (const c10::ScalarType type : {c10::kComplexHalf, c10::kQInt8, c10::kFloat8_e4m3fn, c10::kUInt16}) {
    EXPECT_FALSE(kTiny.sdk_dtype(type).has_value()) << type;
  }
  EXPECT_EQ(kTiny.sdk_dtype(c10::kQUInt8).value_or(TINY_NONE), TINY_NONE);
}

}  // namespace
