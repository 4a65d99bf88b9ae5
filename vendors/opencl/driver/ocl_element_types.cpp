#include "ocl_element_types.h"

namespace torch_fl::ocl {
namespace {

const char* storage_type(ElementType type) {
  switch (type) {
    case ElementType::kBool: case ElementType::kU8: return "uchar";
    case ElementType::kI8: return "char";
    case ElementType::kI16: return "short";
    case ElementType::kI32: return "int";
    case ElementType::kI64: return "long";
    case ElementType::kF16: return "half";  // declared only; read and written by vload/vstore_half
    case ElementType::kBF16: return "ushort";
    case ElementType::kF32: return "float";
    case ElementType::kF64: return "double";
    case ElementType::kC64: return "float2";
    case ElementType::kC128: return "double2";
  }
  return "uchar";
}

const char* bits_type(size_t size) {
  switch (size) {
    case 1: return "uchar";
    case 2: return "ushort";
    case 4: return "uint";
    case 8: return "ulong";
    default: return "ulong2";
  }
}

}  // namespace

size_t element_size(ElementType type) {
  switch (type) {
    case ElementType::kBool: case ElementType::kU8: case ElementType::kI8: return 1;
    case ElementType::kI16: case ElementType::kF16: case ElementType::kBF16: return 2;
    case ElementType::kI32: case ElementType::kF32: return 4;
    case ElementType::kI64: case ElementType::kF64: case ElementType::kC64: return 8;
    case ElementType::kC128: return 16;
  }
  return 1;
}

const char* element_name(ElementType type) {
  static const char* const names[] = {"bool",    "uint8",    "int8",    "int16",   "int32",     "int64",
                                      "float16", "bfloat16", "float32", "float64", "complex64", "complex128"};
  return names[static_cast<int32_t>(type)];
}

bool is_floating(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16 || type == ElementType::kF32 ||
         type == ElementType::kF64;
}

bool is_complex(ElementType type) { return type == ElementType::kC64 || type == ElementType::kC128; }

std::string compute_type(std::initializer_list<ElementType> types, bool fp64) {
  bool floating = false, wide = false;
  for (ElementType type : types) {
    if (is_complex(type) || (type == ElementType::kF64 && !fp64)) return "";
    floating = floating || is_floating(type);
    wide = wide || type == ElementType::kF64;
  }
  if (!floating) return "long";
  return wide ? "double" : "float";
}

namespace {

// Element i of p (a real type) as `compute`.
std::string load_real(ElementType type, const std::string& compute) {
  switch (type) {
    case ElementType::kBool: return "((" + compute + ")((p)[i] != 0))";
    case ElementType::kF16: return "((" + compute + ")vload_half((i), (p)))";
    case ElementType::kBF16: return "((" + compute + ")as_float(((uint)(p)[i]) << 16))";
    default: return "((" + compute + ")(p)[i])";
  }
}

// Element i of p (a real type) = value.
std::string store_real(ElementType type, const std::string& value) {
  switch (type) {
    case ElementType::kBool: return "((p)[i] = (uchar)((" + value + ") != 0))";
    case ElementType::kF16: return "vstore_half_rte((float)(" + value + "), (i), (p))";
    case ElementType::kBF16: return "((p)[i] = tfl_to_bfloat16((float)(" + value + ")))";
    default: return std::string("((p)[i] = (") + storage_type(type) + ")(" + value + "))";
  }
}

std::string macros(const std::string& name, ElementType type, const std::string& load, const std::string& store) {
  std::string text = "#define T" + name + " " + storage_type(type) + "\n#define LOAD_" + name + "(p, i) " + load +
                     "\n#define STORE_" + name + "(p, i, v) " + store + "\n";
  if (type == ElementType::kBF16) {
    // Round to nearest even, as PyTorch's float → bfloat16; NaN stays a quiet NaN.
    text += "#ifndef TFL_BF16\n#define TFL_BF16\ninline ushort tfl_to_bfloat16(float f) {\n"
            "  uint u = as_uint(f);\n  if (isnan(f)) return (ushort)0x7fc0;\n"
            "  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n}\n#endif\n";
  }
  return text;
}

}  // namespace

std::string element_macros(const char* name, ElementType type, const std::string& compute) {
  return macros(name, type, load_real(type, compute), store_real(type, "v"));
}

std::string complex_compute_type(std::initializer_list<ElementType> types, bool fp64) {
  bool wide = false;
  for (ElementType type : types) {
    wide = wide || type == ElementType::kF64 || type == ElementType::kC128 || type == ElementType::kI64;
  }
  if (wide && !fp64) return "";
  return wide ? "double2" : "float2";
}

std::string complex_macros(const char* name, ElementType type, const std::string& compute) {
  const std::string scalar = compute.substr(0, compute.size() - 1);  // "double2" → "double"
  if (is_complex(type)) {
    return macros(name, type, "convert_" + compute + "((p)[i])",
                  std::string("((p)[i] = convert_") + storage_type(type) + "(v))");
  }
  // A real value is the real part; a complex one stored as real keeps only it, as in
  // PyTorch, except as bool, which is true when either part is not zero.
  const std::string store = type == ElementType::kBool ? "((p)[i] = (uchar)((v).x != 0 || (v).y != 0))"
                                                       : store_real(type, "(v).x");
  return macros(name, type, "((" + compute + ")(" + load_real(type, scalar) + ", 0))", store);
}

std::string bits_macros(const char* name, ElementType type) {
  const std::string n = name;
  const char* bits = bits_type(element_size(type));
  return "#define T" + n + " " + bits + "\n#define LOAD_" + n + "(p, i) ((p)[i])\n#define STORE_" + n +
         "(p, i, v) ((p)[i] = (v))\n";
}

std::string fp64_pragma(const std::string& compute, std::initializer_list<ElementType> types) {
  bool needs = compute.rfind("double", 0) == 0;  // double or double2
  for (ElementType type : types) needs = needs || type == ElementType::kF64 || type == ElementType::kC128;
  return needs ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
}

}  // namespace torch_fl::ocl
