// The expression of each elementwise op (ocl_elementwise_expressions.cpp).
#pragma once

#include "ocl_ops.h"

namespace torch_fl::ocl::ops {

struct Expression {
  const char* floating;  // W float or double
  const char* integral;  // W long; nullptr: no integer form
};

Expression unary_expression(oclopsUnaryOp_t op);
Expression binary_expression(oclopsBinaryOp_t op);
Expression ternary_expression(oclopsTernaryOp_t op);

}  // namespace torch_fl::ocl::ops
