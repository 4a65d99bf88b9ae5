#include <torch_fl/logging.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace torch_fl {

LogLevel log_level() {
  static const LogLevel level = [] {
    const char* text = std::getenv("TORCH_FL_LOG");
    if (!text) return LogLevel::kOff;
    if (std::strcmp(text, "debug") == 0) return LogLevel::kDebug;
    if (std::strcmp(text, "info") == 0) return LogLevel::kInfo;
    return LogLevel::kOff;
  }();
  return level;
}

void log_line(const std::string& line) {
  // One write per line so that lines from several threads do not interleave.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "[torch_fl] %s\n", line.c_str());
}

}  // namespace torch_fl
