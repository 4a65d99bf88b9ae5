// The out-of-line half of ProfilerRange: reached only while a profiler observes.
#include <torch_fl/profiler_range.h>

#include <torch_fl/op_context.h>

#include "device_tracer.h"

namespace torch_fl {

ProfilerRange::Open::~Open() {
  if (work != nullptr) DeviceTracer::instance().finish(work);
}

void ProfilerRange::finish_device_work() const {
  if (open_->work == nullptr) return;
  DeviceTracer::instance().finish(open_->work);
  open_->work = nullptr;
}

void ProfilerRange::open(at::StepCallbacks&& callbacks, const char* name) {
  open_.emplace(std::move(callbacks), name);
  open_->record.before(name);
}

void ProfilerRange::open_sdk_call(at::StepCallbacks&& callbacks, const char* name, const OpContext& op,
                                  DeviceActivityKind kind) {
  open(std::move(callbacks), name);
  DeviceTracer& tracer = DeviceTracer::instance();
  if (!tracer.active()) return;
  DeviceActivity activity;
  activity.kind = kind;
  activity.device = op.device().index();
  activity.stream = op.stream();
  activity.source = op.info().source;
  open_->work = tracer.begin(name, activity);
}

void ProfilerRange::begin_device_work(const DeviceActivity& activity) const {
  DeviceTracer& tracer = DeviceTracer::instance();
  if (open_->work != nullptr || !tracer.active()) return;
  open_->work = tracer.begin(open_->name, activity);
}

}  // namespace torch_fl
