// The detail of the calling thread's last failed call into a simulated chip's
// API, which the chip's "get last error" function reads back (mlu:
// mluGetLastErrorDetail, npu: npurtGetRecentErrMsg).
#pragma once

#include <string>
#include <utility>

namespace torch_fl::sim {

void set_error_detail(std::string detail);
const char* error_detail();

// Records `detail` and returns the chip's own status code: `return fail(CODE, "...");`
template <class Status>
Status fail(Status status, std::string detail) {
  set_error_detail(std::move(detail));
  return status;
}

}  // namespace torch_fl::sim
