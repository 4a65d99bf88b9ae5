// Sparse COO tensors on the device: their indices and values are device tensors,
// and their ops run on the CPU fallback (a vendor spec has no sparse kernels).
// ATen's device-generic kernels for the accessors (views of the indices and
// values, so never on the fallback), copies and resizing are registered from
// runtime/aten_kernels.yaml; construction, which needs a device guard, and
// clone are registered here.
#include <ATen/ATen.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_and_tensors_native.h>
#include <ATen/ops/_sparse_coo_tensor_with_dims_native.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/empty_native.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

namespace torch_fl {
namespace {

// ATen's constructors make the new sparse tensor's own (empty) indices and values on the
// device type's *current* device before adopting the real ones: made on device 0 while the
// indices and values are on device 1, the tensor fails SparseTensorImpl's device check
// (`s.to("mlu:1")` from device 0 did). Registered kernels get no device guard of their own
// (CUDA's get one from the generated wrapper), so the constructors are guarded here.
at::Tensor with_dims(int64_t sparse_dim, int64_t dense_dim, at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                     std::optional<at::Layout> layout, std::optional<at::Device> device,
                     std::optional<bool> pin_memory) {
  c10::OptionalDeviceGuard guard(device);
  return at::native::new_with_dims_sparse(sparse_dim, dense_dim, size, dtype, layout, device, pin_memory);
}

at::Tensor with_dims_and_tensors(int64_t sparse_dim, int64_t dense_dim, c10::SymIntArrayRef size,
                                 const at::Tensor& indices, const at::Tensor& values,
                                 std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                                 std::optional<at::Device> device, std::optional<bool> pin_memory,
                                 std::optional<bool> is_coalesced) {
  c10::OptionalDeviceGuard guard(values.device());
  return at::native::new_with_dims_and_tensor_sparse_symint(sparse_dim, dense_dim, size, indices, values, dtype,
                                                            layout, device, pin_memory, is_coalesced);
}

at::Tensor empty(at::IntArrayRef size, std::optional<at::ScalarType> dtype, std::optional<at::Layout> layout,
                 std::optional<at::Device> device, std::optional<bool> pin_memory,
                 std::optional<at::MemoryFormat> memory_format) {
  c10::OptionalDeviceGuard guard(device);
  return at::native::empty_sparse(size, dtype, layout, device, pin_memory, memory_format);
}

at::Tensor clone(const at::Tensor& self, std::optional<at::MemoryFormat> memory_format) {
  c10::OptionalDeviceGuard guard(self.device());
  return at::native::clone_sparse(self, memory_format);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, SparsePrivateUse1, m) {
  m.impl("_sparse_coo_tensor_with_dims", TORCH_FN(with_dims));
  m.impl("_sparse_coo_tensor_with_dims_and_tensors", TORCH_FN(with_dims_and_tensors));
  m.impl("empty.memory_format", TORCH_FN(empty));
  m.impl("clone", TORCH_FN(clone));
}

}  // namespace torch_fl
