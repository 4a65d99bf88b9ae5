// The C entry points the torch_fl Python package calls through ctypes (declared,
// with the conventions they share, in python_c_api.h).
#include "python_c_api.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>

#include "allocator.h"
#include "allocator_history.h"
#include "conversion_cache.h"
#include <torch_fl/backend_info.h>
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/fallback.h>
#include "forced_fallback.h"
#include <torch_fl/generator.h>
#include "logging.h"
#include "native_runs.h"
#include "op_calls.h"
#include <torch_fl/private_format.h>
#include <torch_fl/stream.h>

namespace {

thread_local std::string last_error;
thread_local std::string json_buffer;

enum ErrorKind { kOk = 0, kRuntimeError = -1, kIndexError = -2, kValueError = -3, kOutOfMemory = -4 };

int failed(ErrorKind kind, const char* message) {
  last_error = message;
  return kind;
}

// Runs body; an exception becomes the error kind of its type (most derived first), its
// message kept for tfl_last_error().
template <class Body>
int guarded(Body body) {
  try {
    body();
    return kOk;
  } catch (const c10::IndexError& e) {
    return failed(kIndexError, e.what_without_backtrace());
  } catch (const c10::ValueError& e) {
    return failed(kValueError, e.what_without_backtrace());
  } catch (const c10::OutOfMemoryError& e) {
    return failed(kOutOfMemory, e.what_without_backtrace());
  } catch (const c10::Error& e) {
    return failed(kRuntimeError, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return failed(kRuntimeError, e.what());
  }
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A JSON list of records, each written by write_one, in the calling thread's buffer.
template <class Records, class WriteOne>
const char* json_list(const Records& records, WriteOne write_one) {
  std::ostringstream out;
  out << "[";
  const char* separator = "";
  for (const auto& record : records) {
    out << separator;
    write_one(out, record);
    separator = ",";
  }
  out << "]";
  json_buffer = out.str();
  return json_buffer.c_str();
}

c10::DeviceIndex resolve(int device) {
  if (device < 0) return torch_fl::current_device();
  torch_fl::check_device_index(static_cast<c10::DeviceIndex>(device));
  return static_cast<c10::DeviceIndex>(device);
}

}  // namespace

extern "C" {

const char* tfl_last_error() { return last_error.c_str(); }

const char* tfl_vendor_name() { return torch_fl::backend_info().vendor; }
const char* tfl_device_name() { return torch_fl::backend_info().device; }
const char* tfl_spec_path() { return torch_fl::backend_info().spec_path; }
const char* tfl_spec_sha256() { return torch_fl::backend_info().spec_sha256; }
const char* tfl_torch_version() { return torch_fl::backend_info().torch_version; }
// The spec's `distributed:` backend name ("" if none) and its dtypes, comma-separated.
const char* tfl_collective_backend() { return torch_fl::backend_info().collective_backend; }
const char* tfl_collective_dtypes() { return torch_fl::backend_info().collective_dtypes; }
const char* tfl_collective_transport() { return torch_fl::backend_info().collective_transport; }

int tfl_in_bad_fork() { return torch_fl::in_bad_fork() ? 1 : 0; }
int tfl_is_initialized() { return torch_fl::is_initialized() ? 1 : 0; }

// hits, misses, entries of the cache of converted inputs (layout `reuse: true`).
int tfl_conversion_cache_stats(uint64_t* out) {
  const torch_fl::ConversionCacheStats stats = torch_fl::conversion_cache_stats();
  out[0] = stats.hits;
  out[1] = stats.misses;
  out[2] = stats.entries;
  return kOk;
}

// to_private, to_public, created: the conversions of private formats (private_format.h).
int tfl_private_format_stats(uint64_t* out) {
  const torch_fl::PrivateFormatStats stats = torch_fl::private_format_stats();
  out[0] = static_cast<uint64_t>(stats.to_private);
  out[1] = static_cast<uint64_t>(stats.to_public);
  out[2] = static_cast<uint64_t>(stats.created);
  return kOk;
}

int tfl_set_private_formats(int enabled) {
  torch_fl::set_private_formats_enabled(enabled != 0);
  return kOk;
}

int tfl_private_formats_enabled() { return torch_fl::private_formats_enabled() ? 1 : 0; }

int tfl_reset_private_format_stats() {
  torch_fl::reset_private_format_stats();
  return kOk;
}

// The private format of a storage (UntypedStorage._cdata, a StorageImpl*), or "" when public.
const char* tfl_storage_format(uintptr_t storage) {
  const auto* impl = reinterpret_cast<const c10::StorageImpl*>(storage);
  const torch_fl::PrivateFormat* format = impl ? torch_fl::private_format_of(impl->data_ptr()) : nullptr;
  return format ? format->name : "";
}

// Converts a storage (UntypedStorage._cdata) in a private format to the public layout.
int tfl_make_storage_public(uintptr_t storage) {
  return guarded([&] { torch_fl::ensure_public(reinterpret_cast<c10::StorageImpl*>(storage)); });
}

int tfl_device_count(int* count) {
  return guarded([&] { *count = torch_fl::device_count(); });
}

// The driver's description of a device (torch.<device>.get_device_properties).
int tfl_device_properties(int device, tflDeviceProperties* properties) {
  return guarded([&] {
    TORCH_FL_DRIVER_CHECK(torch_fl::driver().device_properties(resolve(device), properties));
    properties->name[sizeof(properties->name) - 1] = '\0';
  });
}

int tfl_current_device(int* device) {
  return guarded([&] { *device = torch_fl::current_device(); });
}

int tfl_set_device(int device) {
  return guarded([&] { torch_fl::set_current_device(static_cast<c10::DeviceIndex>(device)); });
}

int tfl_synchronize(int device) {
  return guarded([&] { torch_fl::synchronize_device(resolve(device)); });
}

// *json = {"<field of torch_fl::MemoryStats>": value, ...}: named, not
// positional. Valid until this thread's next JSON call.
int tfl_memory_stats_json(int device, const char** json) {
  return guarded([&] {
    const torch_fl::MemoryStats stats = torch_fl::memory_stats(resolve(device));
    std::ostringstream out;
    out << "{";
    const char* separator = "";
    for (const torch_fl::MemoryStatField& field : torch_fl::kMemoryStatFields) {
      out << separator << json_string(field.name) << ":" << stats.*field.value;
      separator = ",";
    }
    out << "}";
    json_buffer = out.str();
    *json = json_buffer.c_str();
  });
}

int tfl_reset_peak_memory_stats(int device) {
  return guarded([&] { torch_fl::reset_peak_memory_stats(resolve(device)); });
}

// The caching allocator's segments and blocks of one device, as JSON.
const char* tfl_memory_snapshot_json(int device) {
  std::ostringstream out;
  const int status = guarded([&] {
    static const char* kStates[] = {"active_allocated", "active_pending_free", "inactive"};
    out << "[";
    bool first_segment = true;
    for (const auto& segment : torch_fl::memory_snapshot(resolve(device))) {
      out << (first_segment ? "" : ",") << "{\"address\":" << segment.address << ",\"total_size\":" << segment.size
          << ",\"stream\":" << segment.stream << ",\"segment_type\":\"" << (segment.small ? "small" : "large")
          << "\",\"blocks\":[";
      bool first_block = true;
      for (const auto& block : segment.blocks) {
        out << (first_block ? "" : ",") << "{\"address\":" << block.address << ",\"size\":" << block.size
            << ",\"state\":\"" << kStates[static_cast<int>(block.state)] << "\"}";
        first_block = false;
      }
      out << "]}";
      first_segment = false;
    }
    out << "]";
  });
  json_buffer = status == 0 ? out.str() : "";
  return status == 0 ? json_buffer.c_str() : nullptr;
}

// Starts recording the allocator's history (max_entries events per device), or stops (0).
int tfl_record_memory_history(uint64_t max_entries) {
  return guarded([&] { torch_fl::set_allocator_history(static_cast<size_t>(max_entries)); });
}

// The recorded history of one device, oldest first: a JSON list of
// {"action", "addr", "size", "stream", "time_us", "device_free"}.
const char* tfl_memory_history_json(int device) {
  std::ostringstream out;
  const int status = guarded([&] {
    static const char* kActions[] = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
                                     "oom"};
    out << "[";
    bool first = true;
    for (const auto& event : torch_fl::allocator_history(resolve(device))) {
      out << (first ? "" : ",") << "{\"action\":\"" << kActions[static_cast<int>(event.action)]
          << "\",\"addr\":" << event.address << ",\"size\":" << event.size << ",\"stream\":" << event.stream
          << ",\"time_us\":" << event.time_us << ",\"device_free\":" << event.device_free << "}";
      first = false;
    }
    out << "]";
  });
  json_buffer = status == 0 ? out.str() : "";
  return status == 0 ? json_buffer.c_str() : nullptr;
}

int tfl_set_oom_observer(torch_fl::OutOfMemoryObserver observer) {
  return guarded([&] { torch_fl::set_out_of_memory_observer(observer); });
}

int tfl_empty_cache() {
  return guarded([] { torch_fl::empty_cache(); });
}

int tfl_memory_info(int device, uint64_t* free_bytes, uint64_t* total_bytes) {
  return guarded([&] {
    size_t f = 0, t = 0;
    TORCH_FL_DRIVER_CHECK(torch_fl::driver().memory_info(resolve(device), &f, &t));
    *free_bytes = f;
    *total_bytes = t;
  });
}

int tfl_device_busy_time(int device, uint64_t* busy_ns, uint64_t* elapsed_ns) {
  return guarded([&] {
    uint64_t busy = 0, elapsed = 0;
    TORCH_FL_DRIVER_CHECK(torch_fl::driver().busy_time(resolve(device), &busy, &elapsed));
    *busy_ns = busy;
    *elapsed_ns = elapsed;
  });
}

int tfl_op_calls(int device, uint64_t* native, uint64_t* fallback) {
  return guarded([&] {
    const torch_fl::OpCalls calls = torch_fl::op_calls(resolve(device));
    *native = calls.native;
    *fallback = calls.fallback;
  });
}

const char* tfl_driver_counters() {
  const char* text = torch_fl::driver().driver_counters();
  return text ? text : "";
}

// A JSON list of {"op", "dtype", "reason", "count"}.
const char* tfl_fallback_stats_json() {
  return json_list(torch_fl::fallback_records(), [](std::ostream& out, const auto& r) {
    out << "{\"op\":" << json_string(r.op) << ",\"dtype\":" << json_string(r.dtype)
        << ",\"reason\":" << json_string(r.reason) << ",\"count\":" << r.count << "}";
  });
}

// Starts (1) or stops (0) recording which kernels run natively; either clears the record.
int tfl_record_native_runs(int on) {
  return guarded([&] { torch_fl::set_native_run_recording(on != 0); });
}

// A JSON list of {"op", "dtype", "count"}: the kernels that ran natively since recording started.
const char* tfl_native_runs_json() {
  return json_list(torch_fl::native_runs(), [](std::ostream& out, const auto& r) {
    out << "{\"op\":" << json_string(r.op) << ",\"dtype\":" << json_string(r.dtype) << ",\"count\":" << r.count
        << "}";
  });
}

// `ops`: newline-separated "aten::name[.overload]"; empty restores every kernel.
int tfl_set_forced_fallbacks(const char* ops) {
  return guarded([&] {
    std::vector<std::string> names;
    std::istringstream lines(ops);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) names.push_back(line);
    }
    torch_fl::set_forced_fallbacks(names);
  });
}

// The forced ops, newline-separated.
const char* tfl_forced_fallbacks() {
  std::string joined;
  for (const std::string& name : torch_fl::forced_fallbacks()) joined += name + "\n";
  json_buffer = joined;
  return json_buffer.c_str();
}

// 0 off, 1 info, 2 debug; the sink receives (level, line) instead of stderr.
int tfl_set_log_level(int level) {
  return guarded([&] {
    TORCH_CHECK_VALUE(level >= 0 && level <= 2, "log level must be 0 (off), 1 (info) or 2 (debug), got ", level);
    torch_fl::set_log_level(static_cast<torch_fl::LogLevel>(level));
  });
}

int tfl_set_log_sink(torch_fl::LogSink sink) {
  return guarded([&] { torch_fl::set_log_sink(sink); });
}

int tfl_reset_fallback_stats() {
  return guarded([] { torch_fl::reset_fallback_records(); });
}

int tfl_manual_seed(int device, uint64_t seed) {
  return guarded([&] {
    at::Generator gen = torch_fl::default_generator(resolve(device));
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
  });
}

int tfl_seed(int device, uint64_t* seed) {
  return guarded([&] {
    at::Generator gen = torch_fl::default_generator(resolve(device));
    std::lock_guard<std::mutex> lock(gen.mutex());
    *seed = gen.seed();
  });
}

int tfl_initial_seed(int device, uint64_t* seed) {
  return guarded([&] {
    at::Generator gen = torch_fl::default_generator(resolve(device));
    std::lock_guard<std::mutex> lock(gen.mutex());
    *seed = gen.current_seed();
  });
}

int tfl_get_rng_state(int device, uint8_t* state16) {
  return guarded([&] {
    at::Generator gen = torch_fl::default_generator(resolve(device));
    std::lock_guard<std::mutex> lock(gen.mutex());
    const at::Tensor state = gen.get_state();
    std::memcpy(state16, state.data_ptr(), 16);
  });
}

int tfl_set_rng_state(int device, const uint8_t* state16) {
  return guarded([&] {
    at::Generator gen = torch_fl::default_generator(resolve(device));
    at::Tensor state = at::empty({16}, at::kByte);
    std::memcpy(state.data_ptr(), state16, 16);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(state);
  });
}

}  // extern "C"
