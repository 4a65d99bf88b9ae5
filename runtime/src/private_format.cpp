#include <torch_fl/private_format.h>

#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "allocator.h"
#include <torch_fl/device.h>
#include "driver.h"
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {

// The context of a private storage's DataPtr: it owns the physical tensor
// (whose own storage holds the allocator's block) and remembers the public
// geometry the storage was made for.
struct PrivateBuffer {
  const PrivateFormat* format;
  at::Tensor physical;
  std::vector<int64_t> sizes;
  c10::ScalarType dtype;
};

void delete_private_buffer(void* context) { delete static_cast<PrivateBuffer*>(context); }

// Quick and lock-free: may a DataPtr be private? A storage never turns private
// after it was made, so "no" is final; "yes" is confirmed under the lock.
bool maybe_private(const c10::DataPtr& data) { return data.get_deleter() == &delete_private_buffer; }

// Conversions back are rare (once per storage) and must not race with each
// other or with a reader of the buffer: two threads reading one private
// storage convert it once, and a reader never sees a deleted PrivateBuffer.
std::mutex& conversion_mutex() {
  static std::mutex mutex;
  return mutex;
}

// `read(buffer)` under the lock when `data` is private, else `otherwise`.
template <class Read, class Result = std::invoke_result_t<Read, const PrivateBuffer&>>
Result read_buffer(const c10::DataPtr& data, Read read, Result otherwise) {
  if (!maybe_private(data)) return otherwise;
  std::lock_guard<std::mutex> lock(conversion_mutex());
  if (!maybe_private(data)) return otherwise;  // converted meanwhile
  return read(*static_cast<const PrivateBuffer*>(data.get_context()));
}

const c10::DataPtr* storage_data(const at::Tensor& t) {
  return t.defined() && t.has_storage() ? &t.storage().data_ptr() : nullptr;
}

struct Counters {
  std::atomic<int64_t> to_private{0}, to_public{0}, created{0};
};
Counters& counters() {
  static Counters instance;
  return instance;
}

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> flag{[] {
    const char* setting = std::getenv("TORCH_FL_PRIVATE_FORMATS");
    return setting == nullptr || std::string(setting) != "0";
  }()};
  return flag;
}

int64_t element_count(at::IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool whole(const at::Tensor& t, const PrivateBuffer& buffer) {
  return t.storage_offset() == 0 && t.scalar_type() == buffer.dtype && t.sizes() == at::IntArrayRef(buffer.sizes) &&
         t.is_contiguous();
}

}  // namespace

const PrivateFormat* private_format_of(const c10::DataPtr& storage_data) {
  return read_buffer(storage_data, [](const PrivateBuffer& b) { return b.format; },
                     static_cast<const PrivateFormat*>(nullptr));
}

const PrivateFormat* private_format_of(const at::Tensor& t) {
  const c10::DataPtr* data = storage_data(t);
  return data ? private_format_of(*data) : nullptr;
}

bool is_whole_private(const at::Tensor& t, const PrivateFormat& format) {
  const c10::DataPtr* data = storage_data(t);
  return data && read_buffer(*data, [&](const PrivateBuffer& b) { return b.format == &format && whole(t, b); }, false);
}

at::Tensor private_physical(const at::Tensor& t) {
  const c10::DataPtr* data = storage_data(t);
  return data ? read_buffer(*data, [](const PrivateBuffer& b) { return b.physical; }, at::Tensor()) : at::Tensor();
}

void ensure_public(const at::Tensor& t) {
  const c10::DataPtr* data = storage_data(t);
  if (data && maybe_private(*data)) ensure_public(t.storage().unsafeGetStorageImpl());
}

void ensure_public(c10::StorageImpl* storage) {
  if (storage == nullptr || !maybe_private(storage->data_ptr())) return;
  std::lock_guard<std::mutex> lock(conversion_mutex());
  if (!maybe_private(storage->data_ptr())) return;  // another thread converted it meanwhile
  const auto* buffer = static_cast<const PrivateBuffer*>(storage->data_ptr().get_context());
  const PrivateFormat& format = *buffer->format;
  const c10::Device device = buffer->physical.device();
  const DeviceGuard guard(device);
  at::Tensor converted = format.to_public(buffer->physical, buffer->sizes);
  TORCH_CHECK(converted.device() == device && converted.scalar_type() == buffer->dtype &&
                  converted.storage_offset() == 0 && converted.is_contiguous() &&
                  converted.sizes() == at::IntArrayRef(buffer->sizes) &&
                  converted.storage().nbytes() == storage->nbytes(),
              "[", driver().vendor, "] the ", format.name, " format's to_public converter (", format.source,
              ") must return a new contiguous tensor of sizes ", at::IntArrayRef(buffer->sizes), " and dtype ",
              buffer->dtype, ", got ", converted.sizes(), " ", converted.scalar_type());
  const c10::Stream stream = current_stream(device.index());
  // The physical block may be reused once freed: not before this stream has read it.
  record_stream(buffer->physical.storage().data_ptr(), stream);
  // With only the default stream, everything that reads the storage later is
  // queued after the conversion. Another stream may already be ordered after
  // the producer but not after this conversion: it must not see the new bytes
  // before they are written.
  if (side_streams_exist(device.index())) synchronize_stream(stream);
  // The converted bytes move into the storage every tensor shares, with the
  // streams that used the old block; the old DataPtr's deletion frees the
  // physical tensor.
  c10::DataPtr bytes = converted.storage().unsafeGetStorageImpl()->set_data_ptr(c10::DataPtr(nullptr, device));
  record_stream_uses(buffer->physical.storage().data_ptr(), bytes);
  storage->set_data_ptr_noswap(std::move(bytes));
  counters().to_public.fetch_add(1, std::memory_order_relaxed);
}

void ensure_whole_or_public(const at::Tensor& t, const PrivateFormat& format) {
  const c10::DataPtr* data = storage_data(t);
  if (!data || !maybe_private(*data)) return;
  // Formats turned off: what was private becomes public at its next use.
  if (!private_formats_enabled() || !is_whole_private(t, format)) ensure_public(t);
}

bool private_formats_enabled() { return enabled_flag().load(std::memory_order_relaxed); }

void set_private_formats_enabled(bool enabled) { enabled_flag().store(enabled); }

namespace {

// A tensor of public `sizes` whose storage is `physical`, in `format`.
at::Tensor wrap_physical(at::Tensor physical, at::IntArrayRef sizes, const PrivateFormat& format) {
  const caffe2::TypeMeta dtype = physical.dtype();
  const size_t nbytes = static_cast<size_t>(element_count(sizes)) * dtype.itemsize();
  TORCH_CHECK(physical.nbytes() >= nbytes, "[", driver().vendor, "] the ", format.name, " format's physical_sizes (",
              format.source, ") gives ", physical.sizes(), " for ", sizes, ": fewer elements than the tensor holds");
  const c10::Device device = physical.device();
  void* address = physical.data_ptr();
  auto* buffer = new PrivateBuffer{&format, std::move(physical), sizes.vec(), c10::typeMetaToScalarType(dtype)};
  c10::DataPtr data(address, buffer, &delete_private_buffer, device);
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, std::move(data), device_allocator(),
                       /*resizable=*/true);
  at::Tensor result = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), dtype);
  result.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  counters().created.fetch_add(1, std::memory_order_relaxed);
  return result;
}

std::mutex& registry_mutex() {
  static auto* mutex = new std::mutex();
  return *mutex;
}
std::map<std::string, const PrivateFormat*>& registry() {
  static auto* formats = new std::map<std::string, const PrivateFormat*>();  // never destroyed
  return *formats;
}

}  // namespace

PrivateFormatRegistration::PrivateFormatRegistration(const PrivateFormat& format) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  registry().emplace(format.name, &format);
}

const PrivateFormat* private_format_named(const std::string& name) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  const auto found = registry().find(name);
  return found == registry().end() ? nullptr : found->second;
}

at::Tensor empty_private(at::IntArrayRef sizes, const at::TensorOptions& options, const PrivateFormat& format) {
  if (static_cast<int64_t>(sizes.size()) != format.rank || !private_formats_enabled()) {
    return at::empty(sizes, options);
  }
  return wrap_physical(at::empty(format.physical_sizes(sizes), options), sizes, format);
}

at::Tensor private_copy(const at::Tensor& t, const PrivateFormat& format) {
  if (t.dim() != format.rank || !private_formats_enabled()) return t.clone(at::MemoryFormat::Contiguous);
  return wrap_physical(format.to_private(t), t.sizes(), format);
}

at::Tensor laid_out_in(const at::Tensor& t, const PrivateFormat& format) {
  const c10::DataPtr* data = storage_data(t);
  if (data && maybe_private(*data)) {
    at::Tensor physical = read_buffer(
        *data, [&](const PrivateBuffer& b) { return b.format == &format && whole(t, b) ? b.physical : at::Tensor(); },
        at::Tensor());
    if (physical.defined()) return physical;
    ensure_public(t);
  }
  counters().to_private.fetch_add(1, std::memory_order_relaxed);
  return format.to_private(t);
}

bool record_private_stream(const c10::DataPtr& data, c10::Stream stream) {
  const at::Tensor physical = read_buffer(data, [](const PrivateBuffer& b) { return b.physical; }, at::Tensor());
  if (!physical.defined()) return false;
  record_stream(physical.storage().data_ptr(), stream);
  return true;
}

PrivateFormatStats private_format_stats() {
  const Counters& c = counters();
  return {c.to_private.load(), c.to_public.load(), c.created.load()};
}

void reset_private_format_stats() {
  Counters& c = counters();
  c.to_private = 0;
  c.to_public = 0;
  c.created = 0;
}

}  // namespace torch_fl
