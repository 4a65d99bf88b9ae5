// How long a device has had work in its queues: what `torch-fl info` reports
// as utilisation. A device is busy while at least one of its queues holds
// work (running or waiting its turn), which is what nvidia-smi's utilisation
// means for a GPU; overlapping queues count once.
#pragma once

#include <cstdint>
#include <mutex>

namespace torch_fl::sim {

class BusyClock {
 public:
  BusyClock();
  // A queue of the device went from empty to holding work, and back.
  void queue_became_busy();
  void queue_became_idle();
  // Nanoseconds busy, and nanoseconds since the device came up.
  void read(uint64_t* busy_ns, uint64_t* elapsed_ns);

 private:
  const int64_t started_ns_;
  std::mutex mutex_;  // guards the three below
  int busy_queues_ = 0;
  int64_t busy_since_ns_ = 0;
  int64_t busy_total_ns_ = 0;
};

}  // namespace torch_fl::sim
