// Nested tensors on the device: a NestedTensorImpl whose buffer is device memory
// (its sizes, strides and offsets stay on the host, as on CUDA). Their ops run on
// the CPU fallback; what moving and copying one needs is registered here, from
// ATen's device-generic implementations. TransformerEncoder's inference fast path
// makes them from a padding mask without being asked.
#include <ATen/ATen.h>
#include <ATen/ops/_to_copy_native.h>
#include <ATen/ops/alias_native.h>
#include <ATen/ops/chunk_native.h>
#include <ATen/ops/clone_native.h>
#include <ATen/ops/copy_native.h>
#include <ATen/ops/detach_native.h>
#include <ATen/ops/empty_like_native.h>
#include <ATen/ops/narrow_native.h>
#include <ATen/ops/select_native.h>
#include <ATen/ops/split_with_sizes_native.h>
#include <ATen/ops/squeeze_native.h>
#include <ATen/ops/transpose_native.h>
#include <ATen/ops/unbind_native.h>
#include <ATen/ops/unsqueeze_native.h>
#include <ATen/ops/values_native.h>
#include <ATen/ops/view_native.h>
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
  m.impl("alias", TORCH_FN(at::native::alias_nested));
  m.impl("detach", TORCH_FN(at::native::detach));  // a shallow copy, as NestedTensorCPU's
  m.impl("select.int", TORCH_FN(at::native::select_nested));
  m.impl("transpose.int", TORCH_FN(at::native::transpose_nested));
  m.impl("unsqueeze", TORCH_FN(at::native::unsqueeze_nested));
  m.impl("squeeze", TORCH_FN(at::native::squeeze_nested));
  m.impl("squeeze.dim", TORCH_FN(static_cast<at::Tensor (*)(const at::Tensor&, int64_t)>(
                            &at::native::squeeze_dim_nested)));
  m.impl("view", TORCH_FN(at::native::view_nested));
  m.impl("narrow", TORCH_FN(at::native::narrow_nested_symint));
  m.impl("split_with_sizes", TORCH_FN(at::native::split_with_sizes_nested));
  m.impl("chunk", TORCH_FN(at::native::chunk_nested_tensor));
}

}  // namespace torch_fl
