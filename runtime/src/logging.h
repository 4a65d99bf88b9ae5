// TORCH_FL_LOG=info|debug (debug: one line per dispatch decision), or
// set_log_level at run time. Lines go to stderr, or to a sink the Python
// package installs (torch_fl.set_log_level routes them into Python's logging).
#pragma once

#include <string>

namespace torch_fl {

enum class LogLevel { kOff = 0, kInfo = 1, kDebug = 2 };

// From the environment until set_log_level; cheap to call on every op.
LogLevel log_level();
void set_log_level(LogLevel level);
inline bool debug_logging() { return log_level() >= LogLevel::kDebug; }

// Receives each line instead of stderr (nullptr: back to stderr).
using LogSink = void (*)(int level, const char* line);
void set_log_sink(LogSink sink);

void log_line(const std::string& line, LogLevel level = LogLevel::kDebug);

}  // namespace torch_fl
