"""The backend's fallback records in the support matrix's terms: overloads without
the `aten::` namespace, dtypes by the matrix's names. Shared by the conformance
worker and the device-generic tests (tests/python/test_device_generic.py)."""
from __future__ import annotations

import torch_fl

# Fallbacks the spec declares for some calls of a native overload (a guard that
# does not hold, a layout the chip cannot take): not failures, but those samples
# do not count as native runs either.
DECLARED_REASONS = ("guard not met", "layout not supported")

_C10_NAMES = {"Float": "float32", "Double": "float64", "Half": "float16", "BFloat16": "bfloat16", "Int": "int32",
              "Long": "int64", "Bool": "bool", "Char": "int8", "Byte": "uint8", "Short": "int16",
              "ComplexFloat": "complex64"}


def dtype_name(c10_name: str) -> str:
    return _C10_NAMES.get(c10_name, c10_name)


def fallbacks(declared: bool) -> list[tuple[str, str]]:
    """(overload, dtype) of the calls since the last reset that fell back for a
    reason the spec declares (declared=True) or for any other reason."""
    records = torch_fl.fallback.records()
    return sorted({(r["op"].split("::", 1)[1], dtype_name(r["dtype"])) for r in records
                   if (r["reason"] in DECLARED_REASONS) == declared})
