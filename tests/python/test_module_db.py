"""PyTorch's module_db on the device: every ModuleInfo's own sample inputs,
forward and backward, against CPU (module_coverage.py), through PyTorch's
@modules + instantiate_device_type_tests machinery. float32 must match CPU;
float16/bfloat16, where the ModuleInfo declares them, must be no less
accurate than CPU against a float32 computation.

The summary test measures the share of modules that run with no CPU fallback
at all, writes the per-module report to build/reports/module_db_<vendor>.json,
and holds the share to the floor below, so that coverage cannot silently drop."""
from __future__ import annotations

import json
import os
import warnings

import pytest
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_modules import module_db, modules
from torch.testing._internal.common_utils import TestCase

import torch_fl
from module_coverage import NoCpuReference, run_module_info

# Modules (of 114 in torch 2.13's module_db) that run forward and backward in
# float32 with zero CPU fallbacks: the measured figure, as a floor.
ZERO_FALLBACK_FLOOR = {"mlu": 112, "npu": 95}

REPORT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "build", "reports")


class TestModuleDb(TestCase):
    @modules(module_db, allowed_dtypes=(torch.float32, torch.float16, torch.bfloat16))
    def test_forward_and_backward_match_cpu(self, device, dtype, module_info, training):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # fallback warnings: the summary reports them
            try:
                result = run_module_info(module_info, device, dtype, training)
            except NoCpuReference as reason:
                self.skipTest(str(reason))
        self.assertGreater(result.samples, 0, "the ModuleInfo gave no sample with a forward input")


instantiate_device_type_tests(TestModuleDb, globals(), only_for=("privateuse1",))


def test_zero_fallback_share_of_module_db(device):
    rows = {}
    for module_info in module_db:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run_module_info(module_info, device, torch.float32, training=True)
        rows[module_info.name] = sorted(result.fallback_ops)
    zero = sum(1 for ops in rows.values() if not ops)
    os.makedirs(REPORT_DIR, exist_ok=True)
    with open(os.path.join(REPORT_DIR, f"module_db_{torch_fl.vendor()}.json"), "w") as f:
        json.dump({"torch": torch.__version__, "modules": len(rows), "zero_fallback": zero,
                   "fallback_ops": rows}, f, indent=1)
    floor = ZERO_FALLBACK_FLOOR.get(torch_fl.vendor())
    if floor is None:
        pytest.skip(f"no module_db floor recorded for vendor {torch_fl.vendor()}")
    assert zero >= floor, (f"{zero} of {len(rows)} modules run with zero CPU fallbacks, fewer than the "
                           f"{floor} measured before: {[name for name, ops in rows.items() if ops]}")
