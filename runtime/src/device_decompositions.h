// Ops that PyTorch sends only to accelerators: their kernels exist for CUDA
// (and XPU), not for CPU, so the CPU fallback cannot run them. nn.LSTM and
// nn.GRU reach the fused RNN cells on every non-CPU device, for example. The
// runtime runs each one as a decomposition into ATen ops on the device itself,
// which then take the spec's native kernels or the CPU fallback one by one.
// Also here: ops that are another ATen op under another name (batch norm as
// compiled graphs call it is native_batch_norm), so that they reach its kernel.
//
// A vendor with a fused kernel declares the op in its spec: the generated
// kernel is registered for PrivateUse1 and this path is never reached (except
// as the fallback of that kernel, for a dtype or guard it does not take).
#pragma once

#include <ATen/core/stack.h>

#include <string>
#include <vector>

namespace torch_fl {

using DeviceDecomposition = void (*)(torch::jit::Stack* stack);

// The decomposition of `op` ("aten::name" or "aten::name.overload"), or nullptr.
DeviceDecomposition find_device_decomposition(const std::string& op);

// The accelerator-only ops that have one, for the support matrix and the audit test.
std::vector<std::string> device_decomposition_names();

// The ops that are another ATen op under another name (they have CPU kernels).
std::vector<std::string> renamed_op_names();

}  // namespace torch_fl
