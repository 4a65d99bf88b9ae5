// What the vendor's c10d backends share: the spec's dtype list, error and
// profiling names, and each device's side stream.
#pragma once

#include <exception>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <c10/core/Stream.h>

namespace torch_fl::collectives {

// Whether the spec's `distributed.dtypes` lists `dtype`.
bool spec_declares(c10::ScalarType dtype);
// "float32", as specs write it.
std::string dtype_name(c10::ScalarType dtype);

// "[mlu] all_reduce (cncl, rank 0 of 2)": how every message about a collective starts.
std::string describe(const char* collective, const std::string& backend_name, int rank, int size);
// A DistBackendError "<description> failed: <what>", as an exception_ptr.
std::exception_ptr named_error(const std::string& description, const std::string& what);
// The one in flight (call inside a catch block), as named_error.
std::exception_ptr current_error(const std::string& description);

// Work's profiling title is kept as a pointer by the profiler: one stable string per title.
const char* interned(const std::string& title);

// A stream of the device's pool kept for collectives (copies to host, or the
// vendor library's calls): one per device for the life of the process.
c10::Stream collective_stream_of(const c10::Device& device);

}  // namespace torch_fl::collectives
