// The tensor ops every backend must provide itself: allocation, resizing,
// storage swaps, copies and reading a scalar back to the host, registered from
// runtime/aten_kernels.yaml (as are ATen's own view kernels).
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/Resize.h>
#include <ATen/native/ResizeCommon.h>
#include <ATen/native/TensorFactories.h>
#include <c10/core/Storage.h>
#include <torch/library.h>

#include "allocator.h"
#include "copy.h"
#include <torch_fl/memory_overlap.h>
#include <torch_fl/private_format.h>
#include <torch_fl/device.h>
#include "driver.h"
#include "storage.h"
#include <torch_fl/stream.h>

namespace torch_fl {

void resize_storage_bytes(c10::StorageImpl* storage, size_t new_bytes) {
  TORCH_CHECK(storage->resizable(), "Trying to resize storage that is not resizable");
  const size_t old_bytes = storage->nbytes();
  if (new_bytes == old_bytes) return;
  ensure_public(storage);  // the kept bytes are copied as they are
  const DeviceGuard guard(storage->device());
  c10::DataPtr fresh = storage->allocator()->allocate(new_bytes);
  const size_t keep = std::min(old_bytes, new_bytes);
  if (keep > 0 && storage->data() != nullptr) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2d_async(fresh.get(), storage->data(), keep,
                                                    current_driver_stream(storage->device().index())));
  }
  // The old block returns to the cache of this stream: reuse is stream-ordered after the copy.
  storage->set_data_ptr_noswap(std::move(fresh));
  storage->set_nbytes(new_bytes);
}

namespace {

c10::Device resolve_device(std::optional<c10::Device> device) {
  if (!device.has_value() || !device->has_index()) return make_device(current_device());
  check_device_index(device->index());
  return *device;
}

// CPU's and CUDA's rule under torch.use_deterministic_algorithms(True): new memory
// reads as NaN (or the integer maximum), never as a freed block's stale bytes.
at::Tensor& fill_if_deterministic(at::Tensor& result) {
  if (C10_UNLIKELY(at::globalContext().deterministicAlgorithms() &&
                   at::globalContext().deterministicFillUninitializedMemory())) {
    at::native::fill_empty_deterministic_(result);
  }
  return result;
}

void ensure_storage_bytes(const at::Tensor& self, size_t needed) {
  c10::StorageImpl* storage = self.unsafeGetTensorImpl()->unsafe_storage().unsafeGetStorageImpl();
  if (needed > storage->nbytes()) resize_storage_bytes(storage, needed);
}

at::Tensor& set_storage(at::Tensor& self, c10::Storage source, int64_t storage_offset, at::IntArrayRef size,
                        at::IntArrayRef stride) {
  at::native::checkSetStorage(self, source, storage_offset, size, stride);
  auto* impl = self.unsafeGetTensorImpl();
  impl->set_storage_offset(storage_offset);
  const at::OptionalIntArrayRef strides =
      stride.data() != nullptr ? at::OptionalIntArrayRef(stride) : at::OptionalIntArrayRef(std::nullopt);
  if (strides.has_value()) {
    impl->set_sizes_and_strides(size, *strides);
  } else {
    impl->set_sizes_contiguous(size);
  }
  const size_t needed = strides.has_value()
                            ? at::detail::computeStorageNbytes(size, *strides, self.dtype().itemsize(), storage_offset)
                            : at::detail::computeStorageNbytesContiguous(size, self.dtype().itemsize(), storage_offset);
  ensure_storage_bytes(self, needed);
  return self;
}

bool dense_strided(const at::Tensor& t) {
  if (t.layout() != at::kStrided || t.is_quantized() || t.is_nested()) return false;
  switch (t.device().type()) {
    case c10::DeviceType::CPU:
    case c10::DeviceType::CUDA:
    case c10::DeviceType::HIP:
    case c10::DeviceType::MPS:
    case c10::DeviceType::XPU:
    case c10::DeviceType::HPU:
    case c10::DeviceType::PrivateUse1: return true;
    default: return false;
  }
}

}  // namespace

// The kernels runtime/aten_kernels.yaml registers (generated/<vendor>/aten_kernels.cpp
// declares them with their ops' native signatures).
namespace kernels {

at::Tensor empty_memory_format(at::IntArrayRef size, std::optional<at::ScalarType> dtype,
                               std::optional<at::Layout> layout, std::optional<at::Device> device,
                               std::optional<bool> pin_memory, std::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "[", driver().vendor,
              "] only strided tensors are supported, got layout ", *layout);
  const DeviceGuard guard(resolve_device(device));
  at::Tensor result = at::detail::empty_generic(size, device_allocator(),
                                                c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                c10::dtype_or_default(dtype), memory_format);
  return fill_if_deterministic(result);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, std::optional<at::ScalarType> dtype,
                         std::optional<at::Layout> layout, std::optional<at::Device> device,
                         std::optional<bool> pin_memory) {
  TORCH_CHECK(layout.value_or(at::kStrided) == at::kStrided, "[", driver().vendor,
              "] only strided tensors are supported, got layout ", *layout);
  const DeviceGuard guard(resolve_device(device));
  at::Tensor result = at::detail::empty_strided_generic(size, stride, device_allocator(),
                                                        c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                        c10::dtype_or_default(dtype));
  return fill_if_deterministic(result);
}

// ATen's resize_ (Resize.cpp), for device storage. A tensor whose sizes already
// match is left alone, strides and all: the CPU fallback writes results back
// through _copy_from_and_resize, and resetting a view's strides there wrote a
// dense block at the view's offset (x[:, 0] += 1 on a float64 matrix filled row 0).
const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size,
                          std::optional<at::MemoryFormat> memory_format) {
  auto* impl = self.unsafeGetTensorImpl();
  const int64_t old_storage_nbytes = impl->unsafe_storage() ? static_cast<int64_t>(impl->unsafe_storage().nbytes()) : 0;
  if (impl->sizes() != size) {
    impl->set_sizes_contiguous(size);
    // ATen keeps a storage that holds nothing as it is: its offset may point past the end.
    if (impl->numel() > 0) {
      ensure_storage_bytes(self, at::detail::computeStorageNbytesContiguous(size, self.dtype().itemsize(),
                                                                            impl->storage_offset()));
    }
  }
  if (memory_format.has_value()) {
    TORCH_CHECK(*memory_format != at::MemoryFormat::Preserve, "Unsupported memory format ", *memory_format);
    impl->empty_tensor_restride(*memory_format);
  }
  if (C10_UNLIKELY(at::globalContext().deterministicAlgorithms() &&
                   at::globalContext().deterministicFillUninitializedMemory())) {
    at::native::fill_resize_deterministic_(self, old_storage_nbytes);
  }
  return self;
}

at::Tensor& set_source_storage_offset(at::Tensor& self, c10::Storage source, int64_t storage_offset,
                                      at::IntArrayRef size, at::IntArrayRef stride) {
  return set_storage(self, std::move(source), storage_offset, size, stride);
}

at::Tensor& set_source_storage(at::Tensor& self, c10::Storage source) {
  const int64_t elements = static_cast<int64_t>(source.nbytes() / self.dtype().itemsize());
  return set_storage(self, std::move(source), 0, {elements}, {});
}

at::Tensor& set_source_tensor(at::Tensor& self, const at::Tensor& source) {
  if (self.unsafeGetTensorImpl() == source.unsafeGetTensorImpl()) return self;
  return set_storage(self, source.storage(), source.storage_offset(), source.sizes(), source.strides());
}

at::Tensor& set_empty(at::Tensor& self) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, device_allocator(), /*resizable=*/true);
  return set_storage(self, std::move(storage), 0, {0}, {});
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  // copy_ redispatches here for our device before ATen's TensorIterator would
  // check overlap, so its rules are applied here. Not in _copy_from_and_resize:
  // that is the CPU fallback writing results back, into tensors the op itself
  // may legitimately alias (fill_ on an expanded tensor).
  check_no_internal_overlap(dst);
  check_no_partial_overlap(dst, self);
  copy_between(dst, self, non_blocking);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  copy_between(dst, self, /*non_blocking=*/false);
  return dst;
}

void record_stream(at::Tensor& self, c10::Stream stream) {
  torch_fl::record_stream(self.storage().data_ptr(), stream);
}

// ATen's conj_physical_ (CompositeExplicitAutograd) calls the CPU and CUDA kernel
// stub directly, which has no entry for our device; its out= form dispatches.
at::Tensor& conj_physical_inplace(at::Tensor& self) {
  if (!self.is_complex()) return self;
  return at::conj_physical_out(self, self);
}

// TensorImpl counts only its own list of dense backends (CPU, CUDA, ...) as
// compatible, so without this nn.Module.to(device) made new Parameter objects
// instead of swapping .data: an optimizer built before .to() stepped the old CPU
// tensors, tied weights came apart, and param.data = x.to(device) was refused.
// Our dense tensors answer as CUDA's do.
bool has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set()) ||
         (dense_strided(self) && dense_strided(from));
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  return at::_local_scalar_dense(self.to(c10::Device(c10::DeviceType::CPU)));
}

}  // namespace kernels

// copy_ passes the conjugate and negative keys through to the backend; _copy_from,
// where copy_ lands for our device, did not, so ATen's fallbacks for those keys
// resolved the bit by copying the tensor, which came back to _copy_from for ever
// (t.conj().cpu() crashed). copy_between applies both bits itself.
TORCH_LIBRARY_IMPL(aten, Conjugate, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}
TORCH_LIBRARY_IMPL(aten, Negative, m) {
  m.impl("_copy_from", torch::CppFunction::makeFallthrough());
  m.impl("_copy_from_and_resize", torch::CppFunction::makeFallthrough());
}

}  // namespace torch_fl
