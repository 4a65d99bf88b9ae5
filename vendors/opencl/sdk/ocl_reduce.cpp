// Reductions, arg-reductions and softmax: the output's elements in parallel, each
// walking its block of the input (kernels/ocl_reduce.cl), over two geometries
// that Split builds from the dims.
#include <string>

#include "ocl_launch.h"
#include "ocl_ops_internal.h"

namespace torch_fl::ocl::ops {
namespace {

// `kept` iterates the output, `reduced` one block. Operand 1 is the input; operands
// 0 and 2 are either reduced results (out's shape: kept dims only, or with the
// reduced ones as 1) or, `full`, tensors of the input's shape (softmax's).
struct Split {
  Geometry kept{};
  Geometry reduced{};
};

oclopsStatus_t split(const char* fn, const oclopsTensor_t& a, oclopsDims_t dims, bool keepdim,
                     const oclopsTensor_t* first, const oclopsTensor_t* third, bool full, Split* s) {
  if (a.dim > OCLOPS_MAX_DIMS) return invalid(std::string(fn) + ": too many dims");
  bool reduce[OCLOPS_MAX_DIMS] = {false};
  const int64_t rank = a.dim == 0 ? 1 : a.dim;  // a scalar has dim 0 (or -1), as in ATen
  for (int32_t i = 0; i < dims.count; ++i) {
    const int64_t dim = dims.dims[i] < 0 ? dims.dims[i] + rank : dims.dims[i];
    if (dim < 0 || dim >= rank) {
      return invalid(std::string(fn) + ": dim " + std::to_string(dims.dims[i]) + " out of range for " +
                     std::to_string(a.dim) + " dims");
    }
    if (a.dim > 0) reduce[dim] = true;
  }
  int32_t reduced_count = 0;
  for (int32_t d = 0; d < a.dim; ++d) {
    reduce[d] = reduce[d] || dims.count == 0;
    reduced_count += reduce[d];
  }
  const int32_t expected = full || keepdim ? a.dim : a.dim - reduced_count;
  const oclopsTensor_t* others[2] = {first, third};
  for (const oclopsTensor_t* other : others) {
    if (other && other->dim != expected) {
      return invalid(std::string(fn) + ": a result has " + std::to_string(other->dim) + " dims, expected " +
                     std::to_string(expected));
    }
  }
  int64_t kept_sizes[OCLOPS_MAX_DIMS], reduced_sizes[OCLOPS_MAX_DIMS];
  int64_t kept_strides[3][OCLOPS_MAX_DIMS] = {}, reduced_strides[3][OCLOPS_MAX_DIMS] = {};
  int32_t kept = 0, reduced = 0;
  for (int32_t d = 0, o = 0; d < a.dim; ++d) {
    const int32_t at = full ? d : o;  // where dim d is in operands 0 and 2
    if (reduce[d]) {
      reduced_sizes[reduced] = a.shape[d];
      reduced_strides[1][reduced] = a.stride[d];
      for (int k = 0; k < 2; ++k) {
        if (others[k] && full) reduced_strides[k * 2][reduced] = others[k]->stride[at];
      }
      ++reduced;
      if (keepdim) ++o;
    } else {
      kept_sizes[kept] = a.shape[d];
      kept_strides[1][kept] = a.stride[d];
      for (int k = 0; k < 2; ++k) {
        if (others[k]) kept_strides[k * 2][kept] = others[k]->stride[at];
      }
      ++kept;
      ++o;
    }
  }
  s->kept = make_geometry(kept, kept_sizes);
  s->reduced = make_geometry(reduced, reduced_sizes);
  for (int k = 0; k < 3; ++k) {
    const oclopsTensor_t* operand = k == 1 ? &a : others[k / 2];
    set_operand(&s->kept, k, kept_strides[k], operand ? operand->offset : 0);
    set_operand(&s->reduced, k, reduced_strides[k], 0);
  }
  return OCLOPS_SUCCESS;
}

// The accumulation type: double for floating point where the device has it.
oclopsStatus_t accumulator(const char* fn, oclopsStream_t stream, std::initializer_list<ElementType> types,
                           std::string* compute) {
  const Device& device = device_of(stream);
  *compute = compute_type(types, device.fp64);
  if (compute->empty()) return not_supported(std::string(fn) + ": a dtype without a kernel on " + device.name);
  if (*compute == "float" && device.fp64) *compute = "double";
  return OCLOPS_SUCCESS;
}

std::string prelude(const std::string& compute, const oclopsTensor_t& out, const oclopsTensor_t& a,
                    const oclopsTensor_t* b) {
  std::string text = fp64_pragma(compute, {out.dtype, a.dtype}) + "#define W " + compute + "\n";
  if (compute == "long") text += "#define TFL_INTEGRAL\n";
  text += element_macros("OUT", out.dtype, compute) + element_macros("A", a.dtype, compute);
  if (b) text += element_macros("B", b->dtype, compute);
  return text;
}

const char* reduce_macros(oclopsReduceOp_t op, bool integral) {
  // (acc, v, p) step; (acc, n, p) finish. NaN wins amax/amin, as in PyTorch.
  switch (op) {
    case OCLOPS_REDUCE_SUM: return "#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) ((acc) + (v))\n"
                                   "#define REDUCE_FINISH(acc, n, p) (acc)\n";
    case OCLOPS_REDUCE_PROD: return "#define REDUCE_INIT 1\n#define REDUCE_STEP(acc, v, p) ((acc) * (v))\n"
                                    "#define REDUCE_FINISH(acc, n, p) (acc)\n";
    case OCLOPS_REDUCE_MEAN:
      return integral ? nullptr
                      : "#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) ((acc) + (v))\n"
                        "#define REDUCE_FINISH(acc, n, p) ((acc) / (W)(n))\n";
    case OCLOPS_REDUCE_AMAX:
      return integral ? "#define REDUCE_INIT LONG_MIN\n#define REDUCE_STEP(acc, v, p) max((acc), (v))\n"
                        "#define REDUCE_FINISH(acc, n, p) (acc)\n"
                      : "#define REDUCE_INIT (-(W)INFINITY)\n"
                        "#define REDUCE_STEP(acc, v, p) (isnan(v) || (v) > (acc) ? (v) : (acc))\n"
                        "#define REDUCE_FINISH(acc, n, p) (acc)\n";
    case OCLOPS_REDUCE_AMIN:
      return integral ? "#define REDUCE_INIT LONG_MAX\n#define REDUCE_STEP(acc, v, p) min((acc), (v))\n"
                        "#define REDUCE_FINISH(acc, n, p) (acc)\n"
                      : "#define REDUCE_INIT ((W)INFINITY)\n"
                        "#define REDUCE_STEP(acc, v, p) (isnan(v) || (v) < (acc) ? (v) : (acc))\n"
                        "#define REDUCE_FINISH(acc, n, p) (acc)\n";
    case OCLOPS_REDUCE_NORM:
      return integral ? nullptr
                      : "#define REDUCE_INIT tfl_norm_init(p)\n#define REDUCE_STEP(acc, v, p) tfl_norm_step(acc, v, p)\n"
                        "#define REDUCE_FINISH(acc, n, p) tfl_norm_finish(acc, p)\n";
    case OCLOPS_REDUCE_VAR:
      return integral ? nullptr
                      : "#define REDUCE_CENTERED\n#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) ((acc) + (v) * (v))\n"
                        "#define REDUCE_FINISH(acc, n, p) ((acc) / fmax((W)(n) - (p), (W)0))\n";
    case OCLOPS_REDUCE_STD:
      return integral ? nullptr
                      : "#define REDUCE_CENTERED\n#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) ((acc) + (v) * (v))\n"
                        "#define REDUCE_FINISH(acc, n, p) sqrt((acc) / fmax((W)(n) - (p), (W)0))\n";
    case OCLOPS_REDUCE_LOGSUMEXP:
      return integral ? nullptr
                      : "#define REDUCE_SHIFT_BY_MAX\n#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) ((acc) + exp(v))\n"
                        "#define REDUCE_FINISH(acc, n, p) (log(acc) + shift)\n";
    case OCLOPS_REDUCE_ALL: return "#define REDUCE_INIT 1\n#define REDUCE_STEP(acc, v, p) (W)((acc) != 0 && (v) != 0)\n"
                                   "#define REDUCE_FINISH(acc, n, p) (acc)\n";
    case OCLOPS_REDUCE_ANY: return "#define REDUCE_INIT 0\n#define REDUCE_STEP(acc, v, p) (W)((acc) != 0 || (v) != 0)\n"
                                   "#define REDUCE_FINISH(acc, n, p) (acc)\n";
  }
  return nullptr;
}

Launch& push_scalar(Launch& launch, const std::string& compute, oclopsScalar_t value) {
  if (compute == "double") return launch.value(static_cast<cl_double>(value.floating));
  if (compute == "float") return launch.value(static_cast<cl_float>(value.floating));
  return launch.value(static_cast<cl_long>(value.integer));
}

oclopsDims_t one_dim(int64_t dim) {
  oclopsDims_t dims{};
  dims.count = 1;
  dims.dims[0] = dim;
  return dims;
}

// A kernel that walks dim for each of the other positions, out shaped like a (scan, softmax).
oclopsStatus_t along_dim(const char* fn, oclopsStream_t stream, const oclopsTensor_t* a, int64_t dim,
                         const oclopsTensor_t* out, bool floating_only, const std::string& macros, const char* kernel) {
  if (!a || !out) return invalid(std::string(fn) + ": missing operand");
  Split s;
  if (oclopsStatus_t status = split(fn, *a, one_dim(dim), true, out, nullptr, true, &s)) return status;
  if (s.kept.numel == 0 || s.reduced.numel == 0) return OCLOPS_SUCCESS;
  std::string compute;
  if (oclopsStatus_t status = accumulator(fn, stream, {out->dtype, a->dtype}, &compute)) return status;
  if (floating_only && compute == "long") return not_supported(std::string(fn) + ": integer dtypes");
  Launch launch(*stream, prelude(compute, *out, *a, nullptr) + macros + kIndexingSource + kReduceSource, "", kernel);
  launch.value(s.kept).value(s.reduced).buffer(out->buffer).buffer(a->buffer);
  return from_driver(launch.run(static_cast<uint64_t>(s.kept.numel)));
}

}  // namespace
}  // namespace torch_fl::ocl::ops

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsReduce(oclopsStream_t stream, oclopsReduceOp_t op, const oclopsTensor_t* a, oclopsDims_t dims,
                            bool keepdim, oclopsScalar_t p, const oclopsTensor_t* out) {
  if (!a || !out) return invalid("oclopsReduce: missing operand");
  Split s;
  if (oclopsStatus_t status = split("oclopsReduce", *a, dims, keepdim, out, nullptr, false, &s)) return status;
  if (s.kept.numel == 0) return OCLOPS_SUCCESS;
  std::string compute;
  if (oclopsStatus_t status = accumulator("oclopsReduce", stream, {out->dtype, a->dtype}, &compute)) return status;
  const char* macros = reduce_macros(op, compute == "long");
  if (!macros) return not_supported("oclopsReduce: this reduction has no integer form");
  Launch launch(*stream, prelude(compute, *out, *a, nullptr) + macros + kIndexingSource + kReduceSource, "", "reduce");
  launch.value(s.kept).value(s.reduced).buffer(out->buffer).buffer(a->buffer);
  return from_driver(push_scalar(launch, compute, p).run(static_cast<uint64_t>(s.kept.numel)));
}

oclopsStatus_t oclopsReduceSum(oclopsStream_t stream, const oclopsTensor_t* a, oclopsDims_t dims, bool keepdim,
                               const oclopsTensor_t* out) {
  return oclopsReduce(stream, OCLOPS_REDUCE_SUM, a, dims, keepdim, oclopsScalar_t{0.0, 0, false}, out);
}

oclopsStatus_t oclopsReduceIndex(oclopsStream_t stream, oclopsArgOp_t op, const oclopsTensor_t* a, oclopsDims_t dims,
                                 bool keepdim, const oclopsTensor_t* values, const oclopsTensor_t* indices) {
  if (!a || !indices || indices->dtype != ElementType::kI64) return invalid("oclopsReduceIndex: int64 indices needed");
  if (values && !values->buffer) values = nullptr;
  Split s;
  if (oclopsStatus_t status = split("oclopsReduceIndex", *a, dims, keepdim, values, indices, false, &s)) return status;
  if (s.kept.numel == 0) return OCLOPS_SUCCESS;
  for (int32_t d = 0; d < a->dim; ++d) {
    if (a->shape[d] == 0) return invalid("oclopsReduceIndex: an empty dim has no extreme");
  }
  std::string compute;
  const ElementType value_type = values ? values->dtype : a->dtype;
  if (oclopsStatus_t status = accumulator("oclopsReduceIndex", stream, {value_type, a->dtype}, &compute)) return status;
  if (compute == "double" && a->dtype != ElementType::kF64) compute = "float";  // exact comparisons need no more
  // A NaN is better than any number, and the first NaN stays (v != v is false for integers).
  std::string macros = op == OCLOPS_ARGMAX ? "#define ARG_BETTER(v, best) ((v) > (best) || ((v) != (v) && (best) == (best)))\n"
                                           : "#define ARG_BETTER(v, best) ((v) < (best) || ((v) != (v) && (best) == (best)))\n";
  if (values) macros += "#define WRITE_VALUES\n";
  const oclopsTensor_t& out_like = values ? *values : *a;
  Launch launch(*stream, prelude(compute, out_like, *a, nullptr) + macros + kIndexingSource + kReduceSource, "",
                "arg_reduce");
  launch.value(s.kept).value(s.reduced).buffer(values ? values->buffer : indices->buffer).buffer(a->buffer);
  return from_driver(launch.buffer(indices->buffer).run(static_cast<uint64_t>(s.kept.numel)));
}

oclopsStatus_t oclopsScan(oclopsStream_t stream, oclopsScanOp_t op, const oclopsTensor_t* a, int64_t dim,
                          const oclopsTensor_t* out) {
  const char* macros = op == OCLOPS_CUMSUM ? "#define SCAN_INIT 0\n#define SCAN_STEP(acc, v) ((acc) + (v))\n"
                                           : "#define SCAN_INIT 1\n#define SCAN_STEP(acc, v) ((acc) * (v))\n";
  return along_dim("oclopsScan", stream, a, dim, out, false, macros, "scan");
}

oclopsStatus_t oclopsSoftmax(oclopsStream_t stream, oclopsSoftmaxMode_t mode, const oclopsTensor_t* a, int64_t dim,
                             const oclopsTensor_t* out) {
  const char* macros = mode == OCLOPS_LOG_SOFTMAX ? "#define SOFTMAX\n#define LOG_SOFTMAX\n" : "#define SOFTMAX\n";
  return along_dim("oclopsSoftmax", stream, a, dim, out, true, macros, "softmax");
}

oclopsStatus_t oclopsSoftmaxBackward(oclopsStream_t stream, oclopsSoftmaxMode_t mode, const oclopsTensor_t* grad,
                                     const oclopsTensor_t* output, int64_t dim, const oclopsTensor_t* out) {
  if (!grad || !output || !out) return invalid("oclopsSoftmaxBackward: missing operand");
  Split s;
  if (oclopsStatus_t status = split("oclopsSoftmaxBackward", *grad, one_dim(dim), true, out, output, true, &s)) {
    return status;
  }
  if (s.kept.numel == 0 || s.reduced.numel == 0) return OCLOPS_SUCCESS;
  std::string compute;
  if (oclopsStatus_t status =
          accumulator("oclopsSoftmaxBackward", stream, {out->dtype, grad->dtype, output->dtype}, &compute)) {
    return status;
  }
  if (compute == "long") return not_supported("oclopsSoftmaxBackward: integer dtypes");
  const std::string macros =
      mode == OCLOPS_LOG_SOFTMAX ? "#define SOFTMAX_BACKWARD\n#define LOG_SOFTMAX\n" : "#define SOFTMAX_BACKWARD\n";
  Launch launch(*stream, prelude(compute, *out, *grad, output) + macros + kIndexingSource + kReduceSource, "",
                "softmax_backward");
  launch.value(s.kept).value(s.reduced).buffer(out->buffer).buffer(grad->buffer).buffer(output->buffer);
  return from_driver(launch.run(static_cast<uint64_t>(s.kept.numel)));
}
