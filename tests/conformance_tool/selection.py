"""Which OpInfos verify which native overloads: derived from the spec's
support matrix only (no hand-kept lists). Shared by the conformance run and
the device-generic test suite."""
from __future__ import annotations

# Overloads whose results are random: checked for reproducibility by the
# Python suite (tests/python/test_native_ops.py), not comparable with CPU.
RANDOM_OVERLOADS = {"normal_", "uniform_", "native_dropout",
                    # Its OpInfo draws the pooling regions with each device's own generator;
                    # op_samples.py gives it explicit regions, which makes it deterministic.
                    "fractional_max_pool2d", "fractional_max_pool2d_backward"}
SUFFIXES = ("_backward_data", "_backward", "_forward", "_overrideable", "_with_indices", "_dense")
# PyTorch routes these user-facing ops to the named backend op on out-of-tree
# devices, so their OpInfos exercise it (knowledge of PyTorch, not a skip list).
BACKEND_OP_ALIASES = {"convolution": ("conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d"),
                      "prelu_kernel": ("prelu",), "nll_loss2d": ("nll_loss",),
                      # SDPA takes a fused kernel declared for the device where its choice accepts the call.
                      "scaled_dot_product_fused_attention": ("scaled_dot_product_attention",),
                      **{f"{mode}_pad{rank}d": ("pad",) for mode in ("reflection", "replication") for rank in (1, 2, 3)}}


def base_name(overload: str) -> str:
    """add_.Tensor → add, native_layer_norm_backward → layer_norm, convolution_overrideable → convolution."""
    name = overload.split(".")[0].strip("_").removeprefix("native_")
    changed = True
    while changed:
        changed = False
        for suffix in SUFFIXES:
            if name.endswith(suffix):
                name, changed = name[: -len(suffix)], True
    return name


def _keys(overload: str) -> set[str]:
    """Names under which an OpInfo may exercise this overload."""
    base = base_name(overload)
    return {overload.split(".")[0].strip("_"), base, *BACKEND_OP_ALIASES.get(base, ())}


def _candidates(op) -> set[str]:
    names = {op.name, op.name.removeprefix("nn.functional."), op.aten_name, op.aten_backward_name or ""}
    return {n.strip("_") for n in names if n}


def _matches(native: dict[str, set[str]]):
    """(OpInfo, the testable native overloads its samples are expected to reach)."""
    from torch.testing._internal.common_methods_invocations import op_db

    testable = {o: d for o, d in native.items() if o.split(".")[0] not in RANDOM_OVERLOADS}
    all_candidates = set().union(*(_candidates(op) for op in op_db))
    # An overload with an OpInfo of its own exact name is tested by that one only
    # (e.g. native_dropout_backward, not the random nn.functional.dropout).
    exact = {o for o in testable if o.split(".")[0].strip("_") in all_candidates}
    for op in op_db:
        candidates = _candidates(op)
        matching = [o for o in testable
                    if (o.split(".")[0].strip("_") in candidates) or (o not in exact and _keys(o) & candidates)]
        if matching:
            yield op, candidates, matching


def select_opinfos(native: dict[str, set[str]]) -> dict[str, tuple[set[str], set[str]]]:
    """OpInfo "name:variant" → (dtypes to run, native overloads of its op to call directly),
    for every OpInfo whose samples reach a native overload."""
    selected: dict[str, tuple[set[str], set[str]]] = {}
    for op, candidates, matching in _matches(native):
        dtypes, overloads = selected.setdefault(f"{op.name}:{op.variant_test_name}", (set(), set()))
        for overload in matching:
            dtypes.update(native[overload])
            # Direct calls only for overloads of the op the OpInfo itself names.
            if overload.split(".")[0].strip("_") in candidates:
                overloads.add(overload)
    return selected


def replayed_overloads(native: dict[str, set[str]]) -> dict[str, set[str]]:
    """OpInfo "name:variant" → out= overloads its samples reach only in their functional
    form (avg_pool2d_backward in avg_pool2d's backward, nll_loss_forward in nll_loss, the
    functional inside the max_pool2d_with_indices_backward OpInfo): the worker calls each
    out= form again with the arguments that call had."""
    import torch
    replayed: dict[str, set[str]] = {}
    for op, candidates, matching in _matches(native):
        for overload in matching:
            base, _, name = overload.partition(".")
            # The OpInfo's own out= form is its out phase's (mm.out for mm).
            if not name or (op.supports_out and base.strip("_") in candidates) or not hasattr(torch.ops.aten, base):
                continue
            packet = getattr(getattr(torch.ops.aten, base), name, None)
            if packet is not None and any(a.is_out for a in packet._schema.arguments) \
                    and hasattr(getattr(torch.ops.aten, base), "default"):
                replayed.setdefault(f"{op.name}:{op.variant_test_name}", set()).add(overload)
    return replayed


def expected_overloads(native: dict[str, set[str]]) -> dict[str, set[str]]:
    """OpInfo "name:variant" → the native overloads its samples are meant to verify.
    A kernel an OpInfo reaches incidentally (mm.out inside linear's decomposition,
    where a bias add after it amplifies one rounding step) is not judged by it."""
    expected: dict[str, set[str]] = {}
    for op, _, matching in _matches(native):
        expected.setdefault(f"{op.name}:{op.variant_test_name}", set()).update(matching)
    return expected


def covered_overloads(native: dict[str, set[str]]) -> set[str]:
    """Native overloads some OpInfo's samples are expected to reach."""
    return {o for _, _, matching in _matches(native) for o in matching}


def native_overloads(matrix: dict) -> dict[str, set[str]]:
    """overload → dtypes declared native, from a support_matrix.json document."""
    # Other libraries' ops (torchvision::nms) have no OpInfo: library_checks.py verifies them.
    native = {row["name"]: {d for d, s in row["dtypes"].items() if s == "native"} for row in matrix["ops"]
              if "::" not in row["name"]}
    return {name: dtypes for name, dtypes in native.items() if dtypes}


def comparable(sample) -> bool:
    """Whether a sample's result can be compared with CPU's: not one that asks for
    dropout (SDPA's `dropout_p`), which each device draws from its own generator."""
    return not sample.kwargs.get("dropout_p", 0.0)


def chosen_samples(samples, max_samples: int, scanned: int = 200):
    """The first max_samples, and the first sample of each input rank they lack
    (nll_loss's 4-D samples, which reach nll_loss2d, come after its first dozen);
    samples that are not comparable() are left out."""
    ranks = set()
    for index, sample in enumerate(samples):
        if index >= scanned:
            break
        if not comparable(sample):
            continue
        rank = sample.input.dim() if hasattr(sample.input, "dim") else -1
        if index < max_samples or rank not in ranks:
            ranks.add(rank)
            yield index, sample
