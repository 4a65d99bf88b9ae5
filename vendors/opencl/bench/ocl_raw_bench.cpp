// The floor of this driver stack, for bench/opencl_bench.py: the same work as
// a tiny op and a matrix product, queued directly on OpenCL and CLBlast with no
// PyTorch, no dispatcher and no Torch-FL in between. Loaded with ctypes into the
// benchmark's process, it times its calls on the host clock, as the benchmark
// times the device's.
//
// It takes the platform's first device (PoCL's in CI: the benchmark names the
// device it compares against) and makes its own context and in-order queue.
#include <CL/cl.h>
#include <clblast.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace {

struct Device {
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

bool open_device(Device* device) {
  cl_platform_id platform = nullptr;
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || count == 0) return false;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device->id, &count) != CL_SUCCESS || count == 0) return false;
  cl_int error = CL_SUCCESS;
  device->context = clCreateContext(nullptr, 1, &device->id, nullptr, nullptr, &error);
  if (error != CL_SUCCESS) return false;
  device->queue = clCreateCommandQueue(device->context, device->id, 0, &error);
  return error == CL_SUCCESS;
}

void close_device(Device* device) {
  if (device->queue) clReleaseCommandQueue(device->queue);
  if (device->context) clReleaseContext(device->context);
}

// The median of `rounds` rounds of `calls` calls, in microseconds per call.
template <typename Call>
double median_us(int rounds, int calls, Call call) {
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int c = 0; c < calls; ++c) call();
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    per_call.push_back(took.count() / calls);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

// The tiny op's kernel: out = a + b over `n` floats, one work-group of 64 as
// Torch-FL's launches have.
const char* const kAddSource = R"CL(
__kernel void add(long n, __global float* out, __global const float* a, __global const float* b) {
  for (long i = get_global_id(0); i < n; i += get_global_size(0)) out[i] = a[i] + b[i];
}
)CL";

}  // namespace

extern "C" {

// Microseconds per clEnqueueNDRangeKernel + clFinish of a 16-element add; < 0 on failure.
double ocl_raw_tiny_add_us(int rounds, int calls) {
  Device device;
  if (!open_device(&device)) return -1;
  cl_int error = CL_SUCCESS;
  const char* source = kAddSource;
  cl_program program = clCreateProgramWithSource(device.context, 1, &source, nullptr, &error);
  double result = -1;
  if (error == CL_SUCCESS && clBuildProgram(program, 1, &device.id, "", nullptr, nullptr) == CL_SUCCESS) {
    cl_kernel kernel = clCreateKernel(program, "add", &error);
    const cl_long n = 16;
    cl_mem buffers[3];
    for (cl_mem& buffer : buffers) buffer = clCreateBuffer(device.context, CL_MEM_READ_WRITE, n * 4, nullptr, &error);
    clSetKernelArg(kernel, 0, sizeof(n), &n);
    for (cl_uint k = 0; k < 3; ++k) clSetKernelArg(kernel, k + 1, sizeof(cl_mem), &buffers[k]);
    const size_t global = 64, local = 64;
    auto launch = [&] {
      clEnqueueNDRangeKernel(device.queue, kernel, 1, nullptr, &global, &local, 0, nullptr, nullptr);
      clFinish(device.queue);
    };
    for (int warm = 0; warm < 20; ++warm) launch();  // PoCL compiles the work-group function at the first run
    result = median_us(rounds, calls, launch);
    for (cl_mem buffer : buffers) clReleaseMemObject(buffer);
    clReleaseKernel(kernel);
  }
  if (program) clReleaseProgram(program);
  close_device(&device);
  return result;
}

// Microseconds per row-major n x n SGEMM on CLBlast + clFinish; < 0 on failure.
double ocl_raw_sgemm_us(int n, int rounds, int calls) {
  Device device;
  if (!open_device(&device)) return -1;
  const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
  std::vector<float> host(static_cast<size_t>(n) * n, 0.5f);
  cl_int error = CL_SUCCESS;
  cl_mem a = clCreateBuffer(device.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host.data(), &error);
  cl_mem b = clCreateBuffer(device.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, host.data(), &error);
  cl_mem c = clCreateBuffer(device.context, CL_MEM_READ_WRITE, bytes, nullptr, &error);
  const size_t size = static_cast<size_t>(n);
  bool ok = true;
  auto gemm = [&] {
    cl_event event = nullptr;
    ok = ok && clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kNo,
                                    size, size, size, 1.0f, a, 0, size, b, 0, size, 0.0f, c, 0, size, &device.queue,
                                    &event) == clblast::StatusCode::kSuccess;
    clFinish(device.queue);
    if (event) clReleaseEvent(event);
  };
  gemm();  // CLBlast builds its kernels at the first call
  const double result = median_us(rounds, calls, gemm);
  for (cl_mem buffer : {a, b, c}) clReleaseMemObject(buffer);
  close_device(&device);
  return ok ? result : -1;
}

}  // extern "C"
