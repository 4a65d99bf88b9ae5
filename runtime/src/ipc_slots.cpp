#include "ipc_slots.h"

#include <c10/util/Exception.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>

namespace torch_fl {
namespace {

constexpr int32_t kSlots = 16384;  // 64 KiB of counters
constexpr size_t kFileBytes = kSlots * sizeof(std::atomic<int32_t>);
static_assert(std::atomic<int32_t>::is_always_lock_free, "the counters are shared between processes");

struct SlotFile {
  int fd = -1;
  uint64_t inode = 0;
  std::atomic<int32_t>* slots = nullptr;
  int32_t next = 0;  // where the search for a free slot starts
};

std::mutex& slots_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}

// Created on first send and never closed: consumers may open it until this process exits.
SlotFile& my_file() {
  static auto* file = [] {
    auto* created = new SlotFile();
    created->fd = memfd_create("torch_fl_ipc_slots", MFD_CLOEXEC);
    TORCH_CHECK(created->fd >= 0, "torch_fl: memfd_create for the IPC counters failed: ", std::strerror(errno));
    struct stat status {};
    TORCH_CHECK(ftruncate(created->fd, kFileBytes) == 0 && fstat(created->fd, &status) == 0,
                "torch_fl: sizing the IPC counters failed: ", std::strerror(errno));
    created->inode = static_cast<uint64_t>(status.st_ino);
    void* mapped = mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, created->fd, 0);
    TORCH_CHECK(mapped != MAP_FAILED, "torch_fl: mapping the IPC counters failed: ", std::strerror(errno));
    madvise(mapped, kFileBytes, MADV_DONTFORK);  // a forked child must not write the parent's counters
    created->slots = static_cast<std::atomic<int32_t>*>(mapped);  // zero-filled: every slot free
    return created;
  }();
  return *file;
}

}  // namespace

SlotAddress take_slot() {
  SlotFile& file = my_file();
  std::lock_guard<std::mutex> lock(slots_mutex());
  for (int32_t tried = 0; tried < kSlots; ++tried) {
    const int32_t index = (file.next + tried) % kSlots;
    int32_t expected = kSlotFree;
    if (file.slots[index].compare_exchange_strong(expected, kSlotSent)) {
      file.next = (index + 1) % kSlots;
      return SlotAddress{static_cast<int32_t>(getpid()), file.fd, file.inode, index};
    }
  }
  TORCH_CHECK(false, "torch_fl: ", kSlots, " device tensors sent to other processes are still in use or were never "
              "received; receive them (or let the receivers free them) before sending more");
}

bool slot_done(int32_t index) {
  const int32_t value = my_file().slots[index].load();
  if (value == kSlotReleased) return true;
  // An opened slot whose consumer died without releasing it.
  return value > 0 && kill(value, 0) != 0 && errno == ESRCH;
}

void free_slot(int32_t index) { my_file().slots[index].store(kSlotFree); }

std::atomic<int32_t>& remote_slot(const SlotAddress& address) {
  TORCH_CHECK(address.index >= 0 && address.index < kSlots, "torch_fl: IPC slot ", address.index, " is out of range");
  static auto* mapped = new std::map<std::tuple<int32_t, int32_t, uint64_t>, std::atomic<int32_t>*>();
  std::lock_guard<std::mutex> lock(slots_mutex());
  auto& slots = (*mapped)[{address.pid, address.fd, address.inode}];
  if (slots == nullptr) {
    const std::string path = "/proc/" + std::to_string(address.pid) + "/fd/" + std::to_string(address.fd);
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    struct stat status {};
    const bool same = fd >= 0 && fstat(fd, &status) == 0 && static_cast<uint64_t>(status.st_ino) == address.inode;
    void* view = same ? mmap(nullptr, kFileBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    const int error = errno;
    if (fd >= 0) ::close(fd);  // the mapping keeps the file
    if (view == MAP_FAILED) {
      mapped->erase({address.pid, address.fd, address.inode});
      TORCH_CHECK(fd >= 0 || error != ENOENT, "torch_fl: the process that sent this tensor (pid ", address.pid,
                  ") has exited; a device tensor must be received while its sender is alive");
      TORCH_CHECK(false, "torch_fl: cannot open the IPC counters of process ", address.pid, " (", path, "): ",
                  same ? std::strerror(error) : "the process that sent this tensor has exited");
    }
    madvise(view, kFileBytes, MADV_DONTFORK);
    slots = static_cast<std::atomic<int32_t>*>(view);
  }
  return slots[address.index];
}

}  // namespace torch_fl
