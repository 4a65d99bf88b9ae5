// Which vendor spec this backend was generated from. Generated code registers
// it at load time; the runtime and the Python package read it.
#pragma once

#include <torch_fl/collectives_abi.h>

namespace torch_fl {

struct BackendInfo {
  const char* vendor = "";
  const char* device = "";
  const char* spec_path = "";
  const char* spec_sha256 = "";
  const char* torch_version = "";
  // The spec's `distributed:` section: the c10d backend name and the dtypes its
  // collectives take, comma-separated ("" when the spec declares no backend).
  const char* collective_backend = "";
  const char* collective_dtypes = "";
  // How its collectives move data (`distributed.transport`): "gloo_staged", or
  // "vendor_ccl" with the vendor library's collectives table (else null).
  const char* collective_transport = "";
  const TflCollectives* (*vendor_collectives)() = nullptr;
};

const BackendInfo& backend_info();

struct BackendInfoRegistration {
  BackendInfoRegistration(const char* vendor, const char* device, const char* spec_path, const char* spec_sha256,
                          const char* torch_version, const char* collective_backend,
                          const char* collective_dtypes, const char* collective_transport,
                          const TflCollectives* (*vendor_collectives)());
};

}  // namespace torch_fl
