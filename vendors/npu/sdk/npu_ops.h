/*
 * The simulated NPU operator library (in the style of an Ascend-like "nn" op
 * API). Its conventions differ from the MLU's op library:
 *   - tensors, scalars and int arrays are opaque handles made by
 *     npuCreateTensor / npuCreateScalar / npuCreateIntArray and destroyed by
 *     their npuDestroy* function;
 *   - every operator is two calls: npunnXxxGetWorkspaceSize(args...,
 *     &workspace_size, &executor) checks the arguments and says how much
 *     device scratch memory the operator needs; npunnXxx(workspace,
 *     workspace_size, executor, stream) runs it and consumes the executor;
 *   - each part header (npu_<kind>.h) declares its operators' first calls, then
 *     their second calls in one block, in the same order;
 *   - convolutions take activations and weights in the private blocked layout
 *     NC1HWC0 (C0 = 16, channels zero-padded), made by npunnTransData;
 *   - index tensors are int32 only;
 *   - there is no float64 (or complex) arithmetic: NPU_ERROR_NOT_SUPPORTED.
 */
#ifndef NPU_OPS_H_
#define NPU_OPS_H_

#include "npu_handles.h"
#include "npu_layout.h"
#include "npu_elementwise.h"
#include "npu_activations.h"
#include "npu_random.h"
#include "npu_matmul.h"
#include "npu_reductions.h"
#include "npu_losses.h"
#include "npu_indexing.h"
#include "npu_conv.h"
#include "npu_pooling.h"
#include "npu_norm.h"
#include "npu_torchvision.h"

#endif /* NPU_OPS_H_ */
