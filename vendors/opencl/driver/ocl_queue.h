// Streams and events of the OpenCL driver.
//
// A stream is an in-order command queue on its device's context, with
// profiling on so that events can time the work between them. Each stream keeps
// the event of the last command it queued: that answers "is the stream idle"
// without queuing anything, and its profiling times feed the device's busy clock.
#pragma once

#include <CL/cl.h>

#include <chrono>
#include <cstdint>
#include <mutex>

#include "ocl_fault.h"

namespace torch_fl::ocl {

// How long a device has had commands running, overlap between streams counted once.
class BusyClock {
 public:
  BusyClock() : started_(std::chrono::steady_clock::now()) {}
  void add(uint64_t start_ns, uint64_t end_ns);  // one command's device-clock interval
  void read(uint64_t* busy_ns, uint64_t* elapsed_ns) const;

 private:
  mutable std::mutex mutex_;  // completion callbacks come from the platform's threads
  std::chrono::steady_clock::time_point started_;
  uint64_t busy_ns_ = 0;
  uint64_t covered_until_ = 0;  // the latest end added: a later interval counts only past it
};

BusyClock& busy_clock(int32_t device);

class Stream : OwnsClObjects {
 public:
  // In-order and profiled; kNotSupported where the device cannot profile.
  static int32_t create(int32_t device, Stream** stream);
  ~Stream();

  int32_t device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  size_t work_group() const { return work_group_; }  // every launch's (Device::work_group)

  // Takes ownership of the event of a command just queued here (nullptr: none).
  void track(cl_event event);
  // Flushes, waits, and reports an error of earlier queued work: a failed
  // command, or a bad index a kernel reported (ocl_fault.h).
  int32_t synchronize();
  int32_t query(bool* idle);
  FaultRecord& faults() { return faults_; }

 private:
  Stream(int32_t device, cl_context context, cl_command_queue queue, size_t work_group)
      : device_(device), context_(context), queue_(queue), work_group_(work_group), faults_(context) {}

  int32_t device_;
  cl_context context_;
  cl_command_queue queue_;
  size_t work_group_;
  std::mutex mutex_;  // guards last_: a stream is used from any thread
  cl_event last_ = nullptr;
  FaultRecord faults_;
};

class Event : OwnsClObjects {
 public:
  explicit Event(int32_t device) : device_(device) {}
  ~Event();

  // A marker after everything queued on `stream` so far.
  int32_t record(Stream& stream);
  int32_t query(bool* completed) const;  // never recorded: completed
  int32_t synchronize() const;
  // Makes later work on `stream` wait for this event (on the host when the
  // event belongs to another device's context, which a queue cannot wait on).
  int32_t block(Stream& stream) const;
  // Milliseconds between two recorded, completed markers.
  static int32_t elapsed_ms(const Event& start, const Event& end, float* ms);

 private:
  int32_t device_;
  mutable std::mutex mutex_;  // guards marker_ against a re-record during a query
  cl_event marker_ = nullptr;
};

}  // namespace torch_fl::ocl
