#include "ocl_exit_drain.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <set>

#include "ocl_platform.h"
#include "ocl_status.h"

namespace torch_fl::ocl {
namespace {

struct LiveQueues {
  std::mutex mutex;  // streams are created and destroyed on any thread
  std::set<cl_command_queue> queues;
  std::atomic<bool> drained{false};
};

LiveQueues& live_queues() {
  static auto* queues = new LiveQueues();  // never destroyed: read by the exit handler
  return *queues;
}

void drain() {
  LiveQueues& live = live_queues();
  if (live.drained.exchange(true)) return;  // the latest registration already ran
  if (check_not_forked() != kSuccess) return;  // a forked child's queues are not its own
  std::lock_guard<std::mutex> lock(live.mutex);
  for (cl_command_queue queue : live.queues) clFinish(queue);
}

void register_drain() { std::atexit(drain); }

}  // namespace

void drain_at_exit(cl_command_queue queue) {
  // The first stream: PoCL and LLVM have loaded, and their eager statics are older.
  static const bool registered = (register_drain(), true);
  (void)registered;
  std::lock_guard<std::mutex> lock(live_queues().mutex);
  live_queues().queues.insert(queue);
}

void forget_at_exit(cl_command_queue queue) {
  std::lock_guard<std::mutex> lock(live_queues().mutex);
  live_queues().queues.erase(queue);
}

void finish_compiling_launch(cl_event event) {
  if (!event) return;
  clWaitForEvents(1, &event);
  register_drain();
}

}  // namespace torch_fl::ocl
