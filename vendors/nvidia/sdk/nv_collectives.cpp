// The nvidia vendor's collectives table (torch_fl/collectives_abi.h) on NCCL,
// from the nvidia-nccl wheel: specs/nvidia.yaml says `transport: vendor_ccl`,
// and the runtime's DeviceCclBackend drives this table. Each call is NCCL's
// own, on the driver ABI's stream (a cudaStream_t); the communicator is made
// with its device current, as NCCL requires.
#include <torch_fl/collectives_abi.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace {

ncclComm_t comm_of(tflComm comm) { return reinterpret_cast<ncclComm_t>(comm); }
cudaStream_t stream_of(tflStream stream) { return reinterpret_cast<cudaStream_t>(stream); }

// The ABI's dtypes NCCL has (the spec's distributed.dtypes lists a subset;
// bool and complex have no NCCL type).
ncclDataType_t nccl_dtype(tflDtype dtype) {
  switch (dtype) {
    case TFL_DTYPE_INT8: return ncclInt8;
    case TFL_DTYPE_UINT8: return ncclUint8;
    case TFL_DTYPE_INT32: return ncclInt32;
    case TFL_DTYPE_INT64: return ncclInt64;
    case TFL_DTYPE_FLOAT16: return ncclFloat16;
    case TFL_DTYPE_BFLOAT16: return ncclBfloat16;
    case TFL_DTYPE_FLOAT32: return ncclFloat32;
    case TFL_DTYPE_FLOAT64: return ncclFloat64;
    default: return ncclNumTypes;  // refused by NCCL as ncclInvalidArgument
  }
}

ncclRedOp_t nccl_op(tflReduceOp op) {
  switch (op) {
    case TFL_REDUCE_SUM: return ncclSum;
    case TFL_REDUCE_PRODUCT: return ncclProd;
    case TFL_REDUCE_MAX: return ncclMax;
    case TFL_REDUCE_MIN: return ncclMin;
    case TFL_REDUCE_AVG: return ncclAvg;
  }
  return ncclNumOps;
}

tflStatus status(ncclResult_t result) { return static_cast<tflStatus>(result); }

const char* library_name() {
  static const std::string name = [] {
    int version = 0;
    if (ncclGetVersion(&version) != ncclSuccess) return std::string("NCCL");
    // Codes from 2.9 on are major * 10000 + minor * 100 + patch.
    return "NCCL " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
  }();
  return name.c_str();
}

tflStatus get_unique_id(void* unique_id) { return status(ncclGetUniqueId(static_cast<ncclUniqueId*>(unique_id))); }

tflStatus comm_init(const void* unique_id, int32_t world_size, int32_t rank, int32_t device, tflComm* comm) {
  if (cudaSetDevice(device) != cudaSuccess) {
    cudaGetLastError();
    return status(ncclUnhandledCudaError);
  }
  ncclComm_t made = nullptr;
  const ncclResult_t result =
      ncclCommInitRank(&made, world_size, *static_cast<const ncclUniqueId*>(unique_id), rank);
  *comm = reinterpret_cast<tflComm>(made);
  return status(result);
}

tflStatus comm_destroy(tflComm comm) { return status(ncclCommDestroy(comm_of(comm))); }
tflStatus comm_abort(tflComm comm) { return status(ncclCommAbort(comm_of(comm))); }

tflStatus comm_async_error(tflComm comm, tflStatus* error) {
  ncclResult_t async = ncclSuccess;
  const ncclResult_t result = ncclCommGetAsyncError(comm_of(comm), &async);
  *error = status(async);
  return status(result);
}

tflStatus all_reduce(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, tflComm comm,
                     tflStream stream) {
  return status(ncclAllReduce(send, recv, count, nccl_dtype(dtype), nccl_op(op), comm_of(comm), stream_of(stream)));
}

tflStatus broadcast(const void* send, void* recv, size_t count, tflDtype dtype, int32_t root, tflComm comm,
                    tflStream stream) {
  return status(ncclBroadcast(send, recv, count, nccl_dtype(dtype), root, comm_of(comm), stream_of(stream)));
}

tflStatus reduce(const void* send, void* recv, size_t count, tflDtype dtype, tflReduceOp op, int32_t root,
                 tflComm comm, tflStream stream) {
  return status(
      ncclReduce(send, recv, count, nccl_dtype(dtype), nccl_op(op), root, comm_of(comm), stream_of(stream)));
}

tflStatus all_gather(const void* send, void* recv, size_t send_count, tflDtype dtype, tflComm comm,
                     tflStream stream) {
  return status(ncclAllGather(send, recv, send_count, nccl_dtype(dtype), comm_of(comm), stream_of(stream)));
}

tflStatus reduce_scatter(const void* send, void* recv, size_t recv_count, tflDtype dtype, tflReduceOp op,
                         tflComm comm, tflStream stream) {
  return status(ncclReduceScatter(send, recv, recv_count, nccl_dtype(dtype), nccl_op(op), comm_of(comm),
                                  stream_of(stream)));
}

tflStatus send(const void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream) {
  return status(ncclSend(buffer, count, nccl_dtype(dtype), peer, comm_of(comm), stream_of(stream)));
}

tflStatus recv(void* buffer, size_t count, tflDtype dtype, int32_t peer, tflComm comm, tflStream stream) {
  return status(ncclRecv(buffer, count, nccl_dtype(dtype), peer, comm_of(comm), stream_of(stream)));
}

tflStatus group_start() { return status(ncclGroupStart()); }
tflStatus group_end() { return status(ncclGroupEnd()); }

const char* status_string(tflStatus code) { return ncclGetErrorString(static_cast<ncclResult_t>(code)); }

}  // namespace

extern "C" const TflCollectives* torch_fl_vendor_collectives(void) {
  static const TflCollectives table = {
      TFL_COLLECTIVES_ABI_VERSION, library_name(), NCCL_UNIQUE_ID_BYTES, get_unique_id, comm_init, comm_destroy,
      comm_abort, comm_async_error, all_reduce, broadcast, reduce, all_gather, reduce_scatter, send, recv,
      group_start, group_end, status_string};
  return &table;
}
