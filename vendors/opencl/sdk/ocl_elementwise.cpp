// Elementwise ops: one kernel per (arity, op, dtypes), specialised by macros
// (the op's expression from ocl_elementwise_expressions.cpp) and built once
// through the driver's program cache.
#include <string>
#include <vector>

#include "ocl_elementwise_expressions.h"
#include "ocl_launch.h"
#include "ocl_ops_internal.h"

namespace torch_fl::ocl::ops {
namespace {

const char* const kInputNames[] = {"A", "B", "C"};

// One call's operands and what its kernel computes in.
struct Plan {
  const oclopsTensor_t* out = nullptr;
  std::vector<const oclopsTensor_t*> inputs;
  std::string compute;
  Geometry geometry{};   // out, then the first two inputs
  Geometry third{};      // the third input, as its operand 0
};

std::string dtype_list(const Plan& plan) {
  std::string text;
  for (const oclopsTensor_t* input : plan.inputs) text += std::string(element_name(input->dtype)) + ", ";
  return text + "-> " + element_name(plan.out->dtype);
}

// Checks the operands, lays them over out's shape and chooses the compute type:
// `typed` inputs take part in it (a where's condition does not), and an inexact
// scalar lifts an integer kernel to float, the dtype PyTorch compares an integer
// tensor with a fractional number in.
oclopsStatus_t plan_call(const char* fn, oclopsStream_t stream, const oclopsTensor_t* out,
                         std::vector<const oclopsTensor_t*> inputs, size_t first_typed, bool inexact_scalar,
                         Plan* plan) {
  if (!out || out->dim > OCLOPS_MAX_DIMS) return invalid(std::string(fn) + ": out must be a tensor of at most 12 dims");
  for (const oclopsTensor_t* input : inputs) {
    if (!input) return invalid(std::string(fn) + ": a missing operand");
  }
  plan->out = out;
  plan->inputs = std::move(inputs);
  plan->geometry = make_geometry(out->dim, out->shape);
  set_operand(&plan->geometry, 0, out->stride, out->offset);
  plan->third = make_geometry(out->dim, out->shape);
  for (size_t k = 0; k < plan->inputs.size(); ++k) {
    const bool fits = k < 2 ? broadcast_into(&plan->geometry, static_cast<int>(k) + 1, *plan->inputs[k])
                            : broadcast_into(&plan->third, 0, *plan->inputs[k]);
    if (!fits) return invalid(std::string(fn) + ": operands do not broadcast to out's shape");
  }
  const ElementType none = out->dtype;  // a filler that changes nothing
  auto typed = [&](size_t k) { return k >= first_typed && k < plan->inputs.size() ? plan->inputs[k]->dtype : none; };
  const Device& device = device_of(stream);
  plan->compute = compute_type({out->dtype, typed(0), typed(1), typed(2)}, device.fp64);
  for (const oclopsTensor_t* input : plan->inputs) {  // a complex condition is no condition either
    if (is_complex(input->dtype)) plan->compute.clear();
  }
  if (plan->compute.empty()) return not_supported(std::string(fn) + ": dtypes " + dtype_list(*plan) + " on " + device.name);
  if (plan->compute == "long" && inexact_scalar) plan->compute = "float";
  return OCLOPS_SUCCESS;
}

// The op's expression for the plan's compute type.
oclopsStatus_t pick(const char* fn, const Plan& plan, Expression expression, std::string* text) {
  const char* chosen = plan.compute == "long" ? expression.integral : expression.floating;
  if (!chosen) {
    return not_supported(std::string(fn) + ": this op has no " + (plan.compute == "long" ? "integer" : "floating-point") +
                         " form (dtypes " + dtype_list(plan) + ")");
  }
  *text = chosen;
  return OCLOPS_SUCCESS;
}

// The macros that make kernels/ocl_elementwise.cl one kernel: W, the operands' element macros, the op.
std::string specialise(const Plan& plan, const std::string& op_macro) {
  const ElementType none = plan.out->dtype;
  auto dtype = [&](size_t k) { return k < plan.inputs.size() ? plan.inputs[k]->dtype : none; };
  std::string macros = fp64_pragma(plan.compute, {plan.out->dtype, dtype(0), dtype(1), dtype(2)});
  macros += "#define W " + plan.compute + "\n";
  if (plan.compute == "long") macros += "#define TFL_INTEGRAL\n";
  macros += element_macros("OUT", plan.out->dtype, plan.compute);
  for (size_t k = 0; k < plan.inputs.size(); ++k) {
    macros += element_macros(kInputNames[k], plan.inputs[k]->dtype, plan.compute);
  }
  return macros + kMathSource + op_macro + "\n" + kIndexingSource + kElementwiseSource;
}

// The scalar as a kernel's W argument.
Launch& push_scalar(Launch& launch, const std::string& compute, oclopsScalar_t value) {
  if (compute == "double") return launch.value(static_cast<cl_double>(value.floating));
  if (compute == "float") return launch.value(static_cast<cl_float>(value.floating));
  return launch.value(static_cast<cl_long>(value.integer));
}

Launch& push_buffers(Launch& launch, const Plan& plan) {
  launch.buffer(plan.out->buffer);
  for (const oclopsTensor_t* input : plan.inputs) launch.buffer(input->buffer);
  return launch;
}

oclopsStatus_t run(Launch& launch, const Plan& plan) {
  return from_driver(launch.run(static_cast<uint64_t>(plan.geometry.numel)));
}

}  // namespace
}  // namespace torch_fl::ocl::ops

using namespace torch_fl::ocl;
using namespace torch_fl::ocl::ops;

oclopsStatus_t oclopsUnaryParams(oclopsStream_t stream, oclopsUnaryOp_t op, const oclopsTensor_t* a,
                                 oclopsScalar_t p0, oclopsScalar_t p1, oclopsScalar_t p2, const oclopsTensor_t* out) {
  Plan plan;
  if (oclopsStatus_t s = plan_call("oclopsUnary", stream, out, {a}, 0, false, &plan)) return s;
  if (plan.geometry.numel == 0) return OCLOPS_SUCCESS;
  // ~ of a bool is logical not (its 0/1 storage would turn every value true).
  if (op == OCLOPS_BITWISE_NOT && out->dtype == ElementType::kBool) op = OCLOPS_LOGICAL_NOT;
  std::string expression;
  if (oclopsStatus_t s = pick("oclopsUnary", plan, unary_expression(op), &expression)) return s;
  Launch launch(*stream, specialise(plan, "#define UNARY_OP(x, p0, p1, p2) " + expression), "", "unary");
  push_buffers(launch.value(plan.geometry), plan);
  push_scalar(push_scalar(push_scalar(launch, plan.compute, p0), plan.compute, p1), plan.compute, p2);
  return run(launch, plan);
}

oclopsStatus_t oclopsUnary(oclopsStream_t stream, oclopsUnaryOp_t op, const oclopsTensor_t* a,
                           const oclopsTensor_t* out) {
  const oclopsScalar_t none{0.0, 0, false};
  return oclopsUnaryParams(stream, op, a, none, none, none, out);
}

oclopsStatus_t oclopsBinaryParams(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                                  const oclopsTensor_t* b, oclopsScalar_t p0, oclopsScalar_t p1,
                                  const oclopsTensor_t* out) {
  Plan plan;
  if (oclopsStatus_t s = plan_call("oclopsBinary", stream, out, {a, b}, 0, false, &plan)) return s;
  if (plan.geometry.numel == 0) return OCLOPS_SUCCESS;
  std::string expression;
  if (oclopsStatus_t s = pick("oclopsBinary", plan, binary_expression(op), &expression)) return s;
  Launch launch(*stream, specialise(plan, "#define BINARY_OP(x, y, p0, p1) " + expression), "", "binary");
  push_buffers(launch.value(plan.geometry), plan);
  push_scalar(push_scalar(launch, plan.compute, p0), plan.compute, p1);
  return run(launch, plan);
}

oclopsStatus_t oclopsBinary(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                            const oclopsTensor_t* b, oclopsScalar_t alpha, const oclopsTensor_t* out) {
  return oclopsBinaryParams(stream, op, a, b, alpha, oclopsScalar_t{0.0, 0, false}, out);
}

oclopsStatus_t oclopsBinaryScalar(oclopsStream_t stream, oclopsBinaryOp_t op, const oclopsTensor_t* a,
                                  oclopsScalar_t b, oclopsScalar_t alpha, const oclopsTensor_t* out) {
  Plan plan;
  if (oclopsStatus_t s = plan_call("oclopsBinaryScalar", stream, out, {a}, 0, b.inexact, &plan)) return s;
  if (plan.geometry.numel == 0) return OCLOPS_SUCCESS;
  std::string expression;
  if (oclopsStatus_t s = pick("oclopsBinaryScalar", plan, binary_expression(op), &expression)) return s;
  // The unary kernel with the scalar as its first parameter.
  const std::string macro = "#define UNARY_OP(x, y, p0, p1) " + expression;
  Launch launch(*stream, specialise(plan, macro), "", "unary");
  push_buffers(launch.value(plan.geometry), plan);
  push_scalar(push_scalar(push_scalar(launch, plan.compute, b), plan.compute, alpha), plan.compute,
              oclopsScalar_t{0.0, 0, false});
  return run(launch, plan);
}

oclopsStatus_t oclopsTernary(oclopsStream_t stream, oclopsTernaryOp_t op, const oclopsTensor_t* a,
                             const oclopsTensor_t* b, const oclopsTensor_t* c, oclopsScalar_t p0,
                             const oclopsTensor_t* out) {
  Plan plan;
  const size_t first_typed = op == OCLOPS_WHERE ? 1 : 0;
  if (oclopsStatus_t s = plan_call("oclopsTernary", stream, out, {a, b, c}, first_typed, false, &plan)) return s;
  if (plan.geometry.numel == 0) return OCLOPS_SUCCESS;
  std::string expression;
  if (oclopsStatus_t s = pick("oclopsTernary", plan, ternary_expression(op), &expression)) return s;
  Launch launch(*stream, specialise(plan, "#define TERNARY_OP(x, y, z, p0) " + expression), "", "ternary");
  push_buffers(launch.value(plan.geometry).value(plan.third), plan);
  return run(push_scalar(launch, plan.compute, p0), plan);
}

oclopsStatus_t oclopsFill(oclopsStream_t stream, const oclopsTensor_t* out, oclopsScalar_t value) {
  Plan plan;
  if (oclopsStatus_t s = plan_call("oclopsFill", stream, out, {}, 0, false, &plan)) return s;
  if (plan.geometry.numel == 0) return OCLOPS_SUCCESS;
  Launch launch(*stream, specialise(plan, "#define FILL"), "", "fill");
  launch.value(plan.geometry).buffer(out->buffer);
  return run(push_scalar(launch, plan.compute, value), plan);
}
