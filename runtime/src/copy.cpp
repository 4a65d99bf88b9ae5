#include "copy.h"

#include <c10/util/Exception.h>

#include <torch_fl/descriptor_arrays.h>
#include <torch_fl/device.h>
#include "driver.h"
#include "pinned_memory.h"
#include <torch_fl/private_format.h>
#include <torch_fl/profiler_range.h>
#include <torch_fl/stream.h>

namespace torch_fl {
namespace {

bool on_device(const at::Tensor& t) { return t.device().type() == c10::DeviceType::PrivateUse1; }

// A copy's device work as the profiler shows it: `dst`'s bytes, moved on `stream` of `device`.
DeviceActivity memcpy_on(c10::DeviceIndex device, tflStream stream, const at::Tensor& dst) {
  return {DeviceActivityKind::kMemcpy, device, stream, nullptr, static_cast<int64_t>(dst.nbytes())};
}

tflStridedView strided_view(const at::Tensor& t) {
  tflStridedView view{};
  view.ndim = copy_geometry(t, view.sizes, view.strides, driver().vendor, "copy");
  view.data = t.data_ptr();  // address arithmetic only: device memory is never dereferenced here
  view.dtype = driver_dtype(t.scalar_type());
  return view;
}

// Same-device copy on the current stream: a plain memcpy when the layouts
// match, otherwise the driver's strided (and converting) copy.
void copy_on_device(const at::Tensor& dst, const at::Tensor& src, tflStream stream) {
  const at::Tensor source = src.sizes() == dst.sizes() ? src : src.expand(dst.sizes());
  if (source.scalar_type() == dst.scalar_type() && source.is_contiguous() && dst.is_contiguous()) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2d_async(dst.data_ptr(), source.data_ptr(), dst.nbytes(), stream));
    return;
  }
  const tflStridedView to = strided_view(dst), from = strided_view(source);
  TORCH_FL_DRIVER_CHECK(driver().copy_strided_async(&to, &from, stream));
}

// A contiguous device tensor holding src converted to `dtype` and broadcast to `sizes`.
at::Tensor contiguous_on_device(const at::Tensor& src, c10::ScalarType dtype, at::IntArrayRef sizes,
                                tflStream stream) {
  if (src.scalar_type() == dtype && src.is_contiguous() && src.sizes() == sizes) return src;
  at::Tensor staged = at::empty(sizes, src.options().dtype(dtype));
  copy_on_device(staged, src, stream);
  return staged;
}

void host_to_device(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  const ProfilerRange range("torch_fl::copy host to device");
  const DeviceGuard guard(dst.device());
  tflStream stream = current_driver_stream(dst.device().index());
  const at::Tensor host =
      src.to(dst.scalar_type()).expand(dst.sizes()).contiguous();
  // The device work starts here: the conversion above is the host's.
  range.trace_on_device(memcpy_on(dst.device().index(), stream, dst));
  // The asynchronous copy stages host bytes before returning, so `host` may die
  // right after; a blocking copy reads them in place.
  if (dst.is_contiguous() && !non_blocking) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_h2d_sync(dst.data_ptr(), host.data_ptr(), dst.nbytes(), stream));
    return;
  }
  if (dst.is_contiguous() && is_pinned_host_pointer(host.data_ptr())) {
    // Pinned: read in place when the copy runs (CUDA's rule), the block kept
    // from reuse until then. Staging it would cost the host the copy itself.
    TORCH_FL_DRIVER_CHECK(driver().memcpy_h2d_pinned_async(dst.data_ptr(), host.data_ptr(), dst.nbytes(), stream));
    record_pinned_use(host.data_ptr(), dst.device().index(), stream);
  } else if (dst.is_contiguous()) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_h2d_async(dst.data_ptr(), host.data_ptr(), dst.nbytes(), stream));
  } else {
    const at::Tensor staged = at::empty(dst.sizes(), dst.options());
    TORCH_FL_DRIVER_CHECK(driver().memcpy_h2d_async(staged.data_ptr(), host.data_ptr(), dst.nbytes(), stream));
    copy_on_device(dst, staged, stream);
  }
  range.end_device_work();
  if (!non_blocking) TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));
}

void device_to_host(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  const ProfilerRange range("torch_fl::copy device to host");
  const DeviceGuard guard(src.device());
  tflStream stream = current_driver_stream(src.device().index());
  range.trace_on_device(memcpy_on(src.device().index(), stream, dst));
  const at::Tensor device_side = contiguous_on_device(src, dst.scalar_type(), dst.sizes(), stream);
  // CUDA's rule: only a pinned destination is written asynchronously. Into
  // pageable memory the copy completes before returning, even with
  // non_blocking, because nothing would keep that memory alive or tell the
  // caller when it may be read.
  const bool asynchronous = non_blocking && is_pinned_host_pointer(dst.data_ptr());
  if (dst.is_contiguous()) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2h_async(dst.data_ptr(), device_side.data_ptr(), dst.nbytes(), stream));
    range.end_device_work();
    if (asynchronous) {
      record_pinned_use(dst.data_ptr(), src.device().index(), stream);
    } else {
      TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));
    }
    return;
  }
  const at::Tensor host = at::empty(dst.sizes(), dst.options().memory_format(at::MemoryFormat::Contiguous));
  TORCH_FL_DRIVER_CHECK(driver().memcpy_d2h_async(host.data_ptr(), device_side.data_ptr(), dst.nbytes(), stream));
  range.end_device_work();
  TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(stream));
  dst.copy_(host);
}

void device_to_device(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  const ProfilerRange range("torch_fl::copy device to device");
  if (src.device() == dst.device()) {
    const DeviceGuard guard(dst.device());
    tflStream stream = current_driver_stream(dst.device().index());
    range.trace_on_device(memcpy_on(dst.device().index(), stream, dst));
    copy_on_device(dst, src, stream);
    return;
  }
  // Across devices: stage src contiguously on its own device, wait for its
  // stream, then copy on the destination's stream.
  at::Tensor staged;
  {
    const DeviceGuard guard(src.device());
    tflStream src_stream = current_driver_stream(src.device().index());
    staged = contiguous_on_device(src, dst.scalar_type(), dst.sizes(), src_stream);
    TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(src_stream));
  }
  const DeviceGuard guard(dst.device());
  tflStream dst_stream = current_driver_stream(dst.device().index());
  range.trace_on_device(memcpy_on(dst.device().index(), dst_stream, dst));
  if (dst.is_contiguous()) {
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2d_async(dst.data_ptr(), staged.data_ptr(), dst.nbytes(), dst_stream));
  } else {
    const at::Tensor landed = at::empty(dst.sizes(), dst.options());
    TORCH_FL_DRIVER_CHECK(driver().memcpy_d2d_async(landed.data_ptr(), staged.data_ptr(), dst.nbytes(), dst_stream));
    copy_on_device(dst, landed, dst_stream);
  }
  // `staged` belongs to the source device's cache: it must not be reused
  // before the destination stream has read it.
  (void)non_blocking;
  range.end_device_work();
  TORCH_FL_DRIVER_CHECK(driver().stream_synchronize(dst_stream));
}

}  // namespace

namespace {

// The same elements without the conjugate and negative bits: what the driver's
// copies move are stored values, never the values those bits make of them.
at::Tensor stored_values(const at::Tensor& t) {
  if (!t.is_conj() && !t.is_neg()) return t;
  at::Tensor alias = t.alias();
  alias._set_conj(false);
  alias._set_neg(false);
  return alias;
}

void copy_stored_values(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  // Copies move public bytes: a storage in a private format is converted first
  // (the destination too: the copy may write only part of it).
  if (on_device(src)) ensure_public(src);
  if (on_device(dst)) ensure_public(dst);
  if (on_device(src) && on_device(dst)) {
    device_to_device(dst, src, non_blocking);
  } else if (on_device(dst)) {
    host_to_device(dst, src, non_blocking);
  } else {
    TORCH_CHECK(on_device(src), "torch_fl copy: neither tensor is on the device");
    device_to_host(dst, src, non_blocking);
  }
}

}  // namespace

void copy_between(const at::Tensor& dst, const at::Tensor& src, bool non_blocking) {
  check_not_forked();
  if (dst.numel() == 0) return;
  // dst's value is (-1)^neg * conj^conj (stored); so is src's. Stored values are
  // copied, conjugated or negated first where the bits differ, as CPU's copy
  // kernel does. On the source side, out of place: an in-place fix-up of dst
  // would apply twice to elements that share memory (an expanded destination).
  // ATen's conjugate and negative fallbacks are not used: they would resolve src
  // by copying it, which comes back here (endless recursion).
  at::Tensor values = stored_values(src);
  if (src.is_conj() != dst.is_conj() && src.is_complex() && dst.is_complex()) values = at::conj_physical(values);
  if (src.is_neg() != dst.is_neg()) values = at::neg(values);
  copy_stored_values(stored_values(dst), values, non_blocking);
}

}  // namespace torch_fl
