/*
 * The simulated MLU operator library (in the style of a vendor's op SDK: C
 * functions on tensor descriptors, queued on a device queue, each returning
 * the chip's status code). Every function validates its arguments at once and
 * runs asynchronously on the queue; a failure during execution is reported by
 * the next mluQueueSync.
 *
 * The chip computes in float32, float16, bfloat16 and integer/bool types; it
 * has no float64 or complex units (MLU_RET_ERR_NOT_SUPPORTED).
 */
#ifndef MLU_OPS_H_
#define MLU_OPS_H_

#include "mlu_types.h"
#include "mlu_elementwise.h"
#include "mlu_activations.h"
#include "mlu_random.h"
#include "mlu_matmul.h"
#include "mlu_reductions.h"
#include "mlu_losses.h"
#include "mlu_indexing.h"
#include "mlu_conv.h"
#include "mlu_pooling.h"
#include "mlu_norm.h"
#include "mlu_attention.h"
#include "mlu_torchvision.h"

#endif /* MLU_OPS_H_ */
