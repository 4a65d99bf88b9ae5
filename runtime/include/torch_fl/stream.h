// Streams: c10::Stream ids mapped onto driver streams, and the current stream
// per device per thread.
//
// Stream id 0 of each device is its default stream. Ids 1.. index a per-device
// table of driver streams that lives as long as the process (c10::Stream is a
// plain value and may be copied anywhere, so its driver stream must outlive it).
#pragma once

#include <c10/core/Stream.h>

#include <torch_fl/driver_abi.h>

namespace torch_fl {

c10::Stream default_stream(c10::DeviceIndex device);
c10::Stream current_stream(c10::DeviceIndex device);
// Returns the previous current stream of that stream's device.
c10::Stream exchange_stream(c10::Stream stream);
// A stream from the device's pool (round-robin), at the given priority.
c10::Stream stream_from_pool(c10::DeviceIndex device, int priority);
// The driver stream behind a c10::Stream.
tflStream driver_stream(c10::Stream stream);
// The current driver stream of a device.
inline tflStream current_driver_stream(c10::DeviceIndex device) { return driver_stream(current_stream(device)); }

void synchronize_stream(c10::Stream stream);
// True once any stream but the default one has been used on the device: work
// may then run out of the order the host queued it in.
bool side_streams_exist(c10::DeviceIndex device);
bool query_stream(c10::Stream stream);
// Waits for every stream of the device created so far.
void synchronize_device(c10::DeviceIndex device);

}  // namespace torch_fl
