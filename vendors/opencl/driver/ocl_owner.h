// A base for the driver's classes that release OpenCL objects they own when
// destroyed (a queue, an event, a buffer): a copy would release them twice, so
// none may be copied.
#pragma once

namespace torch_fl::ocl {

class OwnsClObjects {
 public:
  OwnsClObjects(const OwnsClObjects&) = delete;
  OwnsClObjects& operator=(const OwnsClObjects&) = delete;

 protected:
  OwnsClObjects() = default;
  ~OwnsClObjects() = default;
};

}  // namespace torch_fl::ocl
