#include "common.h"

#include <mutex>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include <torch_fl/backend_info.h>
#include "driver.h"

namespace torch_fl::collectives {

std::string dtype_name(c10::ScalarType dtype) { return std::string(c10::getDtypeNames(dtype).first); }

bool spec_declares(c10::ScalarType dtype) {
  const std::string name = dtype_name(dtype);
  std::stringstream declared(backend_info().collective_dtypes);
  for (std::string item; std::getline(declared, item, ',');) {
    if (item == name) return true;
  }
  return false;
}

std::string describe(const char* collective, const std::string& backend_name, int rank, int size) {
  std::ostringstream out;
  out << "[" << driver().vendor << "] " << collective << " (" << backend_name << ", rank " << rank << " of " << size
      << ")";
  return out.str();
}

std::exception_ptr named_error(const std::string& description, const std::string& what) {
  try {
    C10_THROW_ERROR(DistBackendError, description + " failed: " + what);
  } catch (...) {
    return std::current_exception();
  }
}

std::exception_ptr current_error(const std::string& description) {
  try {
    throw;
  } catch (const c10::Error& e) {
    return named_error(description, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return named_error(description, e.what());
  } catch (...) {
    return named_error(description, "an unknown exception");
  }
}

const char* interned(const std::string& title) {
  static std::mutex mutex;
  static std::unordered_set<std::string> titles;
  const std::lock_guard<std::mutex> lock(mutex);
  return titles.insert(title).first->c_str();
}

c10::Stream collective_stream_of(const c10::Device& device) {
  static std::mutex mutex;
  static std::unordered_map<c10::DeviceIndex, c10::Stream> streams;
  const std::lock_guard<std::mutex> lock(mutex);
  auto found = streams.find(device.index());
  if (found == streams.end()) {
    const c10::impl::VirtualGuardImpl guard(device.type());
    found = streams.emplace(device.index(), guard.getStreamFromGlobalPool(device, /*isHighPriority=*/false)).first;
  }
  return found->second;
}

}  // namespace torch_fl::collectives
