#include "ipc.h"

#include <ATen/ATen.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>
#include <torch/library.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "allocator.h"
#include "driver.h"
#include "ipc_slots.h"
#include <torch_fl/device.h>
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {

// What crosses the process boundary for one sent storage: trivially copyable,
// pickled as bytes beside the tensor's dtype and view.
struct SentRecord {
  uint64_t magic;           // kRecordMagic
  char vendor[16];          // the producer's driver: another backend's record is refused
  int32_t device;
  int32_t unused;
  tflIpcMemHandle segment;  // the driver allocation holding the storage
  uint64_t segment_bytes;
  uint64_t offset;          // of the storage in the segment
  uint64_t storage_bytes;
  SlotAddress slot;
};
constexpr uint64_t kRecordMagic = 0x7466'6c5f'6970'6331ULL;  // "tfl_ipc1"

// The context of a sent storage's DataPtr.
struct SentStorage {
  c10::DataPtr block;          // the allocator's DataPtr, freed once every slot is done
  std::vector<int32_t> slots;  // one per send
};

std::mutex& ipc_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}
// Sent storages freed by the producer while a consumer may still use them.
std::vector<SentStorage*>& limbo() {
  static auto* storages = new std::vector<SentStorage*>();
  return *storages;
}
// Storages this process sent, by slot: a tensor sent back to its producer gets its
// own storage again, as CUDA's IPC does.
std::map<int32_t, c10::weak_intrusive_ptr<c10::StorageImpl>>& sent_by_slot() {
  static auto* storages = new std::map<int32_t, c10::weak_intrusive_ptr<c10::StorageImpl>>();
  return *storages;
}

bool all_done(const SentStorage& sent) {
  for (int32_t slot : sent.slots) {
    if (!slot_done(slot)) return false;
  }
  return true;
}

// Under ipc_mutex(): the slots are free for other sends.
void forget_slots(const SentStorage& sent) {
  for (int32_t slot : sent.slots) {
    sent_by_slot().erase(slot);
    free_slot(slot);
  }
}

void sent_deleter(void* context) {
  // A child forked from the producer frees what it inherited: the slots are the
  // parent's, and so is the block. Leaked in the child.
  if (in_bad_fork()) return;
  auto* sent = static_cast<SentStorage*>(context);
  {
    std::lock_guard<std::mutex> lock(ipc_mutex());
    if (!all_done(*sent)) {
      limbo().push_back(sent);
      return;
    }
    forget_slots(*sent);
  }
  delete sent;  // the block goes back to the caching allocator
}

// Memory of another process mapped here, once per segment; the last storage over
// it closes it.
struct Import {
  void* ptr = nullptr;
  int users = 0;
};
using ImportKey = std::string;  // the handle's bytes and the device
std::map<ImportKey, Import>& imports() {
  static auto* opened = new std::map<ImportKey, Import>();
  return *opened;
}

struct ReceivedStorage {
  ImportKey import;
  std::atomic<int32_t>* slot;
  c10::DeviceIndex device;
};

void release_import(const ImportKey& key) {
  void* to_close = nullptr;
  {
    std::lock_guard<std::mutex> lock(ipc_mutex());
    auto found = imports().find(key);
    if (found == imports().end() || --found->second.users > 0) return;
    to_close = found->second.ptr;
    imports().erase(found);
  }
  driver().ipc_close_mem_handle(to_close);  // a failure leaves the mapping; nothing to tell a deleter's caller
}

void received_deleter(void* context) {
  // A child forked from the consumer: releasing the parent's slot would let the
  // producer reuse memory the parent still reads. Leaked in the child.
  if (in_bad_fork()) return;
  std::unique_ptr<ReceivedStorage> received(static_cast<ReceivedStorage*>(context));
  // The producer may reuse the block once released: this process's work on it
  // must be over first.
  try {
    synchronize_device(received->device);
  } catch (const std::exception&) {  // a failed kernel was reported where it ran; the release goes on
  }
  received->slot->store(kSlotReleased);
  release_import(received->import);
}

std::string device_name() { return c10::get_privateuse1_backend(); }

bool ipc_supported(int64_t device) {
  return (driver().device_capabilities(static_cast<int32_t>(device)) & TFL_CAP_IPC_MEMORY) != 0;
}

at::Tensor record_tensor(const SentRecord& record) {
  at::Tensor bytes = at::empty({static_cast<int64_t>(sizeof record)}, at::kByte);
  std::memcpy(bytes.data_ptr(), &record, sizeof record);
  return bytes;
}

// A uint8 tensor over the whole of `storage`.
at::Tensor bytes_of(c10::intrusive_ptr<c10::StorageImpl> storage) {
  const int64_t nbytes = static_cast<int64_t>(storage->nbytes());
  const c10::Device device = storage->device();
  at::Tensor bytes = at::empty({0}, at::TensorOptions().dtype(at::kByte).device(device));
  return bytes.set_(c10::Storage(std::move(storage)), 0, {nbytes}, {1});
}

at::Tensor ipc_share(const at::Tensor& self) {
  check_not_forked();
  TORCH_CHECK(self.device().type() == c10::DeviceType::PrivateUse1, "torch_fl._ipc_share: a ", device_name(),
              " tensor is shared, not a ", self.device().type(), " one");
  const c10::DeviceIndex device = self.device().index();
  TORCH_CHECK(ipc_supported(device), "[", driver().vendor, "] ", device_name(),
              " memory cannot be shared between processes (the driver lacks TFL_CAP_IPC_MEMORY)");
  c10::StorageImpl* storage = self.storage().unsafeGetStorageImpl();
  collect_sent_storages();
  // The bytes are final when sent (CUDA sends an event instead). Not under the
  // lock: a task finishing meanwhile may free a sent storage, whose deleter takes it.
  synchronize_device(device);

  // Under the lock from the first look at the DataPtr: another thread's first send
  // of the same storage (one tensor put on two queues) swaps it.
  std::lock_guard<std::mutex> lock(ipc_mutex());
  TORCH_CHECK(storage->data_ptr().get_deleter() != &received_deleter, "[", driver().vendor, "] a ", device_name(),
              " tensor received from another process cannot be sent on; clone it first");
  const std::optional<SegmentOfBlock> segment = segment_of(allocator_data_ptr(storage->data_ptr()));
  TORCH_CHECK(segment.has_value(), "[", driver().vendor, "] this ", device_name(),
              " storage is not a block of the caching allocator (a private layout, or empty), so it cannot be shared");
  SentRecord record{};
  record.magic = kRecordMagic;
  std::strncpy(record.vendor, driver().vendor, sizeof record.vendor - 1);
  record.device = device;
  TORCH_FL_DRIVER_CHECK(driver().ipc_get_mem_handle(segment->base, &record.segment));
  record.segment_bytes = segment->size;
  record.offset = segment->offset;
  record.storage_bytes = storage->nbytes();

  SentStorage* sent = nullptr;
  if (storage->data_ptr().get_deleter() == &sent_deleter) {
    sent = static_cast<SentStorage*>(storage->data_ptr().get_context());
    // A storage sent every step: the slots of its earlier sends that were
    // released are free again, or it would hold one per send.
    std::vector<int32_t> still_used;
    for (int32_t slot : sent->slots) {
      if (slot_done(slot)) {
        sent_by_slot().erase(slot);
        free_slot(slot);
      } else {
        still_used.push_back(slot);
      }
    }
    sent->slots.swap(still_used);
  }
  record.slot = take_slot();
  if (sent == nullptr) {  // the first send: the storage's DataPtr now wraps the allocator's
    sent = new SentStorage();
    void* data = storage->data_ptr().get();
    sent->block = storage->set_data_ptr(c10::DataPtr(data, sent, &sent_deleter, storage->device()));
  }
  sent->slots.push_back(record.slot.index);
  sent_by_slot().insert_or_assign(record.slot.index, c10::weak_intrusive_ptr<c10::StorageImpl>(
                                                         c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(storage)));
  return record_tensor(record);
}

at::Tensor ipc_open(const at::Tensor& record_bytes, int64_t device) {
  check_not_forked();
  SentRecord record{};
  TORCH_CHECK(record_bytes.device().is_cpu() && record_bytes.scalar_type() == at::kByte &&
                  record_bytes.numel() == static_cast<int64_t>(sizeof record),
              "torch_fl._ipc_open: expected the ", sizeof record, " bytes of a sent record");
  std::memcpy(&record, record_bytes.contiguous().data_ptr(), sizeof record);
  TORCH_CHECK(record.magic == kRecordMagic && std::strncmp(record.vendor, driver().vendor, sizeof record.vendor) == 0,
              "[", driver().vendor, "] received a tensor shared by another backend (",
              std::string(record.vendor, strnlen(record.vendor, sizeof record.vendor)), ")");
  check_device_index(static_cast<c10::DeviceIndex>(device));

  if (record.slot.pid == static_cast<int32_t>(getpid())) {  // back at its producer: the storage itself
    c10::weak_intrusive_ptr<c10::StorageImpl> sent(c10::intrusive_ptr<c10::StorageImpl>{});
    {
      std::lock_guard<std::mutex> lock(ipc_mutex());
      auto found = sent_by_slot().find(record.slot.index);
      if (found != sent_by_slot().end()) sent = found->second;
    }
    // Outside the lock: locking a weak pointer may take the GIL, which a thread
    // freeing the storage (and so waiting for the lock in sent_deleter) holds.
    c10::intrusive_ptr<c10::StorageImpl> storage = sent.lock();
    remote_slot(record.slot).store(kSlotReleased);  // this send holds the block no longer
    TORCH_CHECK(storage, "[", driver().vendor, "] a ", device_name(),
                " tensor this process sent was freed before it came back");
    return bytes_of(std::move(storage));
  }

  std::atomic<int32_t>& slot = remote_slot(record.slot);
  const ImportKey key = std::string(reinterpret_cast<const char*>(record.segment.bytes), sizeof record.segment.bytes) +
                        std::to_string(device);
  void* base = nullptr;
  {
    std::lock_guard<std::mutex> lock(ipc_mutex());
    Import& import = imports()[key];
    if (import.users == 0) {
      size_t bytes = 0;
      const tflStatus status =
          driver().ipc_open_mem_handle(static_cast<int32_t>(device), &record.segment, &import.ptr, &bytes);
      if (status != TFL_SUCCESS || (bytes != 0 && bytes < record.segment_bytes)) {
        imports().erase(key);
        TORCH_FL_DRIVER_CHECK(status);
        TORCH_CHECK(false, "[", driver().vendor, "] the shared segment has ", bytes, " bytes; the sender had ",
                    record.segment_bytes);
      }
    }
    import.users += 1;
    base = import.ptr;
  }
  int32_t expected = kSlotSent;
  if (!slot.compare_exchange_strong(expected, static_cast<int32_t>(getpid()))) {
    release_import(key);
    TORCH_CHECK(false, "[", driver().vendor, "] this ", device_name(),
                " tensor was already received (each send is received once)");
  }
  auto* received = new ReceivedStorage{key, &slot, static_cast<c10::DeviceIndex>(device)};
  c10::DataPtr data(static_cast<char*>(base) + record.offset, received, &received_deleter,
                    make_device(static_cast<c10::DeviceIndex>(device)));
  auto storage = c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(), record.storage_bytes,
                                                       std::move(data), /*allocator=*/nullptr, /*resizable=*/false);
  return bytes_of(std::move(storage));
}

bool ipc_is_received(const at::Tensor& self) {
  return self.device().type() == c10::DeviceType::PrivateUse1 && self.storage().data_ptr().get_deleter() == &received_deleter;
}

TORCH_LIBRARY_FRAGMENT(torch_fl, m) {
  m.def("_ipc_supported(int device) -> bool", &ipc_supported);
  m.def("_ipc_share(Tensor self) -> Tensor", &ipc_share);
  m.def("_ipc_open(Tensor record, int device) -> Tensor", &ipc_open);
  m.def("_ipc_is_received(Tensor self) -> bool", &ipc_is_received);
  m.def("_ipc_collect() -> int", &collect_sent_storages);
}

}  // namespace

const c10::DataPtr& allocator_data_ptr(const c10::DataPtr& data) {
  if (data.get_deleter() != &sent_deleter) return data;
  return static_cast<const SentStorage*>(data.get_context())->block;
}

int64_t collect_sent_storages() {
  if (in_bad_fork()) return 0;  // the limbo is the parent's
  std::vector<SentStorage*> done;
  {
    std::lock_guard<std::mutex> lock(ipc_mutex());
    auto& waiting = limbo();
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (all_done(**it)) {
        forget_slots(**it);
        done.push_back(*it);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (SentStorage* sent : done) delete sent;  // outside the lock: the allocator takes its own
  return static_cast<int64_t>(done.size());
}

}  // namespace torch_fl
