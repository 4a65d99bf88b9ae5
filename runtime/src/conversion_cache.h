// Reuse of converted inputs: a spec's `layout: {weight: {convert: fn, reuse: true}}`
// converts a tensor into the vendor's private format once and reuses the result
// while the source is unchanged. "Unchanged" means the same storage (held weakly,
// so a freed and reallocated buffer never matches), the same version counter
// (every in-place write bumps it: an optimizer step invalidates the entry), the
// same geometry and dtype, and the same stream (the result is only ordered on
// the stream it was produced on).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include <torch_fl/driver_abi.h>

namespace torch_fl {

using Converter = at::Tensor (*)(const at::Tensor&);

struct ConversionCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t entries = 0;
};

// The converted form of `source` on `stream`: cached, or made now by `convert`.
at::Tensor reuse_conversion(const at::Tensor& source, const char* converter_name, Converter convert,
                            tflStream stream);

ConversionCacheStats conversion_cache_stats();
// Drops every cached conversion (empty_cache does, so its memory can be released).
void clear_conversion_cache();

}  // namespace torch_fl
