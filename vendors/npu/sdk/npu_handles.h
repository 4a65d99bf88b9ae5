/*
 * Data types, handles and the two phases' arguments: one part of the simulated NPU's operator
 * library, npu_ops.h, which says the library's conventions.
 */
#ifndef NPU_HANDLES_H_
#define NPU_HANDLES_H_

#include <stdbool.h>
#include <stdint.h>

#include "npu_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NPU_C0 16

typedef enum {
  NPU_FLOAT = 0, NPU_FLOAT16 = 1, NPU_INT8 = 2, NPU_INT32 = 3, NPU_UINT8 = 4, NPU_INT16 = 6, NPU_INT64 = 9,
  NPU_DOUBLE = 11, NPU_BOOL = 12, NPU_COMPLEX64 = 16, NPU_COMPLEX128 = 17, NPU_BF16 = 27, NPU_DT_UNDEFINED = -1
} npuDataType;

typedef enum { NPU_FORMAT_ND = 2, NPU_FORMAT_NC1HWC0 = 3 } npuFormat;

typedef struct npuTensor npuTensor;
typedef struct npuScalar npuScalar;
typedef struct npuIntArray npuIntArray;
typedef struct npuTensorList npuTensorList;
typedef struct npunnExecutor npunnExecutor;

/* Counter-based random state: results depend only on (seed, offset). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} npuRandState;

/* A view of device memory: dims and strides (in elements) of the view, an
 * element offset from `data`. NC1HWC0 tensors are 5-D: (N, C1, H, W, C0). */
npuTensor* npuCreateTensor(const int64_t* view_dims, uint64_t view_dims_num, npuDataType data_type,
                           const int64_t* stride, int64_t offset, npuFormat format, void* data);
npuError npuDestroyTensor(const npuTensor* tensor);
/* `value` points at one element of `data_type`. */
npuScalar* npuCreateScalar(const void* value, npuDataType data_type);
npuError npuDestroyScalar(const npuScalar* scalar);
npuIntArray* npuCreateIntArray(const int64_t* value, uint64_t size);
npuError npuDestroyIntArray(const npuIntArray* array);
/* The list refers to the tensors; it does not own them. */
npuTensorList* npuCreateTensorList(const npuTensor* const* value, uint64_t size);
npuError npuDestroyTensorList(const npuTensorList* list);

/* The second phase of every operator. */
#define NPUNN_RUN_ARGS void* workspace, uint64_t workspace_size, npunnExecutor* executor, npurtStream stream
#define NPUNN_QUERY_ARGS uint64_t* workspace_size, npunnExecutor** executor

#ifdef __cplusplus
}
#endif

#endif /* NPU_HANDLES_H_ */
