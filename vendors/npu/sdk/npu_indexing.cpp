// Shapes and indexing: cat, padding, index_select, gather and scatter, index_add,
// the embedding's gradient; index tensors are int32.
#include "npu_ops_internal.h"

#include <vector>

using namespace npu_ops;

namespace {

// Scatter and ScatterAdd: out = scatter(self, dim, the int32 index widened to int64, src).
template <class Scatter>
npuError scatter_from(const char* op, const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src,
                      npuTensor* out, Scatter scatter, uint64_t* workspace_size, npunnExecutor** executor) {
  if (npuError e = require_int32(op, "index", index); e != NPU_SUCCESS) return e;
  return prepare(op, {self, index, src, out}, [self = desc(self), dim, index = desc(index), src = desc(src), out = desc(out), scatter] {
    alu::store(view(out), scatter(view(self), dim, view(index).to(at::kLong), view(src)));
  }, workspace_size, executor);
}

}  // namespace

extern "C" {

npuError npunnCatGetWorkspaceSize(const npuTensorList* tensors, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (!tensors) return fail(NPU_ERROR_INVALID_PARAM, "npunnCat: null tensor list");
  std::vector<Desc> inputs;
  for (const npuTensor* t : tensors->tensors) {
    if (npuError e = check("npunnCat", t); e != NPU_SUCCESS) return e;
    inputs.push_back(desc(t));
  }
  return prepare("npunnCat", {out}, [inputs, dim, o = desc(out)] {
    std::vector<at::Tensor> views;
    for (const Desc& d : inputs) views.push_back(view(d));
    at::Tensor result = view(o);
    at::cat_out(result, views, dim);
  }, workspace_size, executor);
}
NPUNN_RUN(Cat)

npuError npunnIndexSelectGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out,
                                          NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnIndexSelect", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnIndexSelect", {self, index, out}, [x = desc(self), dim, i = desc(index), o = desc(out)] {
    at::Tensor result = view(o);
    at::index_select_out(result, view(x), dim, view(i));
  }, workspace_size, executor);
}
NPUNN_RUN(IndexSelect)

npuError npunnEmbeddingDenseBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* indices,
                                                     int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq,
                                                     npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnEmbeddingDenseBackward", "indices", indices); e != NPU_SUCCESS) return e;
  return prepare("npunnEmbeddingDenseBackward", {grad, indices, out},
                 [g = desc(grad), i = desc(indices), num_weights, padding_idx, scale_grad_by_freq, o = desc(out)] {
                   alu::store(view(o), at::embedding_dense_backward(view(g), view(i), num_weights, padding_idx,
                                                                    scale_grad_by_freq));
                 }, workspace_size, executor);
}
NPUNN_RUN(EmbeddingDenseBackward)

// Padding: one operator per mode and rank, as ATen has.
#define NPU_PAD(NAME, ATEN)                                                                                      \
  npuError npunn##NAME##GetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out,       \
                                         NPUNN_QUERY_ARGS) {                                                     \
    return prepare("npunn" #NAME, {self, out}, [x = desc(self), p = ints(padding), o = desc(out)] {               \
      alu::store(view(o), ATEN(view(x), p));                                                                     \
    }, workspace_size, executor);                                                                                \
  }                                                                                                              \
  NPUNN_RUN(NAME)                                                                                                \
  npuError npunn##NAME##BackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self,              \
                                                 const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS) { \
    return prepare("npunn" #NAME "Backward", {gradOutput, self, out},                                            \
                   [g = desc(gradOutput), x = desc(self), p = ints(padding), o = desc(out)] {                    \
                     alu::store(view(o), ATEN##_backward(view(g), view(x), p));                                  \
                   }, workspace_size, executor);                                                                 \
  }                                                                                                              \
  NPUNN_RUN(NAME##Backward)

NPU_PAD(ReflectionPad1d, at::reflection_pad1d)
NPU_PAD(ReflectionPad2d, at::reflection_pad2d)
NPU_PAD(ReflectionPad3d, at::reflection_pad3d)
NPU_PAD(ReplicationPad1d, at::replication_pad1d)
NPU_PAD(ReplicationPad2d, at::replication_pad2d)
NPU_PAD(ReplicationPad3d, at::replication_pad3d)

npuError npunnGatherGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnGather", "index", index); e != NPU_SUCCESS) return e;
  return prepare("npunnGather", {self, index, out}, [self = desc(self), dim, index = desc(index), out = desc(out)] {
    alu::store(view(out), at::gather(view(self), dim, view(index).to(at::kLong)));
  }, workspace_size, executor);
}
NPUNN_RUN(Gather)

npuError npunnScatterGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS) {
  return scatter_from("npunnScatter", self, dim, index, src, out, NPU_CALL(at::scatter), workspace_size, executor);
}
NPUNN_RUN(Scatter)

npuError npunnScatterValueGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnScatterValue", "index", index); e != NPU_SUCCESS) return e;
  if (!value) return fail(NPU_ERROR_INVALID_PARAM, "npunnScatterValue: null value");
  return prepare("npunnScatterValue", {self, index, out}, [self = desc(self), dim, index = desc(index), value = *value, out = desc(out)] {
    alu::store(view(out), at::scatter(view(self), dim, view(index).to(at::kLong), aten_scalar(value)));
  }, workspace_size, executor);
}
NPUNN_RUN(ScatterValue)

npuError npunnScatterAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS) {
  return scatter_from("npunnScatterAdd", self, dim, index, src, out, NPU_CALL(at::scatter_add), workspace_size, executor);
}
NPUNN_RUN(ScatterAdd)

npuError npunnIndexAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* source, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS) {
  if (npuError e = require_int32("npunnIndexAdd", "index", index); e != NPU_SUCCESS) return e;
  if (!alpha) return fail(NPU_ERROR_INVALID_PARAM, "npunnIndexAdd: null alpha");
  return prepare("npunnIndexAdd", {self, index, source, out}, [self = desc(self), dim, index = desc(index), source = desc(source), alpha = *alpha, out = desc(out)] {
    alu::store(view(out), at::index_add(view(self), dim, view(index).to(at::kLong), view(source), aten_scalar(alpha)));
  }, workspace_size, executor);
}
NPUNN_RUN(IndexAdd)

}  // extern "C"
