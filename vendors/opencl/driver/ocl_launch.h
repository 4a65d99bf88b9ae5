// Queuing one kernel on a stream: its arguments in order, then a 1-D launch
// whose event the stream tracks (ocl_queue.h).
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <string>

#include "ocl_program_cache.h"
#include "ocl_queue.h"

namespace torch_fl::ocl {

class Launch {
 public:
  // `name` from the program of `source` + `options` (ocl_program_cache.h) on the stream's device.
  Launch(Stream& stream, const std::string& source, const std::string& options, const char* name);

  // Arguments in the kernel's order; the first failure is kept and returned by run().
  template <typename T>
  Launch& value(const T& argument) {
    return set(sizeof(T), &argument);
  }
  Launch& buffer(cl_mem memory) { return set(sizeof(cl_mem), &memory); }
  // The stream's fault record, the kernel's last arguments (TFL_FAULT_ARGS in
  // kernels/ocl_indexing.cl): a bad index it finds raises at the next
  // synchronisation, naming `call` (a string literal: the SDK call).
  Launch& fault_record(const char* call);

  // `items` work-items, fewer when there are very many (kernels loop with
  // TFL_FOR_EACH); nothing is queued for zero.
  int32_t run(uint64_t items);

 private:
  Launch& set(size_t size, const void* argument);

  Stream& stream_;
  Kernel kernel_;
  const char* name_;
  cl_uint next_ = 0;
  int32_t status_ = 0;
  bool armed_ = false;  // carries the fault record
};

// The driver's own kernel sources (embedded from driver/kernels/ at build time).
extern const char* const kIndexingSource;  // kernels/ocl_indexing.cl
extern const char* const kCopySource;      // kernels/ocl_copy.cl

}  // namespace torch_fl::ocl
