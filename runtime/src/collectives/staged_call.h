// A StagedBackend collective from issue to completion (StagedCall), and its
// setup in the caller's thread (StagedBackend::Staging). Private to the
// backend's sources (staged_*.cpp).
#pragma once

#include <array>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Event.h>
#include <c10/core/Stream.h>

#include "device_backend_base.h"
#include "staged_backend.h"
#include "staged_work.h"

namespace torch_fl::collectives {

// One collective from issue to completion.
struct StagedCall {
  std::optional<c10::Device> device;       // nullopt: CPU tensors, nothing staged
  std::optional<c10::Stream> copy_stream;  // the device's copy stream
  std::optional<c10::Event> staged;        // recorded after the device→host copies
  std::vector<at::Tensor> device_inputs;   // kept alive until their copies have run
  std::vector<std::pair<at::Tensor, at::Tensor>> copy_back;  // (device tensor, host twin)
  std::function<c10::intrusive_ptr<c10d::Work>()> run_on_host;
  // What every rank must agree on before the host collective runs: which
  // collective, dtype, elements (-1: any). Empty for point-to-point calls.
  std::optional<std::array<int64_t, 3>> agreement;
  c10::intrusive_ptr<StagedWork> work;
  c10::intrusive_ptr<c10d::Work> host_work;
  std::exception_ptr error;
  std::vector<const void*> pending_writes;  // storages it will copy back into, until it has
};

// The collective's number in the ranks' agreement check (staged_backend.cpp).
int64_t collective_index(const char* name);

// One collective being set up in the caller's thread: checks its tensors, makes
// their host twins and queues the copies to host.
class StagedBackend::Staging : public CollectiveSetup {
 public:
  Staging(StagedBackend& backend, const char* collective, c10d::OpType type,
          const std::vector<const at::Tensor*>& tensors);

  // The host tensor standing for `t` in the host collective: `t` itself on CPU,
  // else a pinned twin, filled from `t` if the collective reads it and copied
  // back into `t` afterwards if it writes it.
  // A tensor passed twice (an output that is also an input) has one twin, read
  // and written as either use needs.
  at::Tensor twin(const at::Tensor& t, bool read, bool written);
  std::vector<at::Tensor> twins(const std::vector<at::Tensor>& tensors, bool read, bool written);
  std::vector<std::vector<at::Tensor>> twins(const std::vector<std::vector<at::Tensor>>& lists, bool read,
                                             bool written);
  // One tensor's twin under the lists' name: code generic over c10d's argument
  // shapes (a tensor, a list, a list of lists) calls twins on any of them.
  at::Tensor twins(const at::Tensor& t, bool read, bool written) { return twin(t, read, written); }

  // Every rank must be running this collective on `numel` elements (-1: any
  // count) of the same dtype: checked before Gloo sees it, since Gloo aborts the
  // process on a size mismatch.
  void agree_on(int64_t numel);

  // Queues the collective: the host backend's `method` on `args` (the host
  // twins, the options), once the copies to host have run. `outputs`: the
  // Work's result.
  template <typename... Params, typename... Args>
  c10::intrusive_ptr<c10d::Work> on_host(std::vector<at::Tensor> outputs,
                                         c10::intrusive_ptr<c10d::Work> (c10d::Backend::*method)(Params...),
                                         Args... args) {
    return submit(std::move(outputs), [backend = backend_.host_backend_, method, args...]() mutable {
      return ((*backend).*method)(args...);
    });
  }

 private:
  c10::intrusive_ptr<c10d::Work> submit(std::vector<at::Tensor> outputs,
                                        std::function<c10::intrusive_ptr<c10d::Work>()> run_on_host);

  struct Twin {
    at::Tensor host;
    bool read = false;     // its device→host copy is queued
    bool written = false;  // it is copied back after the host collective
  };

  StagedBackend& backend_;
  std::shared_ptr<StagedCall> call_;
  int64_t dtype_ = -1;  // of the last tensor checked; -1 without tensors
  std::unordered_map<const c10::TensorImpl*, Twin> twins_;
};

}  // namespace torch_fl::collectives
