// Losses; reduction: 0 none, 1 mean, 2 sum; class-index targets are int32 (ATen's
// CPU kernels read int64 ones: the ALU widens them).
#include "npu_ops_internal.h"

using namespace npu_ops;

extern "C" {

npuError npunnNLLLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight,
                                      int64_t reduction, int64_t ignore_index, npuTensor* out, npuTensor* total_weight,
                                      NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss", {self, target, weight, out, total_weight},
                 [x = desc(self), t = desc(target), w = desc(weight), reduction, ignore_index, o = desc(out),
                  tw = desc(total_weight)] {
                   at::Tensor output = view(o);
                   at::Tensor total = view(tw);
                   // ATen's CPU kernel reads int64 targets; the chip reads int32 ones.
                   at::nll_loss_forward_out(output, total, view(x), view(t).to(at::kLong), optional_view(w), reduction,
                                            ignore_index);
                 }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss)

npuError npunnNLLLossBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* self, const npuTensor* target,
                                              const npuTensor* weight, int64_t reduction, int64_t ignore_index,
                                              const npuTensor* total_weight, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLossBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLossBackward", {grad, self, target, weight, total_weight, out},
                 [g = desc(grad), x = desc(self), t = desc(target), w = desc(weight), reduction, ignore_index,
                  tw = desc(total_weight), o = desc(out)] {
                   at::Tensor result = view(o);
                   at::nll_loss_backward_out(result, view(g), view(x), view(t).to(at::kLong), optional_view(w),
                                             reduction, ignore_index, view(tw));
                 }, workspace_size, executor);
}
NPUNN_RUN(NLLLossBackward)

npuError npunnMseLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnMseLoss", {self, target}, out, [reduction](at::Tensor& result, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::mse_loss(self, target, reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MseLoss)

npuError npunnSmoothL1LossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSmoothL1Loss", {self, target}, out, [reduction, beta](at::Tensor& result, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::smooth_l1_loss(self, target, reduction, beta));
  }, workspace_size, executor);
}
NPUNN_RUN(SmoothL1Loss)

npuError npunnHuberLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHuberLoss", {self, target}, out, [reduction, delta](at::Tensor& result, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::huber_loss(self, target, reduction, delta));
  }, workspace_size, executor);
}
NPUNN_RUN(HuberLoss)

npuError npunnMseLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnMseLossBackward", {gradOutput, self, target}, out, [reduction](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::mse_loss_backward(gradOutput, self, target, reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MseLossBackward)

npuError npunnSmoothL1LossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double beta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnSmoothL1LossBackward", {gradOutput, self, target}, out, [reduction, beta](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::smooth_l1_loss_backward(gradOutput, self, target, reduction, beta));
  }, workspace_size, executor);
}
NPUNN_RUN(SmoothL1LossBackward)

npuError npunnHuberLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, double delta, npuTensor* out, NPUNN_QUERY_ARGS) {
  return compute_into("npunnHuberLossBackward", {gradOutput, self, target}, out, [reduction, delta](at::Tensor& result, const at::Tensor& gradOutput, const at::Tensor& self, const at::Tensor& target) {
    alu::store(result, at::huber_loss_backward(gradOutput, self, target, reduction, delta));
  }, workspace_size, executor);
}
NPUNN_RUN(HuberLossBackward)

npuError npunnBinaryCrossEntropyGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBinaryCrossEntropy", {self, target, weight, out}, [self = desc(self), target = desc(target), weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::binary_cross_entropy(view(self), view(target), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(BinaryCrossEntropy)

npuError npunnBinaryCrossEntropyBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  return prepare("npunnBinaryCrossEntropyBackward", {gradOutput, self, target, weight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::binary_cross_entropy_backward(view(gradOutput), view(self), view(target), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(BinaryCrossEntropyBackward)

npuError npunnNLLLoss2dGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, npuTensor* out, npuTensor* totalWeight, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss2d", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss2d", {self, target, weight, out, totalWeight}, [self = desc(self), target = desc(target), weight = desc(weight), reduction, ignoreIndex, out = desc(out), totalWeight = desc(totalWeight)] {
    auto [loss, total] = at::nll_loss2d_forward(view(self), view(target).to(at::kLong), optional_view(weight), reduction, ignoreIndex);
    alu::store(view(out), loss);
    alu::store(view(totalWeight), total);
  }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss2d)

npuError npunnNLLLoss2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuTensor* weight, int64_t reduction, int64_t ignoreIndex, const npuTensor* totalWeight, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnNLLLoss2dBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnNLLLoss2dBackward", {gradOutput, self, target, weight, totalWeight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), weight = desc(weight), reduction, ignoreIndex, totalWeight = desc(totalWeight), out = desc(out)] {
    alu::store(view(out), at::nll_loss2d_backward(view(gradOutput), view(self), view(target).to(at::kLong), optional_view(weight), reduction, ignoreIndex, view(totalWeight)));
  }, workspace_size, executor);
}
NPUNN_RUN(NLLLoss2dBackward)

npuError npunnMultiMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultiMarginLoss", "target", target); e != NPU_SUCCESS) return e;
  if (!p) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLoss: null p");
  if (!margin) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLoss: null margin");
  return prepare("npunnMultiMarginLoss", {self, target, weight, out}, [self = desc(self), target = desc(target), p = *p, margin = *margin, weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::multi_margin_loss(view(self), view(target).to(at::kLong), aten_scalar(p), aten_scalar(margin), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MultiMarginLoss)

npuError npunnMultiMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, const npuScalar* p, const npuScalar* margin, const npuTensor* weight, int64_t reduction, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultiMarginLossBackward", "target", target); e != NPU_SUCCESS) return e;
  if (!p) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLossBackward: null p");
  if (!margin) return fail(NPU_ERROR_INVALID_PARAM, "npunnMultiMarginLossBackward: null margin");
  return prepare("npunnMultiMarginLossBackward", {gradOutput, self, target, weight, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), p = *p, margin = *margin, weight = desc(weight), reduction, out = desc(out)] {
    alu::store(view(out), at::multi_margin_loss_backward(view(gradOutput), view(self), view(target).to(at::kLong), aten_scalar(p), aten_scalar(margin), optional_view(weight), reduction));
  }, workspace_size, executor);
}
NPUNN_RUN(MultiMarginLossBackward)

npuError npunnMultilabelMarginLossGetWorkspaceSize(const npuTensor* self, const npuTensor* target, int64_t reduction, npuTensor* out, npuTensor* isTarget, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultilabelMarginLoss", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnMultilabelMarginLoss", {self, target, out, isTarget}, [self = desc(self), target = desc(target), reduction, out = desc(out), isTarget = desc(isTarget)] {
    auto [loss, marks] = at::multilabel_margin_loss_forward(view(self), view(target).to(at::kLong), reduction);
    alu::store(view(out), loss);
    alu::store(view(isTarget), marks);
  }, workspace_size, executor);
}
NPUNN_RUN(MultilabelMarginLoss)

npuError npunnMultilabelMarginLossBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuTensor* target, int64_t reduction, const npuTensor* isTarget, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnMultilabelMarginLossBackward", "target", target); e != NPU_SUCCESS) return e;
  return prepare("npunnMultilabelMarginLossBackward", {gradOutput, self, target, isTarget, out}, [gradOutput = desc(gradOutput), self = desc(self), target = desc(target), reduction, isTarget = desc(isTarget), out = desc(out)] {
    alu::store(view(out), at::multilabel_margin_loss_backward(view(gradOutput), view(self), view(target).to(at::kLong), reduction, view(isTarget)));
  }, workspace_size, executor);
}
NPUNN_RUN(MultilabelMarginLossBackward)

}  // extern "C"
