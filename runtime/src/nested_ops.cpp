// Nested tensors on the device: a NestedTensorImpl whose buffer is device memory
// (its sizes, strides and offsets stay on the host, as on CUDA). Their ops run on
// the CPU fallback; what moving and copying one needs is registered here, from
// ATen's device-generic implementations. TransformerEncoder's inference fast path
// makes them from a padding mask without being asked.
#include <ATen/ATen.h>
#include <ATen/ops/_to_copy_native.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/copy_native.h>
#include <ATen/ops/empty_like_native.h>
#include <ATen/ops/unbind_native.h>
#include <ATen/ops/values_native.h>
#include <torch/library.h>

namespace torch_fl {

TORCH_LIBRARY_IMPL(aten, NestedTensorPrivateUse1, m) {
  m.impl("_to_copy", TORCH_FN(at::native::_to_copy_nested));
  m.impl("empty_like", TORCH_FN(at::native::empty_like_nested));
  m.impl("copy_", TORCH_FN(at::native::copy_nested_));
  m.impl("clone", TORCH_FN(at::native::clone_nested));
  // Views of the buffer: on the fallback they would be copies.
  m.impl("unbind.int", TORCH_FN(at::native::NestedTensor_unbind));
  m.impl("values", TORCH_FN(at::native::values_nested));
}

}  // namespace torch_fl
