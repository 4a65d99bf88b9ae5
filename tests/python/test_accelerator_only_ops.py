"""Ops that PyTorch sends only to accelerators (CUDA/XPU kernels, no CPU
kernel), so the CPU fallback cannot run them. The audit below finds every such
op in the installed torch and says how each one is handled on the device; the
model tests train the modules that reach them, against CPU."""
from __future__ import annotations

import os

import pytest
import torch
import torchgen
import yaml

import torch_fl

# Run on the device as ATen ops (runtime/src/device_decompositions.cpp).
DECOMPOSED = {
    "_thnn_fused_lstm_cell": "nn.LSTM, nn.LSTMCell forward",
    "_thnn_fused_lstm_cell_backward_impl": "nn.LSTM, nn.LSTMCell backward",
    "_thnn_fused_gru_cell": "nn.GRU, nn.GRUCell forward",
    "_thnn_fused_gru_cell_backward": "nn.GRU, nn.GRUCell backward",
}

# Found by the audit, and not reached from a PrivateUse1 tensor by PyTorch's
# own code: why, for each group. A clear NotImplementedError names the op if
# user code calls one directly (test_an_op_without_any_cpu_kernel_...).
NOT_REACHED = {
    "chosen only for CUDA tensors (dropout, convolution and attention pick them by `is_cuda()`)": [
        "_fused_dropout", "_masked_scale", "_conv_depthwise2d", "_conv_depthwise2d.out", "conv_depthwise3d",
        "_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention.quantized",
        "_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_efficient_attention_backward", "_flash_attention_forward",
        "_flash_attention_forward_no_dropout_inplace", "_flash_attention_forward.quantized",
        "_flash_attention_backward", "_efficient_attention_forward", "_efficient_attention_backward",
        "_triton_scaled_dot_attention", "_fill_mem_eff_dropout_mask_", "_triton_multi_head_attention",
        "_fused_rms_norm_backward",
    ],
    "an out_dtype matmul, which CPU refuses too (the same NotImplementedError as on CPU)": [
        "mm.dtype", "mm.dtype_out", "bmm.dtype", "bmm.dtype_out", "baddbmm.dtype", "baddbmm.dtype_out",
        "addmm.dtype", "addmm.dtype_out",
    ],
    "SyncBatchNorm's statistics: reached only in a distributed process group (issue #12)": [
        "batch_norm_stats", "batch_norm_elemt", "batch_norm_elemt.out", "batch_norm_gather_stats",
        "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce", "batch_norm_backward_elemt",
    ],
    "CUDA-only quantisation, sparsity and RNG layouts (int4 packing, 2:4 sparsity, scaled fp8, philox)": [
        "_convert_weight_to_int4pack", "_weight_int4pack_mm", "_sparse_semi_structured_tile",
        "_sparse_semi_structured_apply", "_sparse_semi_structured_apply_dense", "_sparse_semi_structured_linear",
        "_sparse_semi_structured_mm", "_sparse_semi_structured_addmm", "_to_sparse_semi_structured",
        "_mixed_dtypes_linear", "_scaled_grouped_mm", "_scaled_grouped_mm_v2", "_scaled_grouped_mm_v2.out",
        "_scaled_mm_v2", "_scaled_mm_v2.out", "_scaled_addmm.out",
        "_philox_key_split",
        "_philox_key_fold_in", "_philox_normal_", "_philox_uniform_",
    ],
    "has a PrivateUse1 kernel in the runtime (runtime/aten_kernels.yaml)": ["record_stream"],
}

# Overloads that are accelerator-only in some supported torch releases only (.ci/torch_versions):
# (first release, first release no longer) where they are; elsewhere the audit must not expect
# them (read off each release's native_functions.yaml and dispatcher: 2.11 has the
# _scaled_mm_v2 pair CUDA-only and lacks the philox ops and the in-place flash forward; 2.14
# added _scaled_grouped_mm_v2.out and gave the philox ops and _scaled_grouped_mm_v2 CPU
# kernels, which the CPU fallback then runs; 2.15 added the fp8 _scaled_addmm, whose
# functional and in-place forms delegate to a CUDA-only .out).
ACCELERATOR_ONLY_IN = {
    "_scaled_mm_v2": ((0, 0), (2, 13)), "_scaled_mm_v2.out": ((0, 0), (2, 13)),
    "_flash_attention_forward_no_dropout_inplace": ((2, 13), (99, 0)),
    **{name: ((2, 13), (2, 14)) for name in ("_philox_key_split", "_philox_key_fold_in", "_philox_normal_",
                                              "_philox_uniform_")},
    "_scaled_grouped_mm_v2": ((0, 0), (2, 14)),
    "_scaled_grouped_mm_v2.out": ((2, 14), (99, 0)),
    "_scaled_addmm.out": ((2, 15), (99, 0)),
}


def _this_torch() -> tuple[int, int]:
    major, minor = torch.__version__.split(".")[:2]
    return int(major), int(minor)


# Names that belong to one vendor's libraries, not to "accelerators".
_VENDOR_LIBRARY_WORDS = ("cudnn", "miopen", "cufft", "cslt", "cutlass", "nccl")


def accelerator_only_overloads() -> set[str]:
    """ATen overloads with a CUDA kernel and no kernel the CPU key can reach."""
    path = os.path.join(os.path.dirname(torchgen.__file__), "packaged/ATen/native/native_functions.yaml")
    with open(path) as f:
        entries = yaml.safe_load(f)
    found = set()
    for entry in entries:
        keys = {key.strip() for group in entry.get("dispatch", {}) for key in group.split(",")}
        name = entry["func"].split("(")[0]
        if "CUDA" not in keys or any(word in name for word in _VENDOR_LIBRARY_WORDS):
            continue
        if not torch._C._dispatch_has_computed_kernel_for_dispatch_key(f"aten::{name}", "CPU"):
            found.add(name)
    return found


def test_every_accelerator_only_op_of_this_torch_has_a_known_path():
    classified = set(DECOMPOSED) | {name for names in NOT_REACHED.values() for name in names}
    found = accelerator_only_overloads()
    assert found - classified == set(), (
        f"torch {torch.__version__} has accelerator-only ops this audit does not know: decompose them in "
        "runtime/src/device_decompositions.cpp or say why they are not reached")
    # An entry for an op this torch no longer has would hide a rename.
    expected_here = {name for name in classified
                     if ACCELERATOR_ONLY_IN.get(name, ((0, 0), (99, 0)))[0] <= _this_torch()
                     < ACCELERATOR_ONLY_IN.get(name, ((0, 0), (99, 0)))[1]}
    assert expected_here - found == set(), "the audit lists ops this torch does not have (or now has a CPU kernel)"


def _train_step(module: torch.nn.Module, inputs: tuple, device) -> tuple[list, list]:
    """Outputs and parameter gradients after one forward and backward."""
    module = module.to(device)
    module.zero_grad()
    outputs = module(*_to(inputs, device))
    flat = [t for t in (outputs if isinstance(outputs, tuple) else (outputs,)) for t in
            (t if isinstance(t, tuple) else (t,))]
    # Unequal weights, so that a gradient routed to the wrong gate shows.
    loss = sum((t * torch.linspace(0.5, 1.5, t.numel()).view_as(t).to(t.device)).sum() for t in flat)
    loss.backward()
    return [t.detach().cpu() for t in flat], [p.grad.cpu() for p in module.parameters()]


RECURRENT_MODULES = {
    "LSTM": lambda: (torch.nn.LSTM(5, 4), (torch.randn(6, 3, 5),)),
    "LSTM-2-layer-bidirectional-batch-first": lambda: (
        torch.nn.LSTM(5, 4, num_layers=2, bidirectional=True, batch_first=True), (torch.randn(3, 6, 5),)),
    "LSTM-no-bias-with-state": lambda: (
        torch.nn.LSTM(5, 4, bias=False), (torch.randn(6, 3, 5), (torch.randn(1, 3, 4), torch.randn(1, 3, 4)))),
    "GRU": lambda: (torch.nn.GRU(5, 4), (torch.randn(6, 3, 5),)),
    "GRU-2-layer-bidirectional": lambda: (torch.nn.GRU(5, 4, num_layers=2, bidirectional=True), (torch.randn(6, 3, 5),)),
    "GRU-no-bias-with-state": lambda: (torch.nn.GRU(5, 4, bias=False), (torch.randn(6, 3, 5), torch.randn(1, 3, 4))),
    "LSTMCell": lambda: (torch.nn.LSTMCell(5, 4), (torch.randn(3, 5), (torch.randn(3, 4), torch.randn(3, 4)))),
    "GRUCell": lambda: (torch.nn.GRUCell(5, 4), (torch.randn(3, 5), torch.randn(3, 4))),
    "GRUCell-no-bias": lambda: (torch.nn.GRUCell(5, 4, bias=False), (torch.randn(3, 5),)),
}


@pytest.mark.parametrize("name", sorted(RECURRENT_MODULES))
def test_recurrent_modules_train_on_the_device_as_on_cpu(name, device):
    torch.manual_seed(0)
    module, inputs = RECURRENT_MODULES[name]()
    device_module = type(module)(**_constructor_args(module))
    device_module.load_state_dict(module.state_dict())
    cpu_out, cpu_grads = _train_step(module, inputs, "cpu")
    torch_fl.reset_fallback_stats()
    dev_out, dev_grads = _train_step(device_module, inputs, device)
    for got, want in zip(dev_out + dev_grads, cpu_out + cpu_grads):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
    assert not any(op.startswith("aten::_thnn") for op in torch_fl.fallback_stats()), torch_fl.fallback_stats()


def _constructor_args(module: torch.nn.Module) -> dict:
    args = {"input_size": module.input_size, "hidden_size": module.hidden_size, "bias": module.bias}
    for name in ("num_layers", "bidirectional", "batch_first"):
        if hasattr(module, name):
            args[name] = getattr(module, name)
    return args


def _to(inputs, device):
    """nn.LSTM and nn.LSTMCell take their state as one tuple argument."""
    return tuple(tuple(s.to(device) for s in x) if isinstance(x, tuple) else x.to(device) for x in inputs)


def test_lstm_backward_from_the_cell_state_alone(device):
    """grad_hy undefined: only cy reaches the loss, the other branch of the backward."""
    torch.manual_seed(1)
    cell = torch.nn.LSTMCell(3, 2)
    x, h, c = torch.randn(4, 3), torch.randn(4, 2), torch.randn(4, 2)
    _, cy = cell(x, (h, c))
    cy.sum().backward()
    want = [p.grad.clone() for p in cell.parameters()]
    cell.zero_grad()
    cell = cell.to(device)
    _, cy = cell(x.to(device), (h.to(device), c.to(device)))
    cy.sum().backward()
    for got, expected in zip((p.grad.cpu() for p in cell.parameters()), want):
        torch.testing.assert_close(got, expected)


def test_a_gru_runs_under_strict_fallback(device, fallback_mode):
    """The decomposition is not a CPU fallback; on a chip whose spec covers the
    ops it is made of, strict mode lets a GRU train."""
    fallback_mode("strict")
    torch.manual_seed(0)
    gru = torch.nn.GRU(5, 4).to(device)
    try:
        out, _ = gru(torch.randn(6, 3, 5, device=device))
        out.sum().backward()
    except NotImplementedError as error:
        # The only acceptable refusal names an op the decomposition is made of, never a _thnn op.
        assert "_thnn" not in str(error) and "TORCH_FL_FALLBACK=strict" in str(error), error
        pytest.skip(f"this chip's spec lacks an op the GRU decomposition uses: {error}")
    assert gru.weight_ih_l0.grad is not None


def test_an_op_without_any_cpu_kernel_is_refused_naming_op_and_vendor(device):
    x = torch.randn(4, 3, 2, device=device)
    with pytest.raises(NotImplementedError, match=rf"\[{torch_fl.vendor()}\] aten::batch_norm_stats .*no CPU kernel"):
        torch.ops.aten.batch_norm_stats(x, 1e-5)
