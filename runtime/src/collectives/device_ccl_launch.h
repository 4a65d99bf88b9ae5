// DeviceCclBackend::Launch: one collective of a DeviceCclBackend being enqueued
// (in the caller's thread), and the helpers its collectives share. Private to
// the backend's sources (device_ccl_*.cpp).
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Stream.h>
#include <c10/core/StreamGuard.h>
#include <c10/util/Exception.h>

#include <torch_fl/collectives_abi.h>

#include "device_backend_base.h"
#include "device_ccl_backend.h"

namespace torch_fl::collectives {

// Element `offset` of a contiguous tensor's data.
inline char* address(const at::Tensor& t, int64_t offset) {
  return static_cast<char*>(t.data_ptr()) + offset * static_cast<int64_t>(t.element_size());
}

inline const at::Tensor& only(const std::vector<at::Tensor>& tensors, const char* collective) {
  TORCH_CHECK(tensors.size() == 1, collective, ": takes one tensor per rank, got ", tensors.size());
  return tensors[0];
}

inline size_t count(const at::Tensor& t) { return static_cast<size_t>(t.numel()); }

// The caching allocator must not hand `tensors`' blocks out again until the
// work `stream` has queued so far has run.
void keep_until_run(const std::vector<at::Tensor>& tensors, const c10::Stream& stream);

// One collective being enqueued, in the caller's thread. It holds the backend's
// mutex from its checks to its Work.
class DeviceCclBackend::Launch : public CollectiveSetup {
 public:
  // Checks `tensors` (and gives them the public layout the library reads and
  // writes), takes the backend's mutex and its communicator, and makes the
  // collective stream wait for the caller's.
  Launch(DeviceCclBackend& backend, const char* collective, c10d::OpType type,
         const std::vector<const at::Tensor*>& tensors);

  tflComm comm() const { return comm_; }
  tflStream stream() const;
  const TflCollectives& library() const { return backend_.library_; }
  int rank() const { return backend_.getRank(); }
  int size() const { return backend_.getSize(); }

  tflDtype dtype(const at::Tensor& t) const;
  tflReduceOp reduce_op(const c10d::ReduceOp& op, c10::ScalarType dtype) const;
  void same_dtype(const at::Tensor& a, const at::Tensor& b) const;

  // The library's status: 0, or a DistBackendError naming the collective and the call.
  void call(tflStatus status, const char* what) const;

  // The library's `function` on `t` in place (broadcast, all_reduce, reduce): its
  // arguments are the send and receive buffers, count, dtype, `extra`..., comm, stream.
  template <typename Function, typename... Extra>
  void call_in_place(Function function, const char* what, const at::Tensor& t, Extra... extra) const {
    call(function(t.data_ptr(), t.data_ptr(), count(t), dtype(t), extra..., comm_, stream()), what);
  }

  // The library's send of `t` to rank `peer`, and receive of `t` from it; or of
  // `elements` of its elements from element `first` on.
  void send(const at::Tensor& t, int peer) const { send(t, peer, 0, t.numel()); }
  void recv(const at::Tensor& t, int peer) const { recv(t, peer, 0, t.numel()); }
  void send(const at::Tensor& t, int peer, int64_t first, int64_t elements) const;
  void recv(const at::Tensor& t, int peer, int64_t first, int64_t elements) const;

  // A collective that queues work after the library's call cannot be coalesced:
  // the library enqueues a group's calls only when it ends.
  void not_in_a_group() const;

  // Runs `body` with the collective stream current: temporaries are allocated
  // for it and copies are queued on it, in order with the library's calls.
  template <typename Body>
  void on_stream(Body&& body) {
    const c10::StreamGuard on_collective_stream(*stream_);
    body();
  }

  // `body`'s calls issued as one group (sends and receives that must not wait
  // for each other). Everything is checked before: a group ended early would
  // issue what it holds.
  template <typename Body>
  void group(Body&& body) {
    call(library().group_start(), "group_start");
    try {
      body();
    } catch (...) {
      library().group_end();
      throw;
    }
    call(library().group_end(), "group_end");
  }

  // A temporary the queued work uses (kept from reuse until it has run).
  at::Tensor use(at::Tensor t) {
    used_.push_back(t);
    return t;
  }

  // `input` itself, or a copy of it when it shares memory with `output` (the
  // library would read and write it at once), unless `input` sits at element
  // `in_place_at` of `output`: the library's in-place form (FSDP2's all-gather).
  at::Tensor source(const at::Tensor& input, const at::Tensor& output, std::optional<int64_t> in_place_at = {});

  // The Work, issued now (or, coalescing, when the group ends); `outputs` are its result.
  c10::intrusive_ptr<c10d::Work> done(std::vector<at::Tensor> outputs, bool host_blocking = false);

 private:
  DeviceCclBackend& backend_;
  std::unique_lock<std::mutex> lock_;
  std::optional<c10::Stream> stream_;
  tflComm comm_ = nullptr;
  std::vector<at::Tensor> used_;
};

}  // namespace torch_fl::collectives
