#include "logging.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace torch_fl {
namespace {

LogLevel level_from_environment() {
  const char* text = std::getenv("TORCH_FL_LOG");
  if (!text) return LogLevel::kOff;
  if (std::strcmp(text, "debug") == 0) return LogLevel::kDebug;
  if (std::strcmp(text, "info") == 0) return LogLevel::kInfo;
  return LogLevel::kOff;
}

std::atomic<int>& current_level() {
  static std::atomic<int> level{static_cast<int>(level_from_environment())};
  return level;
}

std::atomic<LogSink> sink{nullptr};

}  // namespace

LogLevel log_level() { return static_cast<LogLevel>(current_level().load(std::memory_order_relaxed)); }

void set_log_level(LogLevel level) { current_level().store(static_cast<int>(level)); }

void set_log_sink(LogSink new_sink) { sink.store(new_sink); }

void log_line(const std::string& line, LogLevel level) {
  if (const LogSink target = sink.load()) {
    target(static_cast<int>(level), line.c_str());
    return;
  }
  // One write per line so that lines from several threads do not interleave.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "[torch_fl] %s\n", line.c_str());
}

}  // namespace torch_fl
