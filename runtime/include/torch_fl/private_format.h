// Private formats: device storages laid out the way the chip's units want them
// (the NPU's NC1HWC0), declared in the spec's `formats:` section.
//
// A tensor in a private format keeps its public sizes and contiguous strides;
// only its storage differs: the storage's DataPtr points at a physical buffer
// in the vendor's layout (bigger, channels padded), and its context records
// the format, the physical tensor and the public geometry. Ops the spec marks
// format-aware read and write the physical buffer directly, so a chain of them
// never converts. Everything else sees public bytes: the first reader that is
// not format-aware (a generated kernel's argument check, the CPU fallback, a
// copy, a resize, the collectives) converts the whole storage back in place,
// once, and every tensor and view over that storage is public from then on.
//
// Storages only ever go private → public, never back, so a reader that finds a
// storage public may read it without a lock; what a private storage holds is
// read under the lock its conversion takes.
#pragma once

#include <ATen/ATen.h>
#include <c10/core/Storage.h>

#include <cstdint>
#include <string>
#include <vector>

namespace torch_fl {

// One vendor format, generated from the spec's `formats:` entry.
struct PrivateFormat {
  const char* name;    // "NC1HWC0"
  const char* source;  // "specs/npu.yaml:40"
  int64_t rank;        // the public rank the format applies to (4: NCHW)
  // A new physical tensor holding a public (contiguous or strided) device tensor.
  at::Tensor (*to_private)(const at::Tensor& public_tensor);
  // A new contiguous public tensor of `sizes` holding the physical tensor's values.
  at::Tensor (*to_public)(const at::Tensor& physical, at::IntArrayRef sizes);
  // The physical sizes of a public tensor of `sizes`.
  std::vector<int64_t> (*physical_sizes)(at::IntArrayRef sizes);
};

// The spec's formats by name, for what names one outside a kernel (torch.load's
// format tag, backend_meta.cpp). Each generated shard that defines a format
// registers it; registering one object twice is harmless.
struct PrivateFormatRegistration {
  explicit PrivateFormatRegistration(const PrivateFormat& format);
};
const PrivateFormat* private_format_named(const std::string& name);

// The format of t's storage, or null when it is public (or t is undefined).
const PrivateFormat* private_format_of(const at::Tensor& t);
const PrivateFormat* private_format_of(const c10::DataPtr& storage_data);
// True when t is in `format` and is the whole tensor its storage was made for
// (offset 0, contiguous, the same sizes and dtype): what a format-aware SDK
// argument must be. A view of a private tensor is not.
bool is_whole_private(const at::Tensor& t, const PrivateFormat& format);
// The physical tensor behind a private t (vendor layout, vendor sizes), or an
// undefined tensor when t's storage is public. A reference: it stays valid
// (and keeps its block) even if another thread converts t meanwhile.
at::Tensor private_physical(const at::Tensor& t);

// Converts t's storage to the public layout in place, unless it already is.
// The conversion runs on the current stream; when other streams exist on the
// device the host waits for it, so no stream can read the new bytes early.
void ensure_public(const at::Tensor& t);
void ensure_public(c10::StorageImpl* storage);
// A format-aware argument: left private when it is whole in `format`, else public.
void ensure_whole_or_public(const at::Tensor& t, const PrivateFormat& format);

// A new tensor of `sizes` and `options`' dtype on `device` whose storage is in
// `format` (uninitialised); a public tensor when sizes are not of the format's rank.
at::Tensor empty_private(at::IntArrayRef sizes, const at::TensorOptions& options, const PrivateFormat& format);
// A new tensor holding t's values whose storage is in `format` (a contiguous
// public copy when t is not of the format's rank or formats are turned off).
at::Tensor private_copy(const at::Tensor& t, const PrivateFormat& format);
// `t` laid out in `format` for an SDK argument: its own physical tensor when it
// is whole in `format`, else a conversion (counted).
at::Tensor laid_out_in(const at::Tensor& t, const PrivateFormat& format);

// For the allocator's record_stream: records `stream` on the physical block of
// a private storage's DataPtr; false (nothing done) for any other DataPtr.
bool record_private_stream(const c10::DataPtr& data, c10::Stream stream);

// Whether format-aware ops write private results (default: yes;
// TORCH_FL_PRIVATE_FORMATS=0 or torch_fl.set_private_formats(False) turns it
// off, as torch_npu's allow_internal_format does): off, every result is public
// and a format-aware argument is converted per call, as if the spec declared
// no format. For measuring what formats gain, and for ruling them out.
bool private_formats_enabled();
void set_private_formats_enabled(bool enabled);

// Conversions since the last reset, for tests and benchmarks.
struct PrivateFormatStats {
  int64_t to_private = 0;  // public tensors converted for a format-aware argument
  int64_t to_public = 0;   // private storages converted back
  int64_t created = 0;     // private results allocated by format-aware ops
};
PrivateFormatStats private_format_stats();
void reset_private_format_stats();

}  // namespace torch_fl
