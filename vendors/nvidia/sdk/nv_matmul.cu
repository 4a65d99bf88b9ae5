// Matrix products on cuBLAS. PyTorch's tensors are row-major and cuBLAS is
// column-major, so row-major C = A B runs as column-major C^T = B^T A^T; a
// transposed operand (linear's weight.t(), attention's k.transpose) is passed as
// CUBLAS_OP_T over its own memory instead of being copied.
#include <cublas_v2.h>

#include <unordered_map>

#include "nv_element_bodies.cuh"

namespace nvops {
namespace {

cublasHandle_t cublas_handle(int device) {
  // One handle per device and thread, made on first use (handles are not thread-safe).
  thread_local std::unordered_map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  handles.emplace(device, handle);
  return handle;
}

// cuBLAS's workspace for this thread's handle on `stream`: one per (handle, stream)
// pair, since a handle's default workspace would be shared by GEMMs that two
// streams run at once. 32 MiB, what cuBLAS asks for on Hopper. Kept for the process.
constexpr size_t kCublasWorkspaceBytes = size_t{32} << 20;

void* cublas_workspace(int device, cudaStream_t stream) {
  thread_local std::unordered_map<cudaStream_t, void*> workspaces[64];
  auto& of_device = workspaces[device % 64];
  auto it = of_device.find(stream);
  if (it != of_device.end()) return it->second;
  void* workspace = nullptr;
  if (cudaMalloc(&workspace, kCublasWorkspaceBytes) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  of_device.emplace(stream, workspace);
  return workspace;
}

template <class T>
__global__ void scale_kernel(int64_t n, float factor, T* data) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) data[i] = from_float<T>(factor * to_float(data[i]));
}

cudaDataType_t cuda_type(nvopsDtype_t t) {
  return t == NVOPS_F16 ? CUDA_R_16F : t == NVOPS_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

}  // namespace

MatrixOperand matrix_operand(const nvopsTensor_t& t) {
  MatrixOperand m{};
  if (t.dim < 2) return m;
  const int64_t rows = t.shape[t.dim - 2], cols = t.shape[t.dim - 1];
  const int64_t row_stride = t.stride[t.dim - 2], col_stride = t.stride[t.dim - 1];
  // A dim of size 1 may carry any stride: it is never stepped over.
  if ((cols <= 1 || col_stride == 1) && (rows <= 1 || row_stride >= cols)) {
    m.ok = true;
    m.transposed = false;
    m.leading = rows <= 1 ? (cols > 0 ? cols : 1) : row_stride;
  } else if ((rows <= 1 || row_stride == 1) && (cols <= 1 || col_stride >= rows)) {
    m.ok = true;
    m.transposed = true;
    m.leading = cols <= 1 ? (rows > 0 ? rows : 1) : col_stride;
  }
  if (m.leading < 1) m.leading = 1;
  m.batch_stride = t.dim == 3 && t.shape[0] > 1 ? t.stride[0] : 0;
  if (m.leading > 0x7fffffff) m.ok = false;
  return m;
}

}  // namespace nvops

using namespace nvops;

extern "C" {

bool nvopsMatmulTakesOperand(const nvopsTensor_t* t) { return t && (t->dim == 2 || t->dim == 3) && matrix_operand(*t).ok; }

nvopsStatus_t nvopsMatmul(cudaStream_t stream, const nvopsTensor_t* a, const nvopsTensor_t* b,
                          const nvopsTensor_t* bias, double beta, double alpha, const nvopsTensor_t* out) {
  if (!a || !b || !out || a->dim != b->dim || a->dim != out->dim || (a->dim != 2 && a->dim != 3) ||
      a->dtype != b->dtype || a->dtype != out->dtype || !floating(a->dtype)) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsMatmul: 2-D or 3-D operands of one floating dtype");
  }
  const int batched = a->dim == 3;
  const int64_t batch = batched ? a->shape[0] : 1;
  const int64_t m = a->shape[batched], k = a->shape[batched + 1], n = b->shape[batched + 1];
  if (b->shape[batched] != k || out->shape[batched] != m || out->shape[batched + 1] != n ||
      (batched && (b->shape[0] != batch || out->shape[0] != batch))) {
    return fail(NVOPS_ERROR_INVALID_ARGUMENT, "nvopsMatmul: shapes do not chain");
  }
  if (m > 0x7fffffff || n > 0x7fffffff || k > 0x7fffffff || batch > 0x7fffffff) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED, "nvopsMatmul: a dimension above 2^31-1 (cuBLAS takes int sizes)");
  }
  const MatrixOperand left = matrix_operand(*a), right = matrix_operand(*b);
  if (!left.ok || !right.ok || !row_major(*out)) {
    return fail(NVOPS_ERROR_NOT_SUPPORTED,
                "nvopsMatmul: operands must be row-major or transposed in their last two dims, the result contiguous");
  }
  NVOPS_ENTER(stream, "nvopsMatmul");
  float beta_value = 0.f;
  if (bias && bias->data && beta != 0.0) {
    const nvopsStatus_t status = nvopsCopy(stream, out, bias);  // out = bias, broadcast
    if (status != NVOPS_SUCCESS) return status;
    beta_value = static_cast<float>(beta);
  }
  if (m == 0 || n == 0 || batch == 0) return NVOPS_SUCCESS;
  if (k == 0) {  // an empty product (cuBLAS refuses k = 0): out = beta * bias, or zeros
    if (beta_value == 0.f) return nvopsFill(stream, out, 0.0);
    const int64_t total = numel(*out);
    NVOPS_DISPATCH_FLOATING(out->dtype, scale_kernel<scalar_t><<<blocks_for(total), kThreads, 0, stream>>>(
        total, beta_value, static_cast<scalar_t*>(out->data)));
    return check_launch("nvopsMatmul");
  }
  int device = 0;
  cudaGetDevice(&device);  // the stream's (NVOPS_ENTER)
  cublasHandle_t handle = cublas_handle(device);
  if (!handle) return fail(NVOPS_ERROR_CUBLAS, "nvopsMatmul: cublasCreate failed");
  void* workspace = cublas_workspace(device, stream);
  if (!workspace) return fail(NVOPS_ERROR_CUDA, "nvopsMatmul: no memory for cuBLAS's workspace");
  cublasStatus_t setup = cublasSetStream(handle, stream);
  if (setup == CUBLAS_STATUS_SUCCESS) setup = cublasSetWorkspace(handle, workspace, kCublasWorkspaceBytes);
  if (setup != CUBLAS_STATUS_SUCCESS) {
    return fail(NVOPS_ERROR_CUBLAS, std::string("nvopsMatmul: binding cuBLAS to the stream: ") +
                                        cublasGetStatusString(setup));
  }
  const float alpha_value = static_cast<float>(alpha);
  const cudaDataType_t type = cuda_type(a->dtype);
  // Column-major C^T (n x m, leading dim n) = op(B-side) (n x k) times op(A-side) (k x m).
  // A row-major operand read column-major is already its transpose (CUBLAS_OP_N);
  // a transposed one is read as stored and transposed by cuBLAS (CUBLAS_OP_T).
  const cublasStatus_t status = cublasGemmStridedBatchedEx(
      handle, right.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, left.transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
      static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha_value, b->data, type,
      static_cast<int>(right.leading), right.batch_stride, a->data, type, static_cast<int>(left.leading),
      left.batch_stride, &beta_value, out->data, type, static_cast<int>(n), m * n, static_cast<int>(batch),
      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (status != CUBLAS_STATUS_SUCCESS) {
    return fail(NVOPS_ERROR_CUBLAS, std::string("nvopsMatmul: ") + cublasGetStatusString(status));
  }
  return NVOPS_SUCCESS;
}

}  // extern "C"
