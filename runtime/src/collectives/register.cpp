// torch.ops.torch_fl.attach_staged_backend: how torch_fl.distributed builds the
// vendor's process group without a compiled Python extension. The Python
// creator passes (as ProcessGroup.boxed()) a group holding a Gloo backend for
// CPU and the group it will return to init_process_group; this gives the latter
// one StagedBackend over that Gloo for both PrivateUse1 and CPU tensors (one
// queue keeps their collectives in the order Gloo must see them on every rank),
// as its default backend.
#include <torch/library.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

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

}  // namespace

TORCH_LIBRARY(torch_fl, m) {
  m.def("attach_staged_backend(__torch__.torch.classes.c10d.ProcessGroup host_group, "
        "__torch__.torch.classes.c10d.ProcessGroup group, str backend_name) -> ()",
        &attach_staged_backend);
}

}  // namespace torch_fl::collectives
