// How torch_fl.distributed builds the vendor's process group without a compiled
// Python extension: dispatcher ops taking ProcessGroup.boxed().
//
// attach_staged_backend (`transport: gloo_staged`): the Python
// creator passes (as ProcessGroup.boxed()) a group holding a Gloo backend for
// CPU and the group it will return to init_process_group; this gives the latter
// one StagedBackend over that Gloo for both PrivateUse1 and CPU tensors (one
// queue keeps their collectives in the order Gloo must see them on every rank),
// as its default backend.
//
// `transport: vendor_ccl`: rank 0 makes the library's unique id
// (vendor_ccl_unique_id), the others read it from the group's store, and
// attach_vendor_ccl_backend gives the group a DeviceCclBackend for PrivateUse1
// tensors (its default) and the host group's Gloo for CPU tensors.
#include <ATen/ATen.h>
#include <torch/library.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include <torch_fl/backend_info.h>

#include "device_ccl_backend.h"
#include "staged_backend.h"

namespace torch_fl::collectives {
namespace {

void attach_staged_backend(const c10::intrusive_ptr<c10d::ProcessGroup>& host_group,
                           const c10::intrusive_ptr<c10d::ProcessGroup>& group, const std::string& backend_name) {
  TORCH_CHECK(host_group->hasBackendForDeviceType(c10::DeviceType::CPU),
              "attach_staged_backend: the host group has no CPU (Gloo) backend to stage onto");
  TORCH_CHECK(!group->hasBackends(), "attach_staged_backend: the group already has backends");
  auto staged = c10::make_intrusive<StagedBackend>(host_group->getBackend(c10::DeviceType::CPU), backend_name);
  for (const auto device_type : {c10::DeviceType::PrivateUse1, c10::DeviceType::CPU}) {
    group->setBackend(device_type, c10d::ProcessGroup::BackendType::CUSTOM, staged);
  }
  group->setDefaultBackend(c10d::ProcessGroup::BackendType::CUSTOM);
}

const TflCollectives& vendor_collectives() {
  const auto table = backend_info().vendor_collectives;
  TORCH_CHECK(table != nullptr, "torch_fl: this backend's spec declares no `distributed: {transport: vendor_ccl}`");
  const TflCollectives* library = table();
  TORCH_CHECK(library != nullptr && library->abi_version == TFL_COLLECTIVES_ABI_VERSION,
              "torch_fl: the vendor's collectives table has ABI version ",
              library ? static_cast<int64_t>(library->abi_version) : -1, "; this runtime takes ",
              TFL_COLLECTIVES_ABI_VERSION);
  return *library;
}

at::Tensor vendor_ccl_unique_id() {
  const TflCollectives& library = vendor_collectives();
  TORCH_CHECK(library.unique_id_bytes <= TFL_COLLECTIVES_MAX_UNIQUE_ID, library.library, ": a unique id of ",
              library.unique_id_bytes, " bytes is over the ABI's ", TFL_COLLECTIVES_MAX_UNIQUE_ID);
  at::Tensor id = at::zeros({static_cast<int64_t>(library.unique_id_bytes)}, at::kByte);
  const tflStatus status = library.get_unique_id(id.data_ptr());
  TORCH_CHECK(status == 0, "torch_fl: ", library.library, " could not make a unique id: ",
              library.status_string(status));
  return id;
}

void attach_vendor_ccl_backend(const c10::intrusive_ptr<c10d::ProcessGroup>& host_group,
                               const c10::intrusive_ptr<c10d::ProcessGroup>& group, const std::string& backend_name,
                               const at::Tensor& unique_id, int64_t timeout_ms) {
  TORCH_CHECK(host_group->hasBackendForDeviceType(c10::DeviceType::CPU),
              "attach_vendor_ccl_backend: the host group has no CPU (Gloo) backend");
  TORCH_CHECK(!group->hasBackends(), "attach_vendor_ccl_backend: the group already has backends");
  const at::Tensor id = unique_id.to(at::kByte).contiguous();
  const uint8_t* bytes = id.data_ptr<uint8_t>();
  auto device_backend = c10::make_intrusive<DeviceCclBackend>(
      vendor_collectives(), std::vector<uint8_t>(bytes, bytes + id.numel()), group->getRank(), group->getSize(),
      backend_name, std::chrono::milliseconds(timeout_ms));
  group->setBackend(c10::DeviceType::PrivateUse1, c10d::ProcessGroup::BackendType::CUSTOM, device_backend);
  group->setBackend(c10::DeviceType::CPU, c10d::ProcessGroup::BackendType::GLOO,
                    host_group->getBackend(c10::DeviceType::CPU));
  group->setDefaultBackend(c10d::ProcessGroup::BackendType::CUSTOM);
}

}  // namespace

TORCH_LIBRARY(torch_fl, m) {
  m.def("attach_staged_backend(__torch__.torch.classes.c10d.ProcessGroup host_group, "
        "__torch__.torch.classes.c10d.ProcessGroup group, str backend_name) -> ()",
        &attach_staged_backend);
  m.def("vendor_ccl_unique_id() -> Tensor", &vendor_ccl_unique_id);
  m.def("attach_vendor_ccl_backend(__torch__.torch.classes.c10d.ProcessGroup host_group, "
        "__torch__.torch.classes.c10d.ProcessGroup group, str backend_name, Tensor unique_id, int timeout_ms) -> ()",
        &attach_vendor_ccl_backend);
}

}  // namespace torch_fl::collectives
