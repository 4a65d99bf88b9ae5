// TORCH_FL_LOG=info|debug. Debug prints one line per dispatch decision.
#pragma once

#include <string>

namespace torch_fl {

enum class LogLevel { kOff = 0, kInfo = 1, kDebug = 2 };

// Read once from the environment; cheap to call on every op.
LogLevel log_level();
inline bool debug_logging() { return log_level() >= LogLevel::kDebug; }
void log_line(const std::string& line);

}  // namespace torch_fl
