// The simulators' "ALU": ATen CPU kernels applied to host views of simulated
// device memory, plus the few kernels whose semantics every simulated chip
// shares (counter-based randomness, dropout, RMS norm). Vendor op libraries
// translate their own descriptors into these calls; nothing here knows a
// vendor's API. Host views are built only on a queue's worker thread, where
// device memory is accessible.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <exception>
#include <string>

#include "chip.h"
#include "work_queue.h"

namespace torch_fl::sim::alu {

// A CPU tensor aliasing device memory (strides in elements). A view of
// kParallelElements or more lets the running kernel use every intra-op thread
// (see begin_kernel).
at::Tensor host_view(void* data, at::ScalarType dtype, at::IntArrayRef shape, at::IntArrayRef stride);
constexpr int64_t kParallelElements = 32768;  // ATen's own grain size (at::internal::GRAIN_SIZE)

// Called before each kernel on a queue's worker: the kernel runs on that one
// thread until it views a large tensor. ATen would otherwise open an OpenMP
// team for a 4x4 softmax, whose threads spin after it on the cores the host
// needs for issuing the next ops (on a 2-core machine a tiny softmax cost 3x CPU's).
void begin_kernel();

// What residency_error says of `bytes` that no live allocation holds.
std::string not_resident(size_t bytes);

// "" when every element of the strided tensor lies inside one live allocation
// of `chip`; otherwise what is wrong, for the vendor's error detail. Inline:
// every operand of every op is checked (#33).
inline std::string residency_error(const Chip& chip, const void* data, at::ScalarType dtype, at::IntArrayRef shape,
                                   at::IntArrayRef stride) {
  int64_t last = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return std::string();  // empty: nothing is read or written
    if (stride[i] < 0) return "negative stride";
    last += (shape[i] - 1) * stride[i];
  }
  const size_t bytes = static_cast<size_t>(last + 1) * c10::elementSize(dtype);
  return chip.resident(data, bytes) ? std::string() : not_resident(bytes);
}

// Device work, body(args...), that reports an exception as "<op>: <message>".
// It is returned as it is, not as a WorkQueue::Task, so that the queue builds
// it in its slot (WorkQueue::submit): body is moved once, into this capture.
template <class Body, class... Args>
auto task(const char* op, Body&& body, Args... args) {
  return [op, body = std::forward<Body>(body), args...]() mutable -> std::string {
    try {
      begin_kernel();
      body(args...);
    } catch (const std::exception& e) {
      return std::string(op) + ": " + e.what();
    }
    return "";
  };
}

// A generator whose stream depends only on (seed, offset), never on which
// worker runs the kernel or when.
at::Generator counter_generator(uint64_t seed, uint64_t offset);

// Copies a result computed into a fresh tensor into an output view; an
// undefined view (an output the caller did not ask for) is skipped.
void store(const at::Tensor& out, const at::Tensor& result);

// mask ~ Bernoulli(1 - p); out = x * mask / (1 - p). Not training, or p == 0: out = x.
void dropout(const at::Tensor& x, double p, bool train, uint64_t seed, uint64_t offset, const at::Tensor& out,
             const at::Tensor& mask);

// y = x * rsqrt(mean(x^2, -1) + eps) * weight, computed in float32.
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);
std::tuple<at::Tensor, at::Tensor> rms_norm_backward(const at::Tensor& grad, const at::Tensor& x,
                                                     const at::Tensor& weight, double eps);

}  // namespace torch_fl::sim::alu
