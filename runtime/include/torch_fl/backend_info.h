// Which vendor spec this backend was generated from. Generated code registers
// it at load time; the runtime and the Python package read it.
#pragma once

namespace torch_fl {

struct BackendInfo {
  const char* vendor = "";
  const char* device = "";
  const char* spec_path = "";
  const char* spec_sha256 = "";
  const char* torch_version = "";
};

const BackendInfo& backend_info();

struct BackendInfoRegistration {
  BackendInfoRegistration(const char* vendor, const char* device, const char* spec_path, const char* spec_sha256,
                          const char* torch_version);
};

}  // namespace torch_fl
