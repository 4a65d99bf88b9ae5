// What the vendor's two c10d backends (DeviceCclBackend, StagedBackend) share:
// the c10d::Backend collectives they implement, their name and how a message
// about one of their collectives starts, and the part of a collective's setup
// that does not depend on how it is carried out (the checks of its tensors, its
// description and profiling title, ordering after the caller's stream).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/Stream.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>

namespace torch_fl::collectives {

// The c10d::Backend collectives both backends implement, declared once: their
// signatures are c10d's, which change across torch versions (the oldest of
// .ci/torch_versions, 2.11 today, decides: a virtual it lacks must not be listed here).
#define TORCH_FL_C10D_COLLECTIVES                                                                                 \
  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors, const c10d::BroadcastOptions& opts) \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors, const c10d::AllreduceOptions& opts) \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(std::vector<at::Tensor>& tensors,                          \
                                                     const c10d::AllreduceCoalescedOptions& opts) override;       \
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors, const c10d::ReduceOptions& opts)       \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,                       \
                                           std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions& opts)  \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,                          \
                                                 const c10d::AllgatherOptions& opts) override;                    \
  c10::intrusive_ptr<c10d::Work> allgather_into_tensor_coalesced(                                                 \
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::AllgatherOptions& opts)     \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> reduce_scatter_tensor_coalesced(                                                 \
      std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs, const c10d::ReduceScatterOptions& opts) \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,                          \
                                        std::vector<at::Tensor>& inputs, const c10d::GatherOptions& opts)        \
      override;                                                                                                   \
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,                                        \
                                         std::vector<std::vector<at::Tensor>>& inputs,                            \
                                         const c10d::ScatterOptions& opts) override;                              \
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,                                 \
                                                std::vector<std::vector<at::Tensor>>& inputs,                     \
                                                const c10d::ReduceScatterOptions& opts) override;                 \
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor& output, at::Tensor& input,                     \
                                                      const c10d::ReduceScatterOptions& opts) override;           \
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,                            \
                                               std::vector<int64_t>& output_split_sizes,                          \
                                               std::vector<int64_t>& input_split_sizes,                           \
                                               const c10d::AllToAllOptions& opts) override;                       \
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs,     \
                                          const c10d::AllToAllOptions& opts) override;                            \
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;                             \
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst_rank, int tag) override;         \
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src_rank, int tag) override

class DeviceBackendBase : public c10d::Backend {
 public:
  const std::string getBackendName() const final { return name_; }

  // "[mlu] all_reduce (cncl, rank 0 of 2)": how every message about a collective starts.
  std::string description(const char* collective) const;

 protected:
  DeviceBackendBase(int rank, int size, std::string name);

  const std::string name_;
};

// Which tensors a backend's collectives take.
enum class Takes {
  kDeviceTensors,         // the device's only (the group's CPU tensors go to another backend)
  kDeviceAndCpuTensors,   // the device's, and CPU tensors, which are not checked further
};

// One collective being set up in the caller's thread: the part every backend
// does alike. A backend's own setup (its Launch, its Staging) derives from it.
class CollectiveSetup {
 public:
  CollectiveSetup(const DeviceBackendBase& backend, const char* collective, c10d::OpType type, Takes takes);

  const std::string& description() const { return description_; }
  [[noreturn]] void refuse(const std::string& problem) const;

 protected:
  // Refuses a tensor the backend does not take: undefined, on another device
  // type (or another device than the collective's other tensors), sparse; on
  // the device, also a dtype the spec's `distributed.dtypes` does not list, or
  // a tensor not contiguous. Returns the tensor's device.
  c10::Device check(const at::Tensor& t);
  // The device of the tensors checked so far (nullopt: none yet).
  const std::optional<c10::Device>& device() const { return device_; }
  // The Work's title for the profiler ("<backend>:<collective>"), one stable string per title.
  const char* profiling_title() const;

  const char* const collective_;
  const c10d::OpType type_;

 private:
  const DeviceBackendBase& backend_;
  const Takes takes_;
  const std::string description_;
  std::optional<c10::Device> device_;
};

// The tensors of `lists`, in order, as the setups take them.
std::vector<const at::Tensor*> tensors_of(std::initializer_list<const std::vector<at::Tensor>*> lists);
// `list`'s, then those of each of `lists`.
std::vector<const at::Tensor*> tensors_of(const std::vector<std::vector<at::Tensor>>& lists,
                                          const std::vector<at::Tensor>& list);

// `stream` waits for what the caller's current stream on `device` has queued so far.
void wait_for_current_stream(const c10::Device& device, const c10::Stream& stream);

}  // namespace torch_fl::collectives
