"""PyTorch's own device-generic test machinery on our device: OpInfo-parametrized
tests instantiated by instantiate_device_type_tests for PrivateUse1.

The OpInfos and dtypes come from the vendor's support matrix (which overloads
are native, at which dtypes): a dtype the spec does not declare native is
skipped with that reason, never tested as native. A result the CPU fallback
computed would match CPU too, so each test also fails when an overload × dtype
the spec declares native fell back (other than for a declared guard or layout).
"""
from __future__ import annotations

import os
import sys

import torch
from torch.testing._internal.common_device_type import OpDTypes, instantiate_device_type_tests, ops
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.common_utils import TestCase
from torch.utils._pytree import tree_flatten, tree_map

import torch_fl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance_tool"))
from fallback_records import fallbacks  # noqa: E402
from selection import comparable, native_overloads, select_opinfos  # noqa: E402
import reference_accuracy  # noqa: E402

SELECTED = select_opinfos(native_overloads(torch_fl.support_matrix()))
NATIVE_OPINFOS = [op for op in op_db if f"{op.name}:{op.variant_test_name}" in SELECTED]
MAX_SAMPLES = 6
DECLARED_NATIVE = {(row["name"], dtype) for row in torch_fl.support_matrix()["ops"]
                   for dtype, status in row["dtypes"].items() if status == "native"}


def undeclared_fallbacks() -> list[str]:
    """Calls since the last reset that fell back, for no reason the spec declares,
    although the spec declares them native."""
    return [f"{overload} [{dtype}]" for overload, dtype in fallbacks(declared=False)
            if (overload, dtype) in DECLARED_NATIVE]


def _to(device):
    return lambda v: v.detach().to(device) if isinstance(v, torch.Tensor) else v


class TestNativeOpInfos(TestCase):
    @ops(NATIVE_OPINFOS, dtypes=OpDTypes.supported)
    def test_forward_matches_cpu(self, device, dtype, op):
        native_dtypes = SELECTED[f"{op.name}:{op.variant_test_name}"][0]
        dtype_name = str(dtype).replace("torch.", "")
        if dtype_name not in native_dtypes:
            self.skipTest(f"{dtype_name} is not declared native for {op.name} in the {torch_fl.vendor()} spec")
        torch_fl.reset_fallback_stats()
        for index, sample in enumerate(op.sample_inputs("cpu", dtype)):
            if index >= MAX_SAMPLES:
                break
            if not comparable(sample):
                continue
            cpu_args = (sample.input, sample.args, dict(sample.kwargs))
            dev_args = tree_map(_to(device), cpu_args)
            if "device" in dev_args[2]:  # factory functions: create on the device under test
                dev_args[2]["device"] = device
            expected = op(cpu_args[0], *cpu_args[1], **cpu_args[2])
            actual = op(dev_args[0], *dev_args[1], **dev_args[2])
            for a, e in zip(tree_flatten(actual)[0], tree_flatten(expected)[0]):
                if isinstance(e, torch.Tensor):
                    self.assertEqual(a.device.type, torch_fl.device().type)
                    self.assertEqual(a.dtype, e.dtype)
            try:
                for a, e in zip(tree_flatten(actual)[0], tree_flatten(expected)[0]):
                    if isinstance(e, torch.Tensor):
                        self.assertEqual(a.cpu(), e, exact_dtype=True)
            except AssertionError:
                # A kernel whose arithmetic is not CPU's (a fused attention accumulating in
                # float32) is judged as conformance judges it: against float64.
                wide = reference_accuracy.in_float64(cpu_args)
                if wide is None:
                    raise
                reference_accuracy.assert_within_reference(actual, expected, op(wide[0], *wide[1], **wide[2]),
                                                           dtype)
        self.assertEqual(undeclared_fallbacks(), [], "declared native, but ran on CPU")


instantiate_device_type_tests(TestNativeOpInfos, globals(), only_for=("privateuse1",))
