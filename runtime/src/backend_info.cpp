#include <torch_fl/backend_info.h>

namespace torch_fl {
namespace {
// Written once by the generated registration during library load, before any reader.
BackendInfo g_info;
}  // namespace

const BackendInfo& backend_info() { return g_info; }

BackendInfoRegistration::BackendInfoRegistration(const char* vendor, const char* device, const char* spec_path,
                                                 const char* spec_sha256, const char* torch_version,
                                                 const char* collective_backend, const char* collective_dtypes,
                                                 const char* collective_transport,
                                                 const TflCollectives* (*vendor_collectives)()) {
  g_info = BackendInfo{vendor,           device,          spec_path,         spec_sha256,
                       torch_version,    collective_backend, collective_dtypes, collective_transport,
                       vendor_collectives};
}

}  // namespace torch_fl
