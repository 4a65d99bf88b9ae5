// For a vendor's SDK glue: a tensor list (cat's inputs) as the SDK's list of
// descriptors. Every SDK takes such a list as {count, pointer to descriptors};
// the descriptors must live until the call returns, so the glue's converter
// returns this object and the call takes its conversion to the SDK's list type.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

namespace torch_fl {

template <class Descriptor, class SdkList, Descriptor (*Describe)(const at::Tensor&)>
class DescriptorList {
 public:
  explicit DescriptorList(const at::ITensorListRef& tensors) {
    for (const at::Tensor& tensor : tensors) descriptors_.push_back(Describe(tensor));
  }
  operator SdkList() const { return {static_cast<int32_t>(descriptors_.size()), descriptors_.data()}; }

 private:
  std::vector<Descriptor> descriptors_;
};

}  // namespace torch_fl
