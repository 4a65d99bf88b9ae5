// DeviceCclBackend's life: its communicator (made at the first collective), the
// watchdog, shutdown and abort, and coalescing (see device_ccl_backend.h).
#include "device_ccl_backend.h"

#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>
#include <c10/util/Exception.h>

#include "common.h"
#include "device_ccl_launch.h"
#include "device_ccl_work.h"

namespace torch_fl::collectives {

DeviceCclBackend::DeviceCclBackend(const TflCollectives& library, std::vector<uint8_t> unique_id, int rank, int size,
                                   std::string name, std::chrono::milliseconds timeout)
    : DeviceBackendBase(rank, size, std::move(name)),
      library_(library),
      unique_id_(std::move(unique_id)),
      timeout_(timeout) {
  TORCH_CHECK(unique_id_.size() == library_.unique_id_bytes, name_, ": a unique id of ", unique_id_.size(),
              " bytes; ", library_.library, " takes ", library_.unique_id_bytes);
  watchdog_ = std::thread([this] { watchdog_loop(); });
}

DeviceCclBackend::~DeviceCclBackend() {
  stop_watchdog();
  // Not shut down: free without waiting (a peer may be gone; waiting could hang exit).
  if (tflComm comm = comm_.exchange(nullptr)) library_.comm_abort(comm);
}

void DeviceCclBackend::release_resources() {
  stop_watchdog();
  closed_ = true;
  if (tflComm comm = comm_.exchange(nullptr)) library_.comm_abort(comm);
}

void DeviceCclBackend::stop_watchdog() {
  std::thread watchdog;  // one caller joins it
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watch_stopping_ = true;
    retire_completed_locked();
    watched_.clear();
    watchdog = std::move(watchdog_);
  }
  watch_changed_.notify_all();
  if (watchdog.joinable()) watchdog.join();
}

std::function<std::string(const std::string&)> DeviceCclBackend::aborter() {
  // Weak: a Work (which may outlive its group) must not keep the backend alive.
  c10::weak_intrusive_ptr<DeviceCclBackend> weak(
      c10::intrusive_ptr<DeviceCclBackend>::unsafe_reclaim_from_nonowning(this));
  return [weak](const std::string& why) -> std::string {
    if (auto backend = weak.lock()) return backend->abort_communicator(why);
    return "the process group is gone";
  };
}

void DeviceCclBackend::watch(c10::intrusive_ptr<DeviceCclWork> work) {
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    if (watch_stopping_) return;
    watched_.emplace_back(std::chrono::steady_clock::now() + timeout_, std::move(work));
  }
  watch_changed_.notify_all();
}

void DeviceCclBackend::watchdog_loop() {
  constexpr auto kPoll = std::chrono::milliseconds(50);
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!watch_stopping_) {
    watch_changed_.wait_for(lock, kPoll, [&] { return watch_stopping_; });
    if (watch_stopping_) break;
    std::string problem;
    try {
      while (!watched_.empty() && watched_.front().second->isCompleted()) {
        completed(*watched_.front().second);
        watched_.pop_front();
      }
      if (watched_.empty()) continue;
      {  // the library's asynchronous error (a peer failed)
        const std::lock_guard<std::mutex> abort_lock(abort_mutex_);
        tflStatus async_error = 0;
        const tflComm comm = comm_.load();
        if (comm != nullptr && library_.comm_async_error(comm, &async_error) == 0 && async_error != 0) {
          problem = std::string(library_.library) + " reported an asynchronous error: " +
                    library_.status_string(async_error);
        }
      }
      if (problem.empty() && std::chrono::steady_clock::now() >= watched_.front().first) {
        problem = "not complete after " + std::to_string(timeout_.count()) +
                  " ms (the group's timeout; a rank that never joined?)";
      }
    } catch (const std::exception& e) {  // a device error surfacing in an event query
      problem = std::string("the watchdog's query failed: ") + e.what();
    }
    if (problem.empty()) continue;
    lock.unlock();
    abort_communicator(problem);
    lock.lock();
  }
}

tflComm DeviceCclBackend::communicator_locked(const c10::Device& device, const std::string& description) {
  TORCH_CHECK(!closed_, description, ": the process group has been shut down or aborted");
  if (const tflComm comm = comm_.load()) {
    TORCH_CHECK(*device_ == device, description, ": this rank's communicator is on ", device_->str(),
                "; a collective on ", device.str(), " needs a process group of its own (one device per rank)");
    return comm;
  }
  tflComm made = nullptr;
  const tflStatus status =
      library_.comm_init(unique_id_.data(), getSize(), getRank(), static_cast<int32_t>(device.index()), &made);
  if (status != 0) {
    C10_THROW_ERROR(DistBackendError, description + " failed: " + library_.library +
                                          " could not make the communicator on " + device.str() + ": " +
                                          library_.status_string(status));
  }
  if (closed_) {  // aborted while the ranks were meeting
    library_.comm_abort(made);
    C10_THROW_ERROR(DistBackendError, description + " failed: the process group was aborted");
  }
  device_ = device;
  // A stream of this group's own: another group's collectives (ordered
  // differently across ranks) must not queue behind this one's.
  const c10::impl::VirtualGuardImpl guard(device.type());
  stream_ = guard.getStreamFromGlobalPool(device, /*isHighPriority=*/true);
  comm_.store(made);
  return made;
}

void DeviceCclBackend::retire_completed_locked() {
  for (auto it = watched_.begin(); it != watched_.end();) {
    bool done = false;
    try {
      done = it->second->isCompleted();
    } catch (const std::exception&) {  // a device error: not a completion
    }
    if (!done) {
      ++it;
      continue;
    }
    completed(*it->second);
    it = watched_.erase(it);
  }
}

void DeviceCclBackend::completed(DeviceCclWork& work) {
#ifdef TORCH_FL_C10D_COMPLETION_HOOKS
  if (!work.failed() && hooks_.any_completion()) hooks_.run_completion(work.getCompletionKey(), name_);
#else
  (void)work;
#endif
}

std::string DeviceCclBackend::abort_communicator(const std::string& why, bool failure) {
#ifdef TORCH_FL_C10D_ABORT_HOOKS
  if (failure && !closed_) {
    {  // what completed before the failure is reported as such before the hooks dump what is in flight
      const std::lock_guard<std::mutex> lock(watch_mutex_);
      retire_completed_locked();
    }
    hooks_.run_abort(name_);
  }
#else
  (void)failure;
#endif
  bool aborted = false;
  {
    const std::lock_guard<std::mutex> abort_lock(abort_mutex_);
    closed_ = true;
    if (tflComm comm = comm_.exchange(nullptr)) {
      library_.comm_abort(comm);  // NCCL: callable while another thread is blocked in the communicator
      aborted = true;
    }
  }
  const std::string what = aborted ? "its communicator was aborted; make a new process group"
                                   : "the process group was already closed";
  fail_watched(why + "; " + what);
  return what;
}

void DeviceCclBackend::fail_watched(const std::string& why) {
  std::deque<std::pair<std::chrono::steady_clock::time_point, c10::intrusive_ptr<DeviceCclWork>>> failing;
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    failing.swap(watched_);
  }
  for (auto& entry : failing) {
    if (!entry.second->isCompleted()) entry.second->fail(named_error(entry.second->description(), why));
  }
}

void DeviceCclBackend::shutdown() {
  stop_watchdog();
  tflComm comm = nullptr;
  {
    const std::lock_guard<std::mutex> lock(mutex_);  // after a collective being enqueued
    closed_ = true;
    comm = comm_.exchange(nullptr);
  }
  if (comm != nullptr) library_.comm_destroy(comm);  // waits for its queued work, outside the lock
}

void DeviceCclBackend::abort() { abort_communicator("the process group was aborted", /*failure=*/false); }

void DeviceCclBackend::startCoalescing() {
  const std::lock_guard<std::mutex> lock(mutex_);
  TORCH_CHECK(!coalescing_, description("startCoalescing"), ": already coalescing");
  coalescing_ = true;
  group_open_ = false;
}

c10::intrusive_ptr<c10d::Work> DeviceCclBackend::endCoalescing() {
  std::unique_lock<std::mutex> lock(mutex_);
  TORCH_CHECK(coalescing_, description("endCoalescing"), ": startCoalescing was not called");
  coalescing_ = false;
  auto works = std::move(coalesced_works_);
  auto outputs = std::move(coalesced_outputs_);
  coalesced_works_.clear();
  coalesced_outputs_.clear();
  auto tensors = std::move(coalesced_tensors_);
  coalesced_tensors_.clear();
  TORCH_CHECK(group_open_ && stream_.has_value(), description("endCoalescing"),
              ": no collective was called since startCoalescing");
  group_open_ = false;
  const tflStatus status = library_.group_end();
  std::string problem;
  if (status != 0) problem = std::string(library_.library) + " group_end: " + library_.status_string(status);
  if (closed_) problem = "the process group was aborted";
  if (!problem.empty()) {  // none of the group's Works will complete
    const std::string what = description("coalesced group") + " failed: " + problem;
    for (auto& work : works) work->fail(named_error(work->description(), problem));
    C10_THROW_ERROR(DistBackendError, what);
  }
  // The calls are enqueued now: the tensors may be freed (their blocks reused after the stream's work).
  keep_until_run(tensors, *stream_);
  tensors.clear();
  // One event per Work (events are not shared), all after the group.
  std::vector<c10::Event> ends;
  for (size_t i = 0; i <= works.size(); ++i) {
    ends.emplace_back(stream_->device_type());
    ends.back().record(*stream_);
  }
  auto group_work = c10::make_intrusive<DeviceCclWork>(description("coalesced group"), getRank(),
                                                       c10d::OpType::COALESCED, interned(name_ + ":coalesced"),
                                                       *stream_, std::move(outputs), aborter(), timeout_, false);
  lock.unlock();
  for (size_t i = 0; i < works.size(); ++i) works[i]->issue(std::move(ends[i]));
  group_work->issue(std::move(ends.back()));
  // Each call's Work too: c10d's hooks (the flight recorder) track the calls, not the group.
  for (auto& work : works) watch(std::move(work));
  watch(group_work);
  return group_work;
}

}  // namespace torch_fl::collectives
