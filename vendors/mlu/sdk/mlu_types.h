/*
 * Data types, descriptors and scalars: one part of the simulated MLU's operator library, mlu_ops.h,
 * which says the library's conventions.
 */
#ifndef MLU_TYPES_H_
#define MLU_TYPES_H_

#include <stdint.h>

#include "mlu_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLU_MAX_DIMS 8

typedef enum {
  MLU_DTYPE_BOOL, MLU_DTYPE_UINT8, MLU_DTYPE_INT8, MLU_DTYPE_INT16, MLU_DTYPE_INT32, MLU_DTYPE_INT64,
  MLU_DTYPE_HALF, MLU_DTYPE_BFLOAT16, MLU_DTYPE_FLOAT, MLU_DTYPE_DOUBLE, MLU_DTYPE_COMPLEX_FLOAT,
  MLU_DTYPE_COMPLEX_DOUBLE, MLU_DTYPE_INVALID = -1
} mluDataType_t;

/* A tensor in device memory; data == NULL means "absent" for optional tensors. */
typedef struct {
  void* data;
  mluDataType_t dtype;
  int32_t dim;
  int64_t shape[MLU_MAX_DIMS];
  int64_t stride[MLU_MAX_DIMS]; /* in elements */
} mluTensor_t;

/* MLU_SCALAR_NONE: an absent optional scalar */
typedef enum { MLU_SCALAR_FLOAT, MLU_SCALAR_INT, MLU_SCALAR_BOOL, MLU_SCALAR_NONE } mluScalarKind_t;
typedef struct {
  mluScalarKind_t kind;
  double f;
  int64_t i;
} mluScalar_t;

/* count == -1: "all dimensions" (an absent optional list). */
typedef struct {
  int32_t count;
  int64_t values[MLU_MAX_DIMS];
} mluIntList_t;

/* A list of tensors (count descriptors at `tensors`). */
typedef struct {
  int32_t count;
  const mluTensor_t* tensors;
} mluTensorList_t;

/* Counter-based random state: results depend only on (seed, offset). */
typedef struct {
  uint64_t seed;
  uint64_t offset;
} mluRandState_t;

typedef enum { MLU_GELU_NONE, MLU_GELU_TANH } mluGeluApproximation_t;

#ifdef __cplusplus
}
#endif

#endif /* MLU_TYPES_H_ */
