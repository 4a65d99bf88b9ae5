#include <torch_fl/private_format.h>

#include <c10/core/StorageImpl.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>

#include <torch_fl/allocator.h>
#include <torch_fl/device.h>
#include <torch_fl/driver.h>
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

PrivateBuffer* buffer_of(const c10::DataPtr& data) {
  return data.get_deleter() == &delete_private_buffer ? static_cast<PrivateBuffer*>(data.get_context()) : nullptr;
}

PrivateBuffer* buffer_of(const at::Tensor& t) {
  if (!t.defined() || !t.has_storage()) return nullptr;
  return buffer_of(t.storage().data_ptr());
}

// Conversions back are rare (once per storage) and must not race: two threads
// reading one private storage convert it once.
std::mutex& conversion_mutex() {
  static std::mutex mutex;
  return mutex;
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

}  // namespace

const PrivateFormat* private_format_of(const at::Tensor& t) {
  const PrivateBuffer* buffer = buffer_of(t);
  return buffer ? buffer->format : nullptr;
}

const PrivateFormat* private_format_of(const c10::DataPtr& storage_data) {
  const PrivateBuffer* buffer = buffer_of(storage_data);
  return buffer ? buffer->format : nullptr;
}

bool is_whole_private(const at::Tensor& t, const PrivateFormat& format) {
  const PrivateBuffer* buffer = buffer_of(t);
  return buffer && buffer->format == &format && t.storage_offset() == 0 && t.scalar_type() == buffer->dtype &&
         t.sizes() == at::IntArrayRef(buffer->sizes) && t.is_contiguous();
}

const at::Tensor* private_physical(const at::Tensor& t) {
  const PrivateBuffer* buffer = buffer_of(t);
  return buffer ? &buffer->physical : nullptr;
}

void ensure_public(const at::Tensor& t) {
  if (buffer_of(t) != nullptr) ensure_public(t.storage().unsafeGetStorageImpl());
}

void ensure_public(c10::StorageImpl* storage) {
  if (storage == nullptr || buffer_of(storage->data_ptr()) == nullptr) return;
  std::lock_guard<std::mutex> lock(conversion_mutex());
  PrivateBuffer* buffer = buffer_of(storage->data_ptr());
  if (buffer == nullptr) return;  // another thread converted it meanwhile
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
  // The physical block may be reused once freed: not before this stream has read it.
  record_stream(buffer->physical.storage().data_ptr(), current_stream(device.index()));
  // The converted bytes move into the storage every tensor shares; the old
  // DataPtr's deletion frees the physical tensor.
  c10::DataPtr bytes = converted.storage().unsafeGetStorageImpl()->set_data_ptr(c10::DataPtr(nullptr, device));
  storage->set_data_ptr_noswap(std::move(bytes));
  counters().to_public.fetch_add(1, std::memory_order_relaxed);
}

void ensure_whole_or_public(const at::Tensor& t, const PrivateFormat& format) {
  if (buffer_of(t) != nullptr && !is_whole_private(t, format)) ensure_public(t);
}

bool private_formats_enabled() { return enabled_flag().load(std::memory_order_relaxed); }

void set_private_formats_enabled(bool enabled) { enabled_flag().store(enabled); }

at::Tensor empty_private(at::IntArrayRef sizes, const at::TensorOptions& options, const PrivateFormat& format) {
  if (static_cast<int64_t>(sizes.size()) != format.rank || !private_formats_enabled()) {
    return at::empty(sizes, options);
  }
  at::Tensor physical = at::empty(format.physical_sizes(sizes), options);
  const c10::Device device = physical.device();
  void* address = physical.data_ptr();
  auto* buffer = new PrivateBuffer{&format, std::move(physical), sizes.vec(), options.dtype().toScalarType()};
  c10::DataPtr data(address, buffer, &delete_private_buffer, device);
  const size_t nbytes = static_cast<size_t>(element_count(sizes)) * options.dtype().itemsize();
  c10::Storage storage(c10::Storage::use_byte_size_t(), nbytes, std::move(data), device_allocator(),
                       /*resizable=*/true);
  at::Tensor result = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1), options.dtype());
  result.unsafeGetTensorImpl()->set_sizes_contiguous(sizes);
  counters().created.fetch_add(1, std::memory_order_relaxed);
  return result;
}

at::Tensor laid_out_in(const at::Tensor& t, const PrivateFormat& format) {
  if (is_whole_private(t, format)) return buffer_of(t)->physical;
  ensure_public(t);
  counters().to_private.fetch_add(1, std::memory_order_relaxed);
  return format.to_private(t);
}

const c10::DataPtr* physical_data_ptr(const c10::DataPtr& data) {
  const PrivateBuffer* buffer = buffer_of(data);
  return buffer ? &buffer->physical.storage().data_ptr() : nullptr;
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
