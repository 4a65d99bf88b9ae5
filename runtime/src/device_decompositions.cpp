// The fused RNN cells as ATen ops on the device. The formulas follow the
// gate layout of PyTorch's CUDA kernels, which the autograd formulas in
// derivatives.yaml rely on: the LSTM gates are (input, forget, cell, output),
// the GRU gates (reset, update, new), and each op's `workspace` output holds
// what its backward reads.
#include "device_decompositions.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <map>

namespace torch_fl {
namespace {

at::Tensor optional_tensor(const c10::IValue& value) {
  return value.isNone() ? at::Tensor() : value.toTensor();
}

// A workspace's N equal parts along the gate dimension, to bind by name.
template <size_t N>
std::array<at::Tensor, N> parts_of(const at::Tensor& workspace) {
  const std::vector<at::Tensor> chunks = workspace.chunk(N, 1);
  std::array<at::Tensor, N> parts;
  std::copy(chunks.begin(), chunks.end(), parts.begin());
  return parts;
}

// gates = input_gates + hidden_gates (+ input_bias + hidden_bias): (batch, 4 * hidden)
// workspace = the activated gates, in the same layout.
void fused_lstm_cell(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 5);
  const at::Tensor input_gates = args[0].toTensor();
  const at::Tensor hidden_gates = args[1].toTensor();
  const at::Tensor cx = args[2].toTensor();
  const at::Tensor input_bias = optional_tensor(args[3]);
  const at::Tensor hidden_bias = optional_tensor(args[4]);

  at::Tensor gates = input_gates + hidden_gates;
  if (input_bias.defined()) gates = gates + input_bias + hidden_bias;
  const auto chunks = gates.chunk(4, 1);
  const at::Tensor in_gate = chunks[0].sigmoid();
  const at::Tensor forget_gate = chunks[1].sigmoid();
  const at::Tensor cell_gate = chunks[2].tanh();
  const at::Tensor out_gate = chunks[3].sigmoid();
  const at::Tensor cy = forget_gate * cx + in_gate * cell_gate;
  const at::Tensor hy = out_gate * cy.tanh();
  const at::Tensor workspace = at::cat({in_gate, forget_gate, cell_gate, out_gate}, 1);
  torch::jit::push(*stack, hy, cy, workspace);
}

// (grad_hy?, grad_cy?, cx, cy, workspace, has_bias) -> (grad_gates, grad_cx, grad_bias?)
// An undefined grad_hy or grad_cy is a zero gradient.
void fused_lstm_cell_backward(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 6);
  const at::Tensor grad_hy = optional_tensor(args[0]);
  const at::Tensor grad_cy = optional_tensor(args[1]);
  const at::Tensor cx = args[2].toTensor();
  const at::Tensor cy = args[3].toTensor();
  const at::Tensor workspace = args[4].toTensor();
  const bool has_bias = args[5].toBool();

  const auto [in_gate, forget_gate, cell_gate, out_gate] = parts_of<4>(workspace);
  const at::Tensor tanh_cy = cy.tanh();

  // The gradient reaching cy: through hy = o * tanh(cy), plus grad_cy itself.
  at::Tensor grad_c = at::zeros_like(cx);
  at::Tensor grad_out_gate = at::zeros_like(cx);
  if (grad_hy.defined()) {
    grad_c = grad_hy * out_gate * (1 - tanh_cy * tanh_cy);
    grad_out_gate = grad_hy * tanh_cy;
  }
  if (grad_cy.defined()) grad_c = grad_c + grad_cy;

  // Back through the activations: sigmoid' = s (1 - s), tanh' = 1 - t^2.
  const at::Tensor grad_in = grad_c * cell_gate * in_gate * (1 - in_gate);
  const at::Tensor grad_forget = grad_c * cx * forget_gate * (1 - forget_gate);
  const at::Tensor grad_cell = grad_c * in_gate * (1 - cell_gate * cell_gate);
  const at::Tensor grad_out = grad_out_gate * out_gate * (1 - out_gate);
  const at::Tensor grad_gates = at::cat({grad_in, grad_forget, grad_cell, grad_out}, 1);
  const at::Tensor grad_cx = grad_c * forget_gate;
  const at::Tensor grad_bias = has_bias ? grad_gates.sum(0) : at::Tensor();
  torch::jit::push(*stack, grad_gates, grad_cx, grad_bias);
}

// input_gates and hidden_gates: (batch, 3 * hidden) as (reset, update, new).
// The new gate adds the reset-scaled hidden part: n = tanh(i_n + r * h_n).
// workspace = (r, z, n, h_n with its bias, hx): (batch, 5 * hidden).
void fused_gru_cell(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 5);
  at::Tensor input_gates = args[0].toTensor();
  at::Tensor hidden_gates = args[1].toTensor();
  const at::Tensor hx = args[2].toTensor();
  const at::Tensor input_bias = optional_tensor(args[3]);
  const at::Tensor hidden_bias = optional_tensor(args[4]);

  if (input_bias.defined()) {
    input_gates = input_gates + input_bias;
    hidden_gates = hidden_gates + hidden_bias;
  }
  const auto in = input_gates.chunk(3, 1);
  const auto hid = hidden_gates.chunk(3, 1);
  const at::Tensor reset_gate = (in[0] + hid[0]).sigmoid();
  const at::Tensor update_gate = (in[1] + hid[1]).sigmoid();
  const at::Tensor new_gate = (in[2] + reset_gate * hid[2]).tanh();
  const at::Tensor hy = new_gate + update_gate * (hx - new_gate);
  const at::Tensor workspace = at::cat({reset_gate, update_gate, new_gate, hid[2], hx}, 1);
  torch::jit::push(*stack, hy, workspace);
}

// (grad_hy, workspace, has_bias) ->
//   (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias?, grad_hidden_bias?)
void fused_gru_cell_backward(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 3);
  const at::Tensor grad_hy = args[0].toTensor();
  const at::Tensor workspace = args[1].toTensor();
  const bool has_bias = args[2].toBool();

  const auto [reset_gate, update_gate, new_gate, hidden_new, hx] = parts_of<5>(workspace);

  // hy = n + z (hx - n) = (1 - z) n + z hx
  const at::Tensor grad_hx = grad_hy * update_gate;
  const at::Tensor grad_update = grad_hy * (hx - new_gate) * update_gate * (1 - update_gate);
  const at::Tensor grad_new_pre = grad_hy * (1 - update_gate) * (1 - new_gate * new_gate);
  const at::Tensor grad_hidden_new = grad_new_pre * reset_gate;
  const at::Tensor grad_reset = grad_new_pre * hidden_new * reset_gate * (1 - reset_gate);

  const at::Tensor grad_input_gates = at::cat({grad_reset, grad_update, grad_new_pre}, 1);
  const at::Tensor grad_hidden_gates = at::cat({grad_reset, grad_update, grad_hidden_new}, 1);
  at::Tensor grad_input_bias;
  at::Tensor grad_hidden_bias;
  if (has_bias) {
    grad_input_bias = grad_input_gates.sum(0);
    grad_hidden_bias = grad_hidden_gates.sum(0);
  }
  torch::jit::push(*stack, grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias);
}

// Batch norm as compiled graphs call it (AOTAutograd's functionalized batch norm
// runs these): native_batch_norm under other names, with the same arguments and
// results, updating the running statistics in place when training.
// (input, weight?, bias?, running_mean, running_var, training, momentum, eps)
void batch_norm_legit(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 8);
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      args[0].toTensor(), optional_tensor(args[1]), optional_tensor(args[2]), args[3].toTensor(),
      args[4].toTensor(), args[5].toBool(), args[6].toDouble(), args[7].toDouble());
  torch::jit::push(*stack, out, save_mean, save_invstd);
}

// .no_stats: (input, weight?, bias?, training, momentum, eps), no running statistics
void batch_norm_legit_no_stats(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 6);
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      args[0].toTensor(), optional_tensor(args[1]), optional_tensor(args[2]), at::Tensor(), at::Tensor(),
      args[3].toBool(), args[4].toDouble(), args[5].toDouble());
  torch::jit::push(*stack, out, save_mean, save_invstd);
}

// _no_training: (input, weight?, bias?, running_mean, running_var, momentum, eps), inference
void batch_norm_legit_no_training(torch::jit::Stack* stack) {
  auto args = torch::jit::pop(*stack, 7);
  auto [out, save_mean, save_invstd] = at::native_batch_norm(
      args[0].toTensor(), optional_tensor(args[1]), optional_tensor(args[2]), args[3].toTensor(),
      args[4].toTensor(), false, args[5].toDouble(), args[6].toDouble());
  torch::jit::push(*stack, out, save_mean, save_invstd);
}

const std::map<std::string, DeviceDecomposition>& accelerator_only_ops() {
  static const std::map<std::string, DeviceDecomposition> table = {
      {"aten::_thnn_fused_lstm_cell", &fused_lstm_cell},
      {"aten::_thnn_fused_lstm_cell_backward_impl", &fused_lstm_cell_backward},
      {"aten::_thnn_fused_gru_cell", &fused_gru_cell},
      {"aten::_thnn_fused_gru_cell_backward", &fused_gru_cell_backward},
  };
  return table;
}

const std::map<std::string, DeviceDecomposition>& renamed_ops() {
  static const std::map<std::string, DeviceDecomposition> table = {
      {"aten::_native_batch_norm_legit", &batch_norm_legit},
      {"aten::_native_batch_norm_legit.no_stats", &batch_norm_legit_no_stats},
      {"aten::_native_batch_norm_legit_no_training", &batch_norm_legit_no_training},
  };
  return table;
}

std::vector<std::string> names_of(const std::map<std::string, DeviceDecomposition>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.push_back(entry.first);
  return names;
}

}  // namespace

DeviceDecomposition find_device_decomposition(const std::string& op) {
  for (const auto* table : {&accelerator_only_ops(), &renamed_ops()}) {
    const auto it = table->find(op);
    if (it != table->end()) return it->second;
  }
  return nullptr;
}

std::vector<std::string> device_decomposition_names() { return names_of(accelerator_only_ops()); }

std::vector<std::string> renamed_op_names() { return names_of(renamed_ops()); }

}  // namespace torch_fl
