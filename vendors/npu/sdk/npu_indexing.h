/*
 * Shapes and indexing (cat, padding, index_select, gather and scatter): one part of the simulated
 * NPU's operator library, npu_ops.h, which says the library's conventions.
 */
#ifndef NPU_INDEXING_H_
#define NPU_INDEXING_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* shapes and indexing; index tensors are int32 */
npuError npunnCatGetWorkspaceSize(const npuTensorList* tensors, int64_t dim, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIndexSelectGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnEmbeddingDenseBackwardGetWorkspaceSize(const npuTensor* grad, const npuTensor* indices, int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq, npuTensor* out, NPUNN_QUERY_ARGS);

/* padding, one operator per rank */
npuError npunnReflectionPad1dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad1dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad2dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad3dGetWorkspaceSize(const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad1dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReflectionPad3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad1dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad2dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnReplicationPad3dBackwardGetWorkspaceSize(const npuTensor* gradOutput, const npuTensor* self, const npuIntArray* padding, npuTensor* out, NPUNN_QUERY_ARGS);

/* gather and scatter along dim; index tensors are int32 */
npuError npunnGatherGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatterGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatterValueGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuScalar* value, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnScatterAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* src, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnIndexAddGetWorkspaceSize(const npuTensor* self, int64_t dim, const npuTensor* index, const npuTensor* source, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnCat(NPUNN_RUN_ARGS);
npuError npunnIndexSelect(NPUNN_RUN_ARGS);
npuError npunnEmbeddingDenseBackward(NPUNN_RUN_ARGS);
npuError npunnReflectionPad1d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad2d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad3d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad1d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad2d(NPUNN_RUN_ARGS);
npuError npunnReplicationPad3d(NPUNN_RUN_ARGS);
npuError npunnReflectionPad1dBackward(NPUNN_RUN_ARGS);
npuError npunnReflectionPad2dBackward(NPUNN_RUN_ARGS);
npuError npunnReflectionPad3dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad1dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad2dBackward(NPUNN_RUN_ARGS);
npuError npunnReplicationPad3dBackward(NPUNN_RUN_ARGS);
npuError npunnGather(NPUNN_RUN_ARGS);
npuError npunnScatter(NPUNN_RUN_ARGS);
npuError npunnScatterValue(NPUNN_RUN_ARGS);
npuError npunnScatterAdd(NPUNN_RUN_ARGS);
npuError npunnIndexAdd(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_INDEXING_H_ */
