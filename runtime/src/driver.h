// Access to the vendor driver (see driver_abi.h) and its status checks.
#pragma once

#include <c10/core/ScalarType.h>

#include <torch_fl/driver_abi.h>

namespace torch_fl {

// The vendor's driver table; validated once (ABI version) on first use.
const TflDriver& driver();

// Raises RuntimeError "[vendor] <what>: <vendor message> (<detail>)" unless ok.
void check_driver(tflStatus status, const char* what);

// The driver's dtype code for a c10 ScalarType; raises for types it cannot move.
tflDtype driver_dtype(c10::ScalarType type);

// The ScalarTypes `device` computes, as bits (1 << ScalarType), from the driver's
// device_dtypes; asked once per device. Types the driver has no code for stay set:
// the spec alone decides them.
uint64_t device_scalar_types(int32_t device);

}  // namespace torch_fl

#define TORCH_FL_DRIVER_CHECK(call) ::torch_fl::check_driver((call), #call)
