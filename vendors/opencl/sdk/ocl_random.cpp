// Random fills and dropout: kernels/ocl_random.cl, specialised for the output's
// dtype and computed in float (double for float64 outputs, which get 53 random
// bits). The generator's (seed, offset) comes with each call (oclopsRandState_t).
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

namespace {

// W and TFL_COMPUTE_DOUBLE for a kernel whose result is `type`, with the element
// macros of each operand; empty when the device cannot compute it.
std::string random_prelude(oclopsStream_t stream, oclopsDtype_t type, const oclopsTensor_t* a, std::string* compute) {
  *compute = compute_type({type}, device_of(stream).fp64);
  if (compute->empty() || !is_floating(type)) return "";
  std::string macros = fp64_pragma(*compute, {type, a ? a->dtype : type}) + "#define W " + *compute + "\n";
  if (*compute == "double") macros += "#define TFL_COMPUTE_DOUBLE\n";
  macros += element_macros("OUT", type, *compute);
  if (a) macros += element_macros("A", a->dtype, *compute);
  return macros;
}

template <typename Value>
Launch& push_pair(Launch& launch, const std::string& compute, Value first, Value second) {
  if (compute == "double") return launch.value(static_cast<cl_double>(first)).value(static_cast<cl_double>(second));
  return launch.value(static_cast<cl_float>(first)).value(static_cast<cl_float>(second));
}

Launch& push_state(Launch& launch, oclopsRandState_t state) {
  return launch.value(static_cast<cl_ulong>(state.seed)).value(static_cast<cl_ulong>(state.offset));
}

// The iteration over out (operand 0), with `others` broadcast into operands 1, 2.
bool iterate(const oclopsTensor_t& out, std::initializer_list<const oclopsTensor_t*> others, Geometry* geometry) {
  *geometry = make_geometry(out.dim, out.shape);
  set_operand(geometry, 0, out.stride, out.offset);
  int k = 1;
  for (const oclopsTensor_t* other : others) {
    if (!broadcast_into(geometry, k++, *other)) return false;
  }
  return true;
}

// What every op here does: kernel `name` (the part of kernels/ocl_random.cl that
// `variant` selects) over out, with `others` broadcast into it (`mismatch`: the
// error when they do not) and its arguments the geometry, out's and the others'
// buffers, then what `arguments` adds in the compute type. The first other is
// the operand whose dtype the kernel reads.
template <typename Arguments>
oclopsStatus_t run_random(const char* op, oclopsStream_t stream, const char* name, const char* variant,
                          const oclopsTensor_t& out, std::initializer_list<const oclopsTensor_t*> others,
                          const char* mismatch, Arguments arguments) {
  Geometry geometry;
  if (!iterate(out, others, &geometry)) return invalid(mismatch);
  if (geometry.numel == 0) return OCLOPS_SUCCESS;
  std::string compute;
  const oclopsTensor_t* read = others.size() > 0 ? *others.begin() : nullptr;
  const std::string prelude = random_prelude(stream, out.dtype, read, &compute);
  if (prelude.empty()) return not_supported(std::string(op) + ": dtype " + element_name(out.dtype));
  Launch launch(*stream, prelude + "#define " + variant + "\n" + kIndexingSource + kRandomSource, "", name);
  launch.value(geometry).buffer(out.buffer);
  for (const oclopsTensor_t* other : others) launch.buffer(other->buffer);
  return from_driver(arguments(launch, compute).run(static_cast<uint64_t>(geometry.numel)));
}

}  // namespace

oclopsStatus_t oclopsRandom(oclopsStream_t stream, oclopsRandomKind_t kind, double a, double b,
                            oclopsRandState_t state, const oclopsTensor_t* out) {
  if (!out || out->dim > OCLOPS_MAX_DIMS) return invalid("oclopsRandom: out must be a tensor of at most 12 dims");
  if (kind == OCLOPS_RANDOM_NORMAL && !(b >= 0)) return invalid("oclopsRandom: std must be >= 0, got " + std::to_string(b));
  if (kind == OCLOPS_RANDOM_UNIFORM && !(a <= b)) return invalid("oclopsRandom: uniform needs from <= to");
  const char* variant = kind == OCLOPS_RANDOM_NORMAL ? "RANDOM_NORMAL" : "RANDOM_UNIFORM";
  return run_random("oclopsRandom", stream, "random_fill", variant, *out, {}, "",
                    [&](Launch& launch, const std::string& compute) -> Launch& {
                      return push_state(push_pair(launch, compute, a, b), state);
                    });
}

oclopsStatus_t oclopsDropout(oclopsStream_t stream, const oclopsTensor_t* x, double p, bool train,
                             oclopsRandState_t state, const oclopsTensor_t* out, const oclopsTensor_t* mask) {
  if (!x || !out || !mask || out->dim > OCLOPS_MAX_DIMS) return invalid("oclopsDropout: missing operand");
  if (!(p >= 0 && p <= 1)) return invalid("oclopsDropout: p must lie in [0, 1], got " + std::to_string(p));
  if (mask->dtype != torch_fl::ocl::ElementType::kBool) return invalid("oclopsDropout: the mask must be bool");
  if (!train) p = 0;  // evaluation: every element kept, unscaled
  const double scale = p == 1 ? 0.0 : 1.0 / (1.0 - p);
  return run_random("oclopsDropout", stream, "dropout", "DROPOUT", *out, {x, mask},
                    "oclopsDropout: x and mask must have out's shape",
                    [&](Launch& launch, const std::string& compute) -> Launch& {
                      return push_state(push_pair(launch, compute, p, scale), state);
                    });
}

oclopsStatus_t oclopsDropoutBackward(oclopsStream_t stream, const oclopsTensor_t* grad, const oclopsTensor_t* mask,
                                     double scale, const oclopsTensor_t* out) {
  if (!grad || !out || !mask || out->dim > OCLOPS_MAX_DIMS) return invalid("oclopsDropoutBackward: missing operand");
  if (mask->dtype != torch_fl::ocl::ElementType::kBool) return invalid("oclopsDropoutBackward: the mask must be bool");
  return run_random("oclopsDropoutBackward", stream, "dropout_backward", "DROPOUT_BACKWARD", *out, {grad, mask},
                    "oclopsDropoutBackward: grad and mask must broadcast to out",
                    [&](Launch& launch, const std::string& compute) -> Launch& {
                      if (compute == "double") return launch.value(static_cast<cl_double>(scale));
                      return launch.value(static_cast<cl_float>(scale));
                    });
}
