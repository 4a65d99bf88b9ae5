#include "shared_pages.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace torch_fl::sim {
namespace {

std::string system_error(const char* what, int error) { return std::string(what) + ": " + std::strerror(error); }

size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

// The handle's offset and bytes name the allocation exactly; what is mapped is
// the whole pages around it, so a consumer also sees the bytes of neighbours on
// its first and last page (CUDA maps at 2 MiB granules, with the same effect).
uint64_t first_page(uint64_t offset) { return offset / page_size() * page_size(); }
uint64_t mapped_bytes(uint64_t offset, uint64_t bytes) {
  const uint64_t end = offset + bytes;
  return (end + page_size() - 1) / page_size() * page_size() - first_page(offset);
}

}  // namespace

std::string SharedPages::share(void* ptr, SharedPagesHandle* handle) const {
  const size_t bytes = arena_.allocation_size(ptr);
  if (bytes == 0) return "not the start of a live device allocation";
  if (is_opened(ptr)) return "memory opened from another process cannot be shared on";
  *handle = SharedPagesHandle{kSharedPagesMagic, chip_,        device_, static_cast<int32_t>(getpid()), arena_.fd(), 0,
                              arena_.inode(),    arena_.offset_of(ptr), bytes};
  return "";
}

std::string SharedPages::open(const SharedPagesHandle& handle, void** ptr, size_t* bytes, bool* out_of_memory) {
  if (out_of_memory) *out_of_memory = false;
  if (handle.magic != kSharedPagesMagic || handle.chip != chip_) return "not a handle of this chip's memory";
  if (handle.device != device_) {
    return "a handle of device " + std::to_string(handle.device) + ", opened on device " + std::to_string(device_);
  }
  if (handle.pid == static_cast<int32_t>(getpid())) return "a handle from this process (use the memory itself)";
  const std::string path = "/proc/" + std::to_string(handle.pid) + "/fd/" + std::to_string(handle.fd);
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return "the producing process (pid " + std::to_string(handle.pid) + ") is gone";
    return system_error(("open " + path).c_str(), errno);
  }
  struct stat status {};
  if (fstat(fd, &status) != 0 || static_cast<uint64_t>(status.st_ino) != handle.inode ||
      static_cast<uint64_t>(status.st_size) < handle.offset + handle.bytes) {
    ::close(fd);
    return "the producing process (pid " + std::to_string(handle.pid) + ") is gone";
  }
  const uint64_t mapped = mapped_bytes(handle.offset, handle.bytes);
  void* hole = arena_.allocate_pages(mapped);
  if (hole == nullptr) {
    ::close(fd);
    if (out_of_memory) *out_of_memory = true;
    return "out of memory: no room for " + std::to_string(mapped) + " bytes of shared memory";
  }
  const int error = arena_.map_over(hole, mapped, fd, first_page(handle.offset));
  ::close(fd);  // the mapping keeps the memfd alive
  if (error != 0) {
    arena_.release(hole);
    return system_error("mmap", error);
  }
  void* opened = static_cast<uint8_t*>(hole) + (handle.offset - first_page(handle.offset));
  std::lock_guard<std::mutex> lock(mutex_);
  opened_.emplace(opened, mapped);
  *ptr = opened;
  *bytes = handle.bytes;
  return "";
}

std::string SharedPages::close(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = opened_.find(ptr);
  if (found == opened_.end()) return "not memory opened from another process";
  void* hole = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(ptr) / page_size() * page_size());
  if (const int error = arena_.map_over(hole, found->second, /*fd=*/-1, 0)) {
    return system_error("mmap this arena's memory back over opened memory", error);
  }
  arena_.release(hole);
  opened_.erase(found);
  return "";
}

bool SharedPages::is_opened(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return opened_.count(const_cast<void*>(ptr)) != 0;
}

}  // namespace torch_fl::sim
