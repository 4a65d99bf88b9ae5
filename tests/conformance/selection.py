"""Which OpInfos verify which native overloads: derived from the spec's
support matrix only (no hand-kept lists). Shared by the conformance run and
the device-generic test suite."""
from __future__ import annotations

# Overloads whose results are random: checked for reproducibility by the
# Python suite (tests/python/test_native_ops.py), not comparable with CPU.
RANDOM_OVERLOADS = {"normal_", "uniform_"}
SUFFIXES = ("_backward_data", "_backward", "_forward")


def base_name(overload: str) -> str:
    name = overload.split(".")[0].strip("_")
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def select_opinfos(native: dict[str, set[str]]) -> dict[str, tuple[set[str], set[str]]]:
    """OpInfo "name:variant" → (dtypes to run, native overloads of its op to call directly),
    for every OpInfo named like a native overload's op."""
    from torch.testing._internal.common_methods_invocations import op_db

    bases: dict[str, set[str]] = {}
    for overload, dtypes in native.items():
        if overload.split(".")[0] in RANDOM_OVERLOADS:
            continue
        bases.setdefault(base_name(overload), set()).update(dtypes)
    selected: dict[str, tuple[set[str], set[str]]] = {}
    for op in op_db:
        for candidate in (op.name, op.name.removeprefix("nn.functional."), op.aten_name):
            candidate = candidate.strip("_")
            if candidate in bases:
                dtypes, overloads = selected.setdefault(f"{op.name}:{op.variant_test_name}", (set(), set()))
                dtypes.update(bases[candidate])
                overloads.update(o for o in native if o.split(".")[0].strip("_") == candidate
                                 and o.split(".")[0] not in RANDOM_OVERLOADS)
                break
    return selected


def native_overloads(matrix: dict) -> dict[str, set[str]]:
    """overload → dtypes declared native, from a support_matrix.json document."""
    native = {row["name"]: {d for d, s in row["dtypes"].items() if s == "native"} for row in matrix["ops"]}
    return {name: dtypes for name, dtypes in native.items() if dtypes}
