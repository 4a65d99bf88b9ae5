// Backend metadata of device tensors: torch._utils.set_tensor_metadata and
// get_tensor_metadata, which torch.save and torch.load call for every tensor
// (torch/csrc/jit/serialization/pickler_helper.h). Two kinds of entry:
//  - flags a vendor or user sets (a string -> bool map, torch's format for it),
//    kept on the tensor as c10::BackendMeta, which TensorImpl's own metadata
//    copies (detach, .data, shallow copies) carry along;
//  - the private format of the tensor's storage, "torch_fl.private_format.<name>",
//    added when it is saved. A save writes public bytes (reading the storage
//    makes it public, as any non-format-aware reader does); a load in a process
//    whose backend has that format and has formats on re-makes the loaded tensor
//    private (its storage takes a copy in the format), if the tensor is whole.
#include <torch/csrc/jit/serialization/pickler_helper.h>

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <torch_fl/private_format.h>

namespace torch_fl {
namespace {

constexpr std::string_view kFormatPrefix = "torch_fl.private_format.";

struct TensorFlags final : c10::BackendMeta {
  explicit TensorFlags(std::unordered_map<std::string, bool> values) : flags(std::move(values)) {}
  c10::intrusive_ptr<c10::BackendMeta> clone(const c10::intrusive_ptr<c10::BackendMeta>&) const override {
    return c10::make_intrusive<TensorFlags>(flags);
  }
  std::unordered_map<std::string, bool> flags;
};

void get_metadata(const at::Tensor& t, std::unordered_map<std::string, bool>& metadata) {
  if (const auto* tensor_flags = dynamic_cast<const TensorFlags*>(t.unsafeGetTensorImpl()->get_backend_meta())) {
    for (const auto& [key, value] : tensor_flags->flags) metadata[key] = value;
  }
  if (const PrivateFormat* format = private_format_of(t)) metadata[std::string(kFormatPrefix) + format->name] = true;
}

// A tensor torch.load has just made, whole on its storage (offset 0, contiguous,
// all of it), put in `format`. The loaded storage itself takes the private
// buffer, so every tensor torch.load made over it (a state dict's aliases,
// detached copies, views) still shares it; a view reads it public again, as
// views of a private tensor do.
void make_private(const at::Tensor& t, const PrivateFormat& format) {
  const bool whole = t.storage_offset() == 0 && t.is_contiguous() && t.dim() == format.rank &&
                     t.storage().nbytes() == static_cast<size_t>(t.numel()) * t.element_size();
  if (!whole || !private_formats_enabled() || private_format_of(t) != nullptr) return;
  const at::Tensor copy = private_copy(t, format);
  if (private_format_of(copy) == nullptr) return;
  c10::DataPtr buffer = copy.storage().unsafeGetStorageImpl()->set_data_ptr(c10::DataPtr(nullptr, copy.device()));
  t.storage().unsafeGetStorageImpl()->set_data_ptr_noswap(std::move(buffer));
}

void set_metadata(const at::Tensor& t, std::unordered_map<std::string, bool>& metadata) {
  std::unordered_map<std::string, bool> flags;
  const PrivateFormat* format = nullptr;
  for (const auto& [key, value] : metadata) {
    if (key.rfind(kFormatPrefix, 0) == 0) {
      // A format this backend lacks (another vendor saved it) leaves the tensor public.
      if (value) format = private_format_named(key.substr(kFormatPrefix.size()));
    } else {
      flags[key] = value;
    }
  }
  if (!flags.empty()) t.unsafeGetTensorImpl()->set_backend_meta(c10::make_intrusive<TensorFlags>(std::move(flags)));
  if (format != nullptr) make_private(t, *format);
}

const bool registered = [] {
  torch::jit::TensorBackendMetaRegistry(c10::DeviceType::PrivateUse1, &get_metadata, &set_metadata);
  return true;
}();

}  // namespace
}  // namespace torch_fl
