// Who still uses device memory sent to another process (torch.multiprocessing).
//
// The producer must not reuse a sent block while a consumer may read or write
// it, so each send takes a slot in a small file of counters that both sides map:
// the producer marks it sent, the consumer marks it opened (with its pid) and
// later released. The producer frees a sent storage's block only once every
// slot is released, or opened by a process that has died. CUDA's IPC keeps the
// same counters in a file under /dev/shm; ours is a memfd that the consumer
// opens through the producer's /proc/<pid>/fd, as the simulators' shared pages.
// It is host memory owned by the runtime, so every vendor with IPC uses it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace torch_fl {

// Where a slot lives: the producer's pid and counter file, and the index.
struct SlotAddress {
  int32_t pid = 0;
  int32_t fd = -1;
  uint64_t inode = 0;
  int32_t index = -1;
};

// A slot's value: 0 free, kSent, a consumer's pid (opened), or kReleased.
constexpr int32_t kSlotFree = 0;
constexpr int32_t kSlotSent = -1;
constexpr int32_t kSlotReleased = -2;

// This process's slots (the producer's side).
// A free slot marked sent; raises when all are taken (memory sent and never
// opened or released: a consumer that never read its queue).
SlotAddress take_slot();
// Whether the memory may be reused as far as this slot is concerned: released,
// or opened by a process that no longer exists. A sent slot whose consumer never
// opened it keeps the memory (the message may still be in a queue).
bool slot_done(int32_t index);
void free_slot(int32_t index);

// The consumer's side: the slot in the producer's file, mapped on first use.
// Raises when the producer is gone.
std::atomic<int32_t>& remote_slot(const SlotAddress& address);

}  // namespace torch_fl
