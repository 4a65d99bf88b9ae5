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

namespace {

// The block's elementwise and normalisation kernels, written as a vendor would by
// hand for this one shape: bias + exact GELU in place, then layer norm per row.
const char* const kBlockSource = R"CL(
__kernel void bias_gelu(long rows, long cols, __global float* y, __global const float* bias) {
  for (long i = get_global_id(0); i < rows * cols; i += get_global_size(0)) {
    const float v = y[i] + bias[i % cols];
    y[i] = 0.5f * v * (1.0f + erf(v * 0.70710678118654752f));
  }
}
__kernel void layer_norm(long rows, long cols, float eps, __global const float* y, __global const float* gamma,
                         __global const float* beta, __global float* out) {
  for (long r = get_global_id(0); r < rows; r += get_global_size(0)) {
    __global const float* row = y + r * cols;
    float mean = 0, squares = 0;
    for (long c = 0; c < cols; ++c) mean += row[c];
    mean /= cols;
    for (long c = 0; c < cols; ++c) squares += (row[c] - mean) * (row[c] - mean);
    const float rstd = rsqrt(squares / cols + eps);
    for (long c = 0; c < cols; ++c) out[r * cols + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
  }
}
)CL";

}  // namespace

extern "C" {

// Microseconds per forward of layer_norm(gelu(x @ weight^T + bias)) (x: rows x
// in_features, weight: out_features x in_features, row-major float32): CLBlast SGEMM
// then the two kernels above, + clFinish. `result` (rows x out_features) receives the
// output so the caller can check it is the same computation. < 0 on failure.
double ocl_raw_block_forward_us(int rows, int in_features, int out_features, const float* x, const float* weight,
                                const float* bias, const float* gamma, const float* beta, float* result, int rounds,
                                int calls) {
  Device device;
  if (!open_device(&device)) return -1;
  cl_int error = CL_SUCCESS;
  const char* source = kBlockSource;
  cl_program program = clCreateProgramWithSource(device.context, 1, &source, nullptr, &error);
  if (error != CL_SUCCESS || clBuildProgram(program, 1, &device.id, "", nullptr, nullptr) != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    close_device(&device);
    return -1;
  }
  cl_kernel bias_gelu = clCreateKernel(program, "bias_gelu", &error);
  cl_kernel norm = clCreateKernel(program, "layer_norm", &error);
  auto upload = [&](const float* host, size_t count) {
    return clCreateBuffer(device.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, count * sizeof(float),
                          const_cast<float*>(host), &error);
  };
  const size_t m = rows, k = in_features, n = out_features;
  cl_mem x_mem = upload(x, m * k), w_mem = upload(weight, n * k), b_mem = upload(bias, n);
  cl_mem g_mem = upload(gamma, n), beta_mem = upload(beta, n);
  cl_mem y_mem = clCreateBuffer(device.context, CL_MEM_READ_WRITE, m * n * sizeof(float), nullptr, &error);
  cl_mem out_mem = clCreateBuffer(device.context, CL_MEM_READ_WRITE, m * n * sizeof(float), nullptr, &error);
  const cl_long rows_arg = rows, cols_arg = out_features;
  const cl_float eps = 1e-5f;
  clSetKernelArg(bias_gelu, 0, sizeof(rows_arg), &rows_arg);
  clSetKernelArg(bias_gelu, 1, sizeof(cols_arg), &cols_arg);
  clSetKernelArg(bias_gelu, 2, sizeof(cl_mem), &y_mem);
  clSetKernelArg(bias_gelu, 3, sizeof(cl_mem), &b_mem);
  clSetKernelArg(norm, 0, sizeof(rows_arg), &rows_arg);
  clSetKernelArg(norm, 1, sizeof(cols_arg), &cols_arg);
  clSetKernelArg(norm, 2, sizeof(eps), &eps);
  for (cl_uint a = 0; a < 4; ++a) {
    cl_mem operands[4] = {y_mem, g_mem, beta_mem, out_mem};
    clSetKernelArg(norm, 3 + a, sizeof(cl_mem), &operands[a]);
  }
  bool ok = true;
  auto forward = [&] {
    ok = ok && clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo, clblast::Transpose::kYes, m,
                                    n, k, 1.0f, x_mem, 0, k, w_mem, 0, k, 0.0f, y_mem, 0, n, &device.queue,
                                    nullptr) == clblast::StatusCode::kSuccess;
    const size_t group = 64, elementwise = (m * n + group - 1) / group * group, per_row = (m + group - 1) / group * group;
    ok = ok && clEnqueueNDRangeKernel(device.queue, bias_gelu, 1, nullptr, &elementwise, &group, 0, nullptr, nullptr) ==
                   CL_SUCCESS;
    ok = ok && clEnqueueNDRangeKernel(device.queue, norm, 1, nullptr, &per_row, &group, 0, nullptr, nullptr) ==
                   CL_SUCCESS;
    clFinish(device.queue);
  };
  forward();  // CLBlast and PoCL compile at the first run
  const double took = median_us(rounds, calls, forward);
  ok = ok && clEnqueueReadBuffer(device.queue, out_mem, CL_TRUE, 0, m * n * sizeof(float), result, 0, nullptr,
                                 nullptr) == CL_SUCCESS;
  for (cl_mem buffer : {x_mem, w_mem, b_mem, g_mem, beta_mem, y_mem, out_mem}) clReleaseMemObject(buffer);
  clReleaseKernel(bias_gelu);
  clReleaseKernel(norm);
  clReleaseProgram(program);
  close_device(&device);
  return ok ? took : -1;
}

}  // extern "C"
