// The C entry points the torch_fl Python package calls through ctypes: the one
// C counterpart of the ctypes table in runtime/python/torch_fl/_backend.py
// (_declare), which tests/python/test_c_api_table.py holds to this header.
//
// ctypes keeps the Python side free of a compiled extension module (no pybind11
// build, no Python on any per-op path). A function returning int returns 0 on
// success or a negative error kind (ErrorKind in python_c_api.cpp, mapped to a
// Python exception by _backend._ERRORS); tfl_last_error() has the message. A
// function returning const char* returns text owned by the library, valid until
// the calling thread's next call.
#pragma once

#include <cstdint>

#include <torch_fl/driver_abi.h>

#include "allocator_history.h"
#include "logging.h"

extern "C" {

// What was built: the spec, its vendor and device, the torch it was built against.
const char* tfl_last_error();
const char* tfl_vendor_name();
const char* tfl_device_name();
const char* tfl_spec_path();
const char* tfl_spec_sha256();
const char* tfl_torch_version();
const char* tfl_collective_backend();
const char* tfl_collective_dtypes();
const char* tfl_collective_transport();

// Devices (torch.<device>'s device functions).
int tfl_in_bad_fork();
int tfl_is_initialized();
int tfl_device_count(int* count);
int tfl_device_properties(int device, tflDeviceProperties* properties);
int tfl_current_device(int* device);
int tfl_set_device(int device);
int tfl_synchronize(int device);
int tfl_device_busy_time(int device, uint64_t* busy_ns, uint64_t* elapsed_ns);
// Op calls on the device since the process started: native launches and CPU fallbacks (op_calls.h).
int tfl_op_calls(int device, uint64_t* native, uint64_t* fallback);
// The driver's own counters, "name=value" lines (TflDriver::driver_counters).
const char* tfl_driver_counters();

// Memory: the caching allocator and the driver's view.
int tfl_memory_stats_json(int device, const char** json);
int tfl_reset_peak_memory_stats(int device);
const char* tfl_memory_snapshot_json(int device);
// The allocator's history (allocator_history.h): start (max_entries per device) or stop (0), read one device's.
int tfl_record_memory_history(uint64_t max_entries);
const char* tfl_memory_history_json(int device);
// Called on an out-of-memory before it is raised (torch_fl writes TORCH_FL_OOM_SNAPSHOT there).
int tfl_set_oom_observer(torch_fl::OutOfMemoryObserver observer);
int tfl_empty_cache();
int tfl_memory_info(int device, uint64_t* free_bytes, uint64_t* total_bytes);

// Private formats and the cache of converted inputs (torch_fl.formats).
int tfl_conversion_cache_stats(uint64_t* out);  // hits, misses, entries
int tfl_private_format_stats(uint64_t* out);    // to_private, to_public, created
int tfl_set_private_formats(int enabled);
int tfl_private_formats_enabled();
int tfl_reset_private_format_stats();
const char* tfl_storage_format(uintptr_t storage);  // a c10::StorageImpl*; "" when public
int tfl_make_storage_public(uintptr_t storage);

// The CPU fallback: its records, forced ops, and which kernels ran natively.
const char* tfl_fallback_stats_json();
int tfl_reset_fallback_stats();
int tfl_set_forced_fallbacks(const char* ops);  // operator names, one per line
const char* tfl_forced_fallbacks();
int tfl_record_native_runs(int on);
const char* tfl_native_runs_json();

// Logging.
int tfl_set_log_level(int level);
int tfl_set_log_sink(torch_fl::LogSink sink);

// Random numbers: each device's default generator.
int tfl_manual_seed(int device, uint64_t seed);
int tfl_seed(int device, uint64_t* seed);
int tfl_initial_seed(int device, uint64_t* seed);
int tfl_get_rng_state(int device, uint8_t* state16);
int tfl_set_rng_state(int device, const uint8_t* state16);

}  // extern "C"
