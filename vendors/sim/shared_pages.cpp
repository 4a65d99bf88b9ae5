#include "shared_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace torch_fl::sim {
namespace {

std::string system_error(const char* what, int error) { return std::string(what) + ": " + std::strerror(error); }

}  // namespace

SharedPages::~SharedPages() {
  for (const auto& [ptr, mapping] : shared_) ::close(mapping.fd);
}

std::string SharedPages::share(void* ptr, SharedPagesHandle* handle) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = arena_.allocation_size(ptr);
  if (bytes == 0) return "not the start of a live device allocation";
  if (reinterpret_cast<uintptr_t>(ptr) % page != 0 || bytes % page != 0) {
    return "the allocation is not page-aligned (a caching-allocator segment is)";
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (opened_.count(ptr)) return "memory opened from another process cannot be shared on";
  auto found = shared_.find(ptr);
  if (found == shared_.end()) {
    const int fd = memfd_create("torch_fl_shared_device_memory", MFD_CLOEXEC);
    if (fd < 0) return system_error("memfd_create", errno);
    struct stat status {};
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0 || fstat(fd, &status) != 0) {
      const int error = errno;
      ::close(fd);
      return system_error("sizing the memfd", error);
    }
    // The bytes so far, through a second mapping of the memfd; then the memfd
    // replaces the allocation's pages at the same addresses.
    void* staging = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (staging == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      return system_error("mmap", error);
    }
    {
      DeviceArena::AccessScope access(arena_);
      std::memcpy(staging, ptr, bytes);
    }
    const int error = arena_.map_over(ptr, bytes, fd);
    munmap(staging, bytes);
    if (error != 0) {  // the allocation keeps its own pages and bytes
      ::close(fd);
      return system_error("mmap over the allocation", error);
    }
    found = shared_.emplace(ptr, Mapping{fd, static_cast<uint64_t>(status.st_ino), bytes}).first;
  }
  *handle = SharedPagesHandle{kSharedPagesMagic, chip_, device_, static_cast<int32_t>(getpid()),
                              found->second.fd, 0, found->second.inode, found->second.bytes};
  return "";
}

std::string SharedPages::forget(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = shared_.find(ptr);
  if (found == shared_.end()) return "";
  // A consumer's mapping keeps the memfd's pages; this process gets fresh ones.
  if (const int error = arena_.map_over(ptr, found->second.bytes, -1)) {
    return system_error("mmap private memory back over a shared allocation", error);
  }
  ::close(found->second.fd);
  shared_.erase(found);
  return "";
}

std::string SharedPages::open(const SharedPagesHandle& handle, void** ptr, size_t* bytes) {
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
      static_cast<uint64_t>(status.st_size) != handle.bytes) {
    ::close(fd);
    return "the producing process (pid " + std::to_string(handle.pid) + ") is gone";
  }
  void* hole = arena_.allocate_pages(handle.bytes);
  if (hole == nullptr) {
    ::close(fd);
    return "out of memory: no room for " + std::to_string(handle.bytes) + " bytes of shared memory";
  }
  const int error = arena_.map_over(hole, handle.bytes, fd);
  ::close(fd);  // the mapping keeps the memfd alive
  if (error != 0) {
    arena_.release(hole);
    return system_error("mmap", error);
  }
  std::lock_guard<std::mutex> lock(mutex_);
  opened_.emplace(hole, Mapping{-1, handle.inode, handle.bytes});
  *ptr = hole;
  *bytes = handle.bytes;
  return "";
}

std::string SharedPages::close(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = opened_.find(ptr);
  if (found == opened_.end()) return "not memory opened from another process";
  if (const int error = arena_.map_over(ptr, found->second.bytes, -1)) {
    return system_error("mmap private memory back over opened memory", error);
  }
  arena_.release(ptr);
  opened_.erase(found);
  return "";
}

bool SharedPages::is_opened(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return opened_.count(const_cast<void*>(ptr)) != 0;
}

}  // namespace torch_fl::sim
