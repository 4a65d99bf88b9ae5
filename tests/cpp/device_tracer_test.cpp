// The device side of torch.profiler (device_tracer.h), without Kineto: what a session
// records, how it places device work on the host's clock, and what it drops.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <c10/util/ApproximateClock.h>

#include <chrono>
#include <thread>

#include "device_tracer.h"
#include "driver.h"
#include <torch_fl/device.h>
#include <torch_fl/stream.h>

namespace {

using torch_fl::DeviceActivity;
using torch_fl::DeviceActivityKind;
using torch_fl::DeviceTracer;
using torch_fl::TracedWork;

#define REQUIRE_A_DEVICE_FOR_TRACING()                                                                \
  if (torch_fl::device_count() < 1)                                                                  \
  GTEST_SKIP() << "needs a " << torch_fl::driver().vendor << " device, this machine has none"

DeviceActivity on_default_stream() {
  DeviceActivity activity;
  activity.kind = DeviceActivityKind::kKernel;
  activity.device = 0;
  activity.stream = torch_fl::current_driver_stream(0);
  activity.source = "specs/test.yaml:1";
  return activity;
}

// Ends the tracer's session whatever the test did.
struct Session {
  Session() { DeviceTracer::instance().start(); }
  ~Session() {
    DeviceTracer::instance().stop();
    std::vector<std::string> errors;
    auto done = DeviceTracer::instance().collect(errors);
    DeviceTracer::instance().recycle(done);
  }
};

TEST(DeviceTracer, RecordsNothingWhileStopped) {
  REQUIRE_A_DEVICE_FOR_TRACING();
  DeviceTracer::instance().stop();
  EXPECT_EQ(DeviceTracer::instance().begin("idle", on_default_stream()), nullptr);
}

TEST(DeviceTracer, PlacesDeviceWorkOnTheHostClockInLaunchOrder) {
  REQUIRE_A_DEVICE_FOR_TRACING();
  const at::Tensor a = at::ones({512, 512}, at::TensorOptions().device(c10::DeviceType::PrivateUse1, 0));
  Session session;
  DeviceTracer& tracer = DeviceTracer::instance();
  DeviceTracer::push_correlation(42);
  TracedWork* first = tracer.begin("first", on_default_stream());
  ASSERT_NE(first, nullptr);
  const at::Tensor product = at::mm(a, a);  // device work inside the first slice
  tracer.finish(first);
  DeviceTracer::pop_correlation();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  TracedWork* second = tracer.begin("second", on_default_stream());
  tracer.finish(second);

  std::vector<std::string> errors;
  auto done = tracer.collect(errors);  // waits for the work
  // An anchor's host time is read once it completed: mapped times may be late by
  // that wake-up, which the tracer measured (milliseconds on a loaded machine).
  const int64_t after = c10::getTime();
  EXPECT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(done.size(), 2u);
  EXPECT_STREQ(done[0]->name, "first");
  EXPECT_EQ(done[0]->correlation, 42);
  EXPECT_EQ(done[1]->correlation, 0);
  for (const auto& work : done) {
    // never before its launch (anchors make times late, not early), never after the collection
    EXPECT_GE(work->device_start_ns, work->host_start_ns - 50'000) << work->name;
    EXPECT_LE(work->device_start_ns, work->device_end_ns) << work->name;
    EXPECT_LE(work->device_end_ns, after + work->late_by_at_most_ns + 50'000) << work->name;
    EXPECT_GE(work->late_by_at_most_ns, 0) << work->name;
  }
  EXPECT_GT(done[0]->device_end_ns - done[0]->device_start_ns, 0) << "the matmul took no device time";
  EXPECT_GE(done[1]->device_start_ns, done[0]->device_end_ns);  // one stream: in order
  tracer.recycle(done);
}

// A copy another thread had open across two profiles: the second profile's anchors
// do not time it, and it is not in the second profile's trace.
TEST(DeviceTracer, WorkBegunInAnEarlierSessionIsDropped) {
  REQUIRE_A_DEVICE_FOR_TRACING();
  DeviceTracer& tracer = DeviceTracer::instance();
  tracer.start();
  TracedWork* straddling = tracer.begin("straddling", on_default_stream());
  ASSERT_NE(straddling, nullptr);
  tracer.stop();
  {
    Session next;
    tracer.finish(straddling);
    TracedWork* own = tracer.begin("own", on_default_stream());
    tracer.finish(own);
    std::vector<std::string> errors;
    auto done = tracer.collect(errors);
    EXPECT_TRUE(errors.empty());
    ASSERT_EQ(done.size(), 1u);
    EXPECT_STREQ(done[0]->name, "own");
    tracer.recycle(done);
  }
}

TEST(DeviceTracer, AnUnprocessedSessionsWorkIsNotInTheNext) {
  REQUIRE_A_DEVICE_FOR_TRACING();
  DeviceTracer& tracer = DeviceTracer::instance();
  tracer.start();
  tracer.finish(tracer.begin("cancelled", on_default_stream()));
  tracer.stop();  // a cancelled trace: never collected
  Session next;
  std::vector<std::string> errors;
  auto done = tracer.collect(errors);
  EXPECT_TRUE(done.empty());
  tracer.recycle(done);
}

}  // namespace
