#include "device_backend_base.h"

#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include <torch_fl/backend_info.h>

#include "common.h"

namespace torch_fl::collectives {

DeviceBackendBase::DeviceBackendBase(int rank, int size, std::string name)
    : c10d::Backend(rank, size), name_(std::move(name)) {}

std::string DeviceBackendBase::description(const char* collective) const {
  return describe(collective, name_, getRank(), getSize());
}

CollectiveSetup::CollectiveSetup(const DeviceBackendBase& backend, const char* collective, c10d::OpType type,
                                 Takes takes)
    : collective_(collective),
      type_(type),
      backend_(backend),
      takes_(takes),
      description_(backend.description(collective)) {}

void CollectiveSetup::refuse(const std::string& problem) const { TORCH_CHECK(false, description_, ": ", problem); }

c10::Device CollectiveSetup::check(const at::Tensor& t) {
  if (!t.defined()) refuse("got an undefined tensor");
  const c10::Device device = t.device();
  const bool on_cpu = device.type() == c10::DeviceType::CPU && takes_ == Takes::kDeviceAndCpuTensors;
  if (device.type() != c10::DeviceType::PrivateUse1 && !on_cpu) {
    const std::string takes = takes_ == Takes::kDeviceTensors ? " tensors (the group's CPU tensors go to its Gloo)"
                                                              : " and cpu tensors";
    refuse("tensors on " + device.str() + " are not this backend's; it takes " +
           c10::DeviceTypeName(c10::DeviceType::PrivateUse1, /*lower_case=*/true) + takes);
  }
  if (device_ && *device_ != device) {
    refuse("tensors on " + device_->str() + " and " + device.str() + ": one collective takes tensors of one device");
  }
  device_ = device;
  if (t.is_sparse()) refuse("sparse tensors are not supported");
  if (on_cpu) return device;
  if (!spec_declares(t.scalar_type())) {
    refuse("dtype " + dtype_name(t.scalar_type()) + " is not supported (the spec's distributed.dtypes: " +
           backend_info().collective_dtypes + ")");
  }
  if (!t.is_contiguous()) refuse("tensors must be contiguous (call .contiguous() first)");
  return device;
}

const char* CollectiveSetup::profiling_title() const { return interned(backend_.getBackendName() + ":" + collective_); }

std::vector<const at::Tensor*> tensors_of(std::initializer_list<const std::vector<at::Tensor>*> lists) {
  std::vector<const at::Tensor*> out;
  for (const auto* list : lists) {
    for (const at::Tensor& t : *list) out.push_back(&t);
  }
  return out;
}

std::vector<const at::Tensor*> tensors_of(const std::vector<std::vector<at::Tensor>>& lists,
                                          const std::vector<at::Tensor>& list) {
  std::vector<const at::Tensor*> out = tensors_of({&list});
  for (const auto& inner : lists) {
    for (const at::Tensor& t : inner) out.push_back(&t);
  }
  return out;
}

void wait_for_current_stream(const c10::Device& device, const c10::Stream& stream) {
  const c10::impl::VirtualGuardImpl guard(device.type());
  c10::Event ready(device.type());
  ready.record(guard.getStream(device));
  ready.block(stream);
}

}  // namespace torch_fl::collectives
