#include "alu.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <c10/util/accumulate.h>
#include <dlfcn.h>

#include <vector>

namespace torch_fl::sim::alu {

namespace {

// OpenMP's own setter, found in the process: the one in the runtime that ATen
// uses (a torch wheel bundles its libgomp; linking another would set another
// runtime's threads). Null when ATen runs without OpenMP.
using SetThreads = void (*)(int);
SetThreads openmp_set_num_threads() {
  static const auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  return set;
}

thread_local int worker_threads = 0;         // this worker's intra-op threads before begin_kernel
thread_local bool single_threaded = false;   // the running kernel has only seen small views

}  // namespace

void begin_kernel() {
  const SetThreads set = openmp_set_num_threads();
  if (!set) return;
  if (worker_threads == 0) {
    at::internal::lazy_init_num_threads();  // or ATen's first parallel_for would undo the setting
    worker_threads = at::get_num_threads();
  }
  if (!single_threaded && worker_threads > 1) {
    set(1);  // OpenMP keeps the count per thread: the host's threads are untouched
    single_threaded = true;
  }
}

at::Tensor host_view(void* data, at::ScalarType dtype, at::IntArrayRef shape, at::IntArrayRef stride) {
  if (single_threaded && c10::multiply_integers(shape) >= kParallelElements) {
    openmp_set_num_threads()(worker_threads);
    single_threaded = false;
  }
  return at::from_blob(data, shape, stride, at::TensorOptions().dtype(dtype));
}

std::string not_resident(size_t bytes) {
  return "tensor of " + std::to_string(bytes) + " bytes is not inside a live device allocation";
}

at::Generator counter_generator(uint64_t seed, uint64_t offset) {
  // splitmix64 of the pair: one stream per (seed, offset).
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (offset + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return at::make_generator<at::CPUGeneratorImpl>(z ^ (z >> 31));
}

void store(const at::Tensor& out, const at::Tensor& result) {
  if (out.defined()) const_cast<at::Tensor&>(out).copy_(result);
}

void dropout(const at::Tensor& x, double p, bool train, uint64_t seed, uint64_t offset, const at::Tensor& out,
             const at::Tensor& mask) {
  at::Tensor keep = mask;
  at::Tensor result = out;
  if (!train || p == 0.0) {
    keep.fill_(true);
    result.copy_(x);
    return;
  }
  at::Generator gen = counter_generator(seed, offset);
  keep.copy_(at::empty(keep.sizes(), at::kFloat).bernoulli_(1.0 - p, gen));
  result.copy_(p == 1.0 ? at::zeros_like(x) : x * keep / (1.0 - p));
}

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor input = x.to(at::kFloat);
  const at::Tensor scale = at::rsqrt(input.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return input * scale * weight.to(at::kFloat);
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward(const at::Tensor& grad, const at::Tensor& x,
                                                     const at::Tensor& weight, double eps) {
  const at::Tensor input = x.to(at::kFloat);
  const at::Tensor dy = grad.to(at::kFloat);
  const at::Tensor r = at::rsqrt(input.pow(2).mean(-1, /*keepdim=*/true) + eps);
  const at::Tensor dyw = dy * weight.to(at::kFloat);
  // d/dx [x * r]: r * dyw - x * r^3 * mean(dyw * x)
  at::Tensor grad_x = r * dyw - input * r.pow(3) * (dyw * input).mean(-1, /*keepdim=*/true);
  std::vector<int64_t> reduce_dims;
  for (int64_t d = 0; d + 1 < input.dim(); ++d) reduce_dims.push_back(d);
  return {grad_x, (dy * input * r).sum(reduce_dims)};
}

}  // namespace torch_fl::sim::alu
