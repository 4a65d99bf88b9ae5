"""`when:` guards are type-checked against the overload's argument types: a
guard the generator accepts compiles (checked with g++ in
test_accepted_specs_compile.py), and one that would not is a spec error at
the guard's line with what is wrong and what to write instead."""
from __future__ import annotations

import json
import os
import re

import pytest
from cli import assert_spec_error
from conftest import REPO_ROOT

from codegen.pipeline import generate_files

MLU_SPEC = os.path.join(REPO_ROOT, "specs", "mlu.yaml")


def mlu_spec_with_guards(guards: dict[str, str]) -> tuple[str, dict[str, int]]:
    """specs/mlu.yaml (without its includes) with `when:` set on the given
    entries; returns the text and the line of each entry's guard."""
    lines = re.sub(r"^include:.*\n", "", open(MLU_SPEC).read(), count=1, flags=re.MULTILINE).split("\n")
    for entry, guard in guards.items():
        start = next(i for i, line in enumerate(lines) if line.startswith(f"  {entry}:"))
        when = f"when: {json.dumps(guard)}"
        if lines[start].endswith("}"):  # {call: ..., ...} on one line
            lines[start] = lines[start][:-1] + f", {when}}}"
            continue
        block = start + 1
        while block < len(lines) and lines[block].startswith("    "):
            block += 1
        existing = [i for i in range(start + 1, block) if lines[i].startswith("    when:")]
        if existing:
            lines[existing[0]] = f"    {when}"
        else:
            lines.insert(start + 1, f"    {when}")
    text = "\n".join(lines)
    found = {}
    for entry in guards:
        start = next(i for i, line in enumerate(text.split("\n")) if line.startswith(f"  {entry}:"))
        found[entry] = next(i for i, line in enumerate(text.split("\n")[start:], start) if "when:" in line) + 1
    return text, found


# One accepted form per argument type (and per construct of the language):
# entry → guard. test_accepted_specs_compile.py compiles these.
ACCEPTED = {
    "add.Tensor": "self.dim() == 2 and self.size(0) > 1 and self.stride(-1) == 1 and self.numel() < 1000000 "
                  "and self.is_contiguous() and self.scalar_type() == other.scalar_type()",  # Tensor methods
    "convolution_overrideable": "not transposed and 1 <= groups <= 1024 and bias is not None "
                                "and len(stride) == 2",  # bool, SymInt (chained), Tensor?, SymInt[]
    "native_layer_norm": "eps > 1e-12 and weight is None or len(normalized_shape) == 1",  # float, or/and
    "native_dropout": "p < 0.5 and train is not None",  # float, bool?
    "mean.dim": "dim is not None and dtype is None and keepdim == False",  # int[1]?, ScalarType?, bool literal
    "cat": "len(tensors) <= 64 and dim >= -1",  # Tensor[], int, negation
    "avg_pool2d": "len(kernel_size) == 2 and divisor_override is None",  # int[2], int?
    "clamp": "min is not None or max is not None",  # Scalar?
}


def test_accepted_guards_print_as_typed_cpp(tmp_path):
    text, _ = mlu_spec_with_guards(ACCEPTED)
    spec = tmp_path / "mlu.yaml"
    spec.write_text(text)
    files = generate_files(str(spec), REPO_ROOT, display_path="specs/mlu.yaml")[1]
    shards = "".join(text for name, text in files.items() if name.startswith("kernels_shard"))
    for fragment in ["self.dim() == 2", "self.stride(-1) == 1", "other.scalar_type()",
                     "1 <= groups && groups <= 1024", "bias.has_value()", "static_cast<int64_t>(stride.size())",
                     "!dtype.has_value()", "(eps > 1e-12 && !weight.has_value()) ||", "keepdim == false",
                     "dim >= -1", "!divisor_override.has_value()", "!(min.has_value() || max.has_value())"]:
        assert fragment in shards, fragment
    rows = {row["name"]: row for row in json.loads(files["support_matrix.json"])["ops"]}
    assert rows["add.Tensor"]["guard"] == ACCEPTED["add.Tensor"], "the matrix shows the guard as written"
    assert rows["native_layer_norm"]["guard"] == ACCEPTED["native_layer_norm"]


# entry → (guard, fragments of the error)
REJECTED = {
    "a Scalar compared": ("add.Tensor", "alpha > 1", ["'alpha > 1' compares 'alpha' (Scalar) with '1' (int)"]),
    "a method on an optional tensor": ("convolution_overrideable", "bias.dim() == 1",
                                       ["'bias.dim()': 'bias' (Tensor?) is not a Tensor", "test `bias is not None`"]),
    "is None on a tensor": ("add.Tensor", "self is None", ["'self' (Tensor) is never None"]),
    "a float out of range": ("add.Tensor", "self.dim() < 1e400", ["'1e400' in guard is not a finite double"]),
    "an int out of range": ("add.Tensor", "self.dim() > 99999999999999999999", ["does not fit in int64"]),
    "len of a tensor": ("add.Tensor", "len(self) == 1", ["len(self): 'self' (Tensor) is not a list"]),
    "a number as the condition": ("add.Tensor", "self.dim()", ["is 'self.dim()' (int), not a condition"]),
    "an int in and": ("convolution_overrideable", "not transposed and groups",
                      ["'groups' (SymInt) is not a condition"]),
    "dtypes ordered": ("add.Tensor", "self.scalar_type() < other.scalar_type()", ["compares 'self.scalar_type()'"]),
    "a bool compared with an int": ("convolution_overrideable", "transposed == 1", ["compares 'transposed' (bool)"]),
    "size() without its index": ("add.Tensor", "self.size() == 1", ["takes 1 argument(s), got 0"]),
    "a float index": ("add.Tensor", "self.size(1.5) == 1", ["the index must be an int"]),
    "an unknown method": ("add.Tensor", "self.data_ptr() == 0", ["'data_ptr()' is not a tensor method"]),
    "None compared with ==": ("convolution_overrideable", "bias == None", ["unsupported constant 'None'"]),
    "a string": ("add.Tensor", "'x' == 'y'", ["unsupported constant"]),
    "a free function": ("add.Tensor", "abs(self.dim()) == 1", ["is not a call a guard can make"]),
    "an attribute": ("add.Tensor", "self.shape == 1", ["unsupported expression 'self.shape'"]),
    "a guard too long": ("add.Tensor", " and ".join(["self.dim() == 2"] * 40), ["longer than 500 characters"]),
}


@pytest.mark.parametrize("case", list(REJECTED))
def test_a_guard_that_would_not_compile_is_a_spec_error(tmp_path, case):
    entry, guard, fragments = REJECTED[case]
    text, lines = mlu_spec_with_guards({entry: guard})
    assert_spec_error(tmp_path, text, lines[entry], *fragments, name="mlu.yaml")
