// Memory-overlap checks of generated in-place and out= kernels.
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace torch_fl {

// PyTorch's memory-overlap rules for a tensor an op writes, as TensorIterator
// applies them, with ATen's messages: no two of its elements may share memory,
// and it may share memory with an input only exactly (in place), never partly.
// Checked before the native/fallback decision: the CPU fallback copies each
// tensor separately, so it could no longer see the aliasing.
void check_no_internal_overlap(const at::Tensor& written);
void check_no_partial_overlap(const at::Tensor& written, const at::Tensor& input);
void check_no_partial_overlap(const at::Tensor& written, const std::optional<at::Tensor>& input);
void check_no_partial_overlap(const at::Tensor& written, const at::ITensorListRef& inputs);

}  // namespace torch_fl
