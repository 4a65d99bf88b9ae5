/*
 * The NC1HWC0 layout conversion and copies: one part of the simulated NPU's operator library,
 * npu_ops.h, which says the library's conventions.
 */
#ifndef NPU_LAYOUT_H_
#define NPU_LAYOUT_H_

#include "npu_handles.h"

#ifdef __cplusplus
extern "C" {
#endif

/* layout and copies */
npuError npunnTransDataGetWorkspaceSize(const npuTensor* src, npuTensor* dst, NPUNN_QUERY_ARGS);
npuError npunnInplaceCopyGetWorkspaceSize(npuTensor* dst, const npuTensor* src, NPUNN_QUERY_ARGS);

/* phase two of each operator above, in the same order */
npuError npunnTransData(NPUNN_RUN_ARGS);
npuError npunnInplaceCopy(NPUNN_RUN_ARGS);

#ifdef __cplusplus
}
#endif

#endif /* NPU_LAYOUT_H_ */
