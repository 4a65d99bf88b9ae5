// Element types as OpenCL C sees them: how a kernel stores each of PyTorch's
// dtypes and converts it to and from the type it computes in.
//
// Kernels are specialised per dtype by macros the host prepends to their
// source (so the program cache keys on them): T<NAME> is the storage type,
// LOAD_<NAME>(p, i) reads element i as the compute type, STORE_<NAME>(p, i, v)
// writes one. float16 goes through vload_half/vstore_half, which OpenCL has
// without cl_khr_fp16 (PoCL lacks it); bfloat16 is the upper half of a float.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace torch_fl::ocl {

enum class ElementType : int32_t { kBool, kU8, kI8, kI16, kI32, kI64, kF16, kBF16, kF32, kF64, kC64, kC128 };

size_t element_size(ElementType type);
const char* element_name(ElementType type);  // "float32", ...
bool is_floating(ElementType type);
bool is_complex(ElementType type);

// The type a kernel computes in for these operands, as PyTorch's opmath type:
// "long" when all are integral (exact for every integer), "double" when one is
// float64, else "float" (float16 and bfloat16 compute in float too). Empty when
// a complex operand, or float64 on a device without fp64, rules the kernel out.
std::string compute_type(std::initializer_list<ElementType> types, bool fp64);

// T<name>, LOAD_<name> and STORE_<name> for `type` computed as `compute`.
std::string element_macros(const char* name, ElementType type, const std::string& compute);

// Casts through complex numbers: the compute type "float2" or "double2" (empty
// when float64 is needed without fp64), and the macros of any type in it.
std::string complex_compute_type(std::initializer_list<ElementType> types, bool fp64);
std::string complex_macros(const char* name, ElementType type, const std::string& compute);

// The same three macros moving raw bits (a copy between equal dtypes: any type,
// complex included, with no arithmetic).
std::string bits_macros(const char* name, ElementType type);

// The extension pragma a source needs when it names double.
std::string fp64_pragma(const std::string& compute, std::initializer_list<ElementType> types);

}  // namespace torch_fl::ocl
