"""What the Python suite expects of each vendor's own messages: the parts of an
error that come from the chip's SDK (status codes and names, op-library
function names). Everything else the suite checks is vendor-neutral."""
from __future__ import annotations

import pytest
import torch

import torch_fl


class NotOnThisChip(str):
    """A fact a chip cannot show: the test skips with this reason."""


# An argument the SDK rejects at once: the call that passes it, and the error.
INVALID_ARGUMENT_CALLS = {
    "mlu": lambda device: torch.empty(4, device=device).normal_(0.0, -1.0),
    "npu": lambda device: torch.empty(4, device=device).normal_(0.0, -1.0),
    # nvidia's spec has no random normal (CPU's own check would answer): dropout's
    # probability outside [0, 1] reaches nvopsDropout, which refuses it.
    "nvidia": lambda device: torch.ops.aten.native_dropout(torch.ones(4, device=device), 1.5, True),
    "opencl": lambda device: torch.empty(4, device=device).normal_(0.0, -1.0),
}
INVALID_ARGUMENT = {
    "mlu": r"normal_ failed with status 632001: MLU_RET_ERR_INVALID_VALUE",
    "npu": r"normal_ failed with status 107000: NPU_ERROR_INVALID_PARAM",
    "nvidia": r"native_dropout failed with status 1: NVOPS_ERROR_INVALID_ARGUMENT.*p must lie in \[0, 1\]",
    "opencl": r"normal_ failed with status 1: OCLOPS_ERROR_INVALID_ARGUMENT.*std must be >= 0",
}

# A failure inside queued device work (nll_loss with an out-of-range class).
EXECUTION_FAILURE = {
    "mlu": r"MLU_RET_ERR_EXECUTION.*mluOpNllLoss.*out of bounds",
    "npu": r"NPU_ERROR_EXECUTION.*npunnNLLLoss.*out of bounds",
    "nvidia": NotOnThisChip("a bad index traps in the kernel, as CUDA's device-side asserts do, and the CUDA "
                            "context cannot be used again: the rest of the suite would fail"),
    "opencl": r"TORCH_FL_OCL_KERNEL_FAULT.*oclopsNllLoss.*out of bounds",  # the stream's fault record
}


def expected(table: dict[str, str]) -> str:
    vendor = torch_fl.vendor()
    assert vendor in table, f"tests/python/vendor_facts.py has no entry for vendor '{vendor}'"
    if isinstance(table[vendor], NotOnThisChip):
        pytest.skip(f"{vendor}: {table[vendor]}")
    return rf"\[{vendor}\].*{table[vendor]}"

# The SDK calls a convolution's forward makes, as the profiler names them (the NPU's
# two phases: the workspace query, then the call on the stream).
CONVOLUTION_CALLS = {
    "mlu": ["mluOpConvolution"],
    "npu": ["npunnConvolutionGetWorkspaceSize", "npunnConvolution"],
    "nvidia": [],  # no convolution in nvidia's spec: its CPU fallback's range is what the profile shows
    "opencl": ["oclopsConvolution"],
}


# Training steps (training_steps.STEPS) that reach a kernel the vendor's spec does
# not declare native: test_training runs them with the CPU fallback there, and in
# strict mode (a single fallback fails) everywhere else. nvidia's is the small spec
# of a real GPU: a transformer's and an MLP's training, not convolutions.
# test_real_vendor_coverage checks nvidia's entry on the simulated chips.
STEPS_WITH_FALLBACKS = {
    "mlu": set(),
    "npu": set(),
    "nvidia": {"resnet_sgd"},
    # opencl: log_softmax is not native in bfloat16 (ATen rounds an intermediate to it; see specs/opencl/reductions.yaml).
    "opencl": {"gpt_adamw_bf16_autocast"},
}


def facts(table: dict):
    vendor = torch_fl.vendor()
    assert vendor in table, f"tests/python/vendor_facts.py has no entry for vendor '{vendor}'"
    return table[vendor]


# Kernels that Hugging Face transformers' attention-mask construction reaches and the
# vendor's spec lacks (test_hf_transformers): the CPU fallback is allowed for these
# (op, c10 dtype) pairs alone, and every other kernel of the models' training runs
# natively. "padded": a batch with an attention_mask that masks padding (masking_utils
# indexes the bool padding mask, `padding_mask[batch_idx, kv_idx]`, checks it with
# `.all()`, and with `.sum() == numel()` before sdpa); "unpadded": full-length
# sequences without an attention_mask. Where a case's set is empty the test runs
# strictly. Measured with transformers 5.25.0.
HF_TRANSFORMERS_FALLBACKS = {
    "mlu": {
        "padded": {("aten::index.Tensor_out", "Bool"), ("aten::all.all_out", "Bool")},
        "unpadded": set(),
    },
    "npu": {
        # The NPU compares int64 nowhere: the mask functions' `kv_idx <= q_idx`, `q_idx >= 0`.
        "padded": {("aten::index.Tensor_out", "Bool"), ("aten::all.all_out", "Bool"),
                   ("aten::le.Tensor_out", "Long"), ("aten::ge.Scalar_out", "Long")},
        "unpadded": {("aten::le.Tensor_out", "Long")},  # the causal mask of eager attention
    },
    "opencl": {
        # sum is not native in bool: masking_utils.fast_all's `.sum() == numel()` (sdpa).
        "padded": {("aten::index.Tensor_out", "Bool"), ("aten::sum", "Bool")},
        "unpadded": set(),
    },
    # Not yet run on a GPU: every fallback is allowed there, and reported. From mlu's
    # record of these models against specs/nvidia.yaml, nvidia's spec lacks pow
    # (GPT-2's gelu_new), rsqrt, sin, cos (LLaMA's RMSNorm and RoPE), gather (BERT),
    # int64 add and comparisons, bitwise_and and bool sums besides the masks' ops above.
    "nvidia": None,
}
