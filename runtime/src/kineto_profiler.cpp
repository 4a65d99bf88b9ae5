// The device on torch.profiler's Kineto timeline. With
// `torch.profiler.profile(activities=[CPU, PrivateUse1])` torch registers this
// profiler with Kineto (PrivateUse1ProfilerRegistry) and opens one session per
// trace. While the session is started, the DeviceTracer records each SDK call,
// copy and fill (device_tracer.h); when the trace is processed each becomes two
// activities, joined by a flow as CUDA's launch and kernel are:
//   - on the launching thread's row, a PRIVATEUSE1_RUNTIME slice over the call,
//     named after the SDK function, where the flow starts;
//   - on the device's row ("<vendor> <index>") and the stream's ("stream <k>"),
//     a kernel, memcpy or memset slice over the device time, where it ends.
// Both are linked to the innermost aten op, so that op's device time is theirs.
//
// Built only when the installed torch ships the registry (runtime/CMakeLists.txt
// looks for its header); the legacy ProfilerStubs path (profiler.cpp) stays.
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include <GenericTraceActivity.h>
#include <IActivityProfiler.h>
#include <TraceSpan.h>
#include <libkineto.h>
#include <output_base.h>

#include <c10/util/Exception.h>
#include <torch/headeronly/version.h>

#include "device_tracer.h"
#include "driver.h"

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <utility>

namespace torch_fl {
namespace {

using libkineto::ActivityType;

ActivityType kineto_type(DeviceActivityKind kind) {
  switch (kind) {
    case DeviceActivityKind::kMemcpy: return ActivityType::GPU_MEMCPY;
    case DeviceActivityKind::kMemset: return ActivityType::GPU_MEMSET;
    case DeviceActivityKind::kKernel: break;
  }
  return ActivityType::CONCURRENT_KERNEL;
}

// ProfilerActivity.PrivateUse1 asks for kernels, copies and fills and for
// PRIVATEUSE1_RUNTIME; ProfilerActivity.CUDA asks for the first three only (CUPTI's
// rows would collide with ours on a CUDA build of torch).
bool records_device_work(const std::set<ActivityType>& types) {
  const bool device_rows = types.count(ActivityType::CONCURRENT_KERNEL) || types.count(ActivityType::GPU_MEMCPY) ||
                           types.count(ActivityType::GPU_MEMSET);
  return device_rows && types.count(ActivityType::PRIVATEUSE1_RUNTIME);
}

std::string device_name(int64_t device) { return std::string(driver().vendor) + " " + std::to_string(device); }

// Flow ids are unique per flow type within a trace; kept unique per process.
std::atomic<uint32_t> next_flow_id{1};

class DeviceProfilerSession final : public libkineto::IActivityProfilerSession {
 public:
  explicit DeviceProfilerSession(bool records) : records_(records) {}

  ~DeviceProfilerSession() override {
    if (records_) DeviceTracer::instance().stop();
  }

  void start() override {
    if (records_) DeviceTracer::instance().start();
  }
  void stop() override {
    if (records_) DeviceTracer::instance().stop();
  }
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 14)
  // prof.toggle_collection_dynamic(enable, [ProfilerActivity.CUDA]): torch 2.14 hands
  // Kineto that toggle (not PrivateUse1's), and Kineto pauses every session in place.
  void toggleCollectionDynamic(bool enable) override {
    if (records_) enable ? DeviceTracer::instance().resume() : DeviceTracer::instance().stop();
  }
#endif

  // Kineto calls these on the thread that runs each aten op. Kept balanced in every
  // session, recording or not: an op may span two profiles.
  void pushCorrelationId(uint64_t id) override { DeviceTracer::push_correlation(id); }
  void popCorrelationId() override { DeviceTracer::pop_correlation(); }

  std::vector<std::string> errors() override { return errors_; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, [](auto) -> const libkineto::ITraceActivity* { return nullptr; }, 0, 0);
  }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked_to,
                    int64_t start_ns, int64_t end_ns) override {
    buffer_ = std::make_unique<libkineto::CpuTraceBuffer>();
    buffer_->span = libkineto::TraceSpan(start_ns, end_ns, std::string(driver().vendor) + " device");
    buffer_->gpuOpCount = 0;
    if (!records_) return;
    DeviceTracer& tracer = DeviceTracer::instance();
    std::vector<std::unique_ptr<TracedWork>> done = tracer.collect(errors_);
    for (const auto& work : done) add(*work, linked_to);
    tracer.recycle(done);
    for (const auto& activity : buffer_->activities) activity->log(logger);
    // The first device is named by getDeviceInfo(), which Kineto asks after this.
    for (auto it = devices_.begin(); it != devices_.end(); ++it) {
      if (it == devices_.begin()) continue;
      logger.handleDeviceInfo(libkineto::DeviceInfo{*it, *it, device_name(*it), device_name(*it)}, start_ns);
    }
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    if (devices_.empty()) return nullptr;
    const int64_t device = *devices_.begin();
    return std::make_unique<libkineto::DeviceInfo>(
        libkineto::DeviceInfo{device, device, device_name(device), device_name(device)});
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> infos;
    for (const auto& [key, ordinal] : stream_ordinals_) {
      infos.push_back(libkineto::ResourceInfo{ordinal, ordinal, key.first, "stream " + std::to_string(ordinal)});
    }
    return infos;
  }

  // None when nothing was traced: an empty buffer would still add a span row.
  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override {
    if (buffer_ != nullptr && buffer_->activities.empty()) buffer_.reset();
    return std::move(buffer_);
  }

 private:
  // A stream's row: numbered per device in the order its work first appears.
  int64_t stream_ordinal(c10::DeviceIndex device, tflStream stream) {
    auto& next = next_ordinal_[device];
    const auto [it, inserted] = stream_ordinals_.emplace(std::make_pair(int64_t{device}, stream), next);
    if (inserted) ++next;
    return it->second;
  }

  void add(const TracedWork& work, const libkineto::getLinkedActivityCallback& linked_to) {
    const DeviceActivity& activity = work.activity;
    const uint32_t flow = next_flow_id.fetch_add(1, std::memory_order_relaxed);
    const libkineto::ITraceActivity* op = work.correlation != 0 ? linked_to(work.correlation) : nullptr;
    const int64_t stream = stream_ordinal(activity.device, activity.stream);
    devices_.insert(activity.device);

    buffer_->emplace_activity(buffer_->span, ActivityType::PRIVATEUSE1_RUNTIME, work.name);
    libkineto::GenericTraceActivity& launch = *buffer_->activities.back();
    launch.startTime = work.host_start_ns;
    launch.endTime = work.host_end_ns;
    launch.id = static_cast<int32_t>(work.correlation);
    launch.device = libkineto::processId();
    launch.resource = work.thread;
    launch.threadId = work.thread;
    launch.linked = op;
    launch.flow.id = flow;
    launch.flow.type = libkineto::kLinkAsyncCpuGpu;
    launch.flow.start = 1;

    buffer_->emplace_activity(buffer_->span, kineto_type(activity.kind), work.name);
    libkineto::GenericTraceActivity& run = *buffer_->activities.back();
    run.startTime = work.device_start_ns;
    run.endTime = work.device_end_ns;
    run.id = static_cast<int32_t>(work.correlation);
    run.device = activity.device;
    run.resource = stream;
    run.threadId = work.thread;
    run.linked = op;
    run.flow.id = flow;
    run.flow.type = libkineto::kLinkAsyncCpuGpu;
    run.flow.start = 0;
    run.addMetadataQuoted("device", device_name(activity.device));
    run.addMetadata("stream", stream);
    if (activity.source != nullptr) run.addMetadataQuoted("spec", activity.source);
    if (activity.bytes != 0) run.addMetadata("bytes", activity.bytes);
    ++buffer_->gpuOpCount;
  }

  const bool records_;
  std::vector<std::string> errors_;
  std::unique_ptr<libkineto::CpuTraceBuffer> buffer_;
  std::set<int64_t> devices_;
  std::map<std::pair<int64_t, tflStream>, int64_t> stream_ordinals_;
  std::map<int64_t, int64_t> next_ordinal_;
};

class DeviceActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override {
    static const std::string name = "torch_fl";
    return name;
  }

  const std::set<ActivityType>& availableActivities() const override {
    static const std::set<ActivityType> types = {ActivityType::CONCURRENT_KERNEL, ActivityType::GPU_MEMCPY,
                                                 ActivityType::GPU_MEMSET, ActivityType::PRIVATEUSE1_RUNTIME};
    return types;
  }

  // A CPU-only profile after a device one still asks: its session records nothing.
  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& types,
                                                                 const libkineto::Config&) override {
    return std::make_unique<DeviceProfilerSession>(records_device_work(types));
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t, int64_t,
                                                                 const std::set<ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }
};

}  // namespace
}  // namespace torch_fl

using TorchFlDeviceActivityProfiler = torch_fl::DeviceActivityProfiler;
REGISTER_PRIVATEUSE1_PROFILER(TorchFlDeviceActivityProfiler);
