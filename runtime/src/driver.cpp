#include "driver.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <string>

namespace torch_fl {

const TflDriver& driver() {
  static const TflDriver* table = [] {
    const TflDriver* t = torch_fl_vendor_driver();
    TORCH_CHECK(t != nullptr, "torch_fl: the vendor library returned no driver table");
    TORCH_CHECK(t->abi_version == TFL_DRIVER_ABI_VERSION, "torch_fl: vendor '", t->vendor,
                "' implements driver ABI version ", t->abi_version, ", this runtime needs ", TFL_DRIVER_ABI_VERSION);
    return t;
  }();
  return *table;
}

void check_driver(tflStatus status, const char* what) {
  if (status == TFL_SUCCESS) return;
  const TflDriver& d = driver();
  const char* driver_detail = d.last_error_detail ? d.last_error_detail() : nullptr;
  const std::string detail = driver_detail ? driver_detail : "";
  TORCH_CHECK(false, "[", d.vendor, "] ", what, " failed: ", d.status_string(status),
              detail.empty() ? "" : " (", detail, detail.empty() ? "" : ")");
}

tflDtype driver_dtype(c10::ScalarType type) {
  switch (type) {
    case c10::ScalarType::Bool: return TFL_DTYPE_BOOL;
    case c10::ScalarType::Byte: return TFL_DTYPE_UINT8;
    case c10::ScalarType::Char: return TFL_DTYPE_INT8;
    case c10::ScalarType::Short: return TFL_DTYPE_INT16;
    case c10::ScalarType::Int: return TFL_DTYPE_INT32;
    case c10::ScalarType::Long: return TFL_DTYPE_INT64;
    case c10::ScalarType::Half: return TFL_DTYPE_FLOAT16;
    case c10::ScalarType::BFloat16: return TFL_DTYPE_BFLOAT16;
    case c10::ScalarType::Float: return TFL_DTYPE_FLOAT32;
    case c10::ScalarType::Double: return TFL_DTYPE_FLOAT64;
    case c10::ScalarType::ComplexFloat: return TFL_DTYPE_COMPLEX64;
    case c10::ScalarType::ComplexDouble: return TFL_DTYPE_COMPLEX128;
    default:
      TORCH_CHECK_TYPE(false, "[", driver().vendor, "] the device cannot hold tensors of dtype ", type);
  }
}

uint64_t device_scalar_types(int32_t device) {
  constexpr int kDevices = 64;
  static std::atomic<uint64_t> masks[kDevices] = {};  // 0: not asked yet (Bool is always set)
  if (device < 0 || device >= kDevices) return ~uint64_t{0};
  uint64_t mask = masks[device].load(std::memory_order_relaxed);
  if (mask != 0) return mask;
  const uint32_t computed = driver().device_dtypes(device);
  mask = ~uint64_t{0};
  for (int type = 0; type < static_cast<int>(c10::ScalarType::NumOptions); ++type) {
    const auto scalar_type = static_cast<c10::ScalarType>(type);
    tflDtype code;
    switch (scalar_type) {
      case c10::ScalarType::Half: code = TFL_DTYPE_FLOAT16; break;
      case c10::ScalarType::BFloat16: code = TFL_DTYPE_BFLOAT16; break;
      case c10::ScalarType::Float: code = TFL_DTYPE_FLOAT32; break;
      case c10::ScalarType::Double: code = TFL_DTYPE_FLOAT64; break;
      case c10::ScalarType::ComplexFloat: code = TFL_DTYPE_COMPLEX64; break;
      case c10::ScalarType::ComplexDouble: code = TFL_DTYPE_COMPLEX128; break;
      default: continue;  // integers and bool: every device computes them
    }
    if (!((computed >> code) & 1u)) mask &= ~(uint64_t{1} << type);
  }
  masks[device].store(mask, std::memory_order_relaxed);
  return mask;
}

}  // namespace torch_fl
