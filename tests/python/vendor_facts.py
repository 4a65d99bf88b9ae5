"""What the Python suite expects of each vendor's own messages: the parts of an
error that come from the chip's SDK (status codes and names, op-library
function names). Everything else the suite checks is vendor-neutral."""
from __future__ import annotations

import torch_fl

# An argument the SDK rejects at once (normal_ with std < 0).
INVALID_ARGUMENT = {
    "mlu": r"normal_ failed with status 632001: MLU_RET_ERR_INVALID_VALUE",
    "npu": r"normal_ failed with status 107000: NPU_ERROR_INVALID_PARAM",
}

# A failure inside queued device work (nll_loss with an out-of-range class).
EXECUTION_FAILURE = {
    "mlu": r"MLU_RET_ERR_EXECUTION.*mluOpNllLoss.*out of bounds",
    "npu": r"NPU_ERROR_EXECUTION.*npunnNLLLoss.*out of bounds",
}


def expected(table: dict[str, str]) -> str:
    vendor = torch_fl.vendor()
    assert vendor in table, f"tests/python/vendor_facts.py has no entry for vendor '{vendor}'"
    return rf"\[{vendor}\].*{table[vendor]}"

# The SDK calls a convolution's forward makes, as the profiler names them (the NPU's
# two phases: the workspace query, then the call on the stream).
CONVOLUTION_CALLS = {
    "mlu": ["mluOpConvolution"],
    "npu": ["npunnConvolutionGetWorkspaceSize", "npunnConvolution"],
}


def facts(table: dict):
    vendor = torch_fl.vendor()
    assert vendor in table, f"tests/python/vendor_facts.py has no entry for vendor '{vendor}'"
    return table[vendor]
