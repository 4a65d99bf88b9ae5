/*
 * Matrix multiplication: one part of the simulated NPU's operator library, npu_ops.h, which says
 * the library's conventions.
 */
#ifndef NPU_MATMUL_H_
#define NPU_MATMUL_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* matrix multiplication: half and bfloat16 accumulate in a float32 workspace */
npuError npunnMmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnAddmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat1, const npuTensor* mat2, const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBmmGetWorkspaceSize(const npuTensor* self, const npuTensor* mat2, npuTensor* out, NPUNN_QUERY_ARGS);
npuError npunnBaddbmmGetWorkspaceSize(const npuTensor* self, const npuTensor* batch1, const npuTensor* batch2, const npuScalar* beta, const npuScalar* alpha, npuTensor* out, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnMm(NPUNN_RUN_ARGS);
npuError npunnAddmm(NPUNN_RUN_ARGS);
npuError npunnBmm(NPUNN_RUN_ARGS);
npuError npunnBaddbmm(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_MATMUL_H_ */
