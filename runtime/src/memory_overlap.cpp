#include <torch_fl/memory_overlap.h>

#include <ATen/MemoryOverlap.h>

namespace torch_fl {

// ATen's own checks, so that the rules and the messages are PyTorch's: they
// compare storages and byte ranges only, never device memory contents.
void check_no_internal_overlap(const at::Tensor& written) { at::assert_no_internal_overlap(written); }

void check_no_partial_overlap(const at::Tensor& written, const at::Tensor& input) {
  if (input.defined()) at::assert_no_partial_overlap(written, input);
}

void check_no_partial_overlap(const at::Tensor& written, const std::optional<at::Tensor>& input) {
  if (input.has_value()) check_no_partial_overlap(written, *input);
}

void check_no_partial_overlap(const at::Tensor& written, const at::ITensorListRef& inputs) {
  for (const at::Tensor& input : inputs) check_no_partial_overlap(written, input);
}

}  // namespace torch_fl
