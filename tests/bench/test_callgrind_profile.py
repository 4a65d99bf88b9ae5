"""bench/callgrind_profile.py reads callgrind's format: self cost per function,
a call's inclusive cost not charged to the caller, names compressed."""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench"))

from callgrind_profile import Function, read_profile  # noqa: E402

# main (in python) calls wrap (in the backend) which calls malloc (in libc) twice;
# costs given with relative (+n, -n) and repeated (*) positions.
PART = """# callgrind format
version: 1
positions: line
events: Ir
summary: 1000

ob=(1) /usr/bin/python3
fl=(1) main.c
fn=(1) main
10 100
cob=(2) /work/build/libtorch_fl_mlu.so
cfi=(2) wrap.cpp
cfn=(2) wrap
calls=1 20
+2 800
* 5

ob=(2)
fl=(2)
fn=(2)
20 300
cob=(3) /usr/lib/x86_64-linux-gnu/libc.so.6
cfi=(3) malloc.c
cfn=(3) malloc
calls=2 30
-1 400
+1 50

ob=(3)
fl=(3)
fn=(3)
30 400
"""


def write_part(tmp_path, text: str) -> str:
    path = tmp_path / "callgrind.out.1"
    path.write_text(text)
    return str(path)


def test_self_costs_leave_out_the_callees_inclusive_cost(tmp_path):
    profile = read_profile(write_part(tmp_path, PART))
    assert profile.total == 1000
    assert dict(profile.self_cost) == {
        Function("main", "python3"): 105,
        Function("wrap", "libtorch_fl_mlu.so"): 350,
        Function("malloc", "libc.so.6"): 400,
    }


def test_costs_by_library(tmp_path):
    profile = read_profile(write_part(tmp_path, PART))
    assert profile.by_library() == {"python3": 105, "libtorch_fl_mlu.so": 350, "libc.so.6": 400}


def test_totals_line_and_a_function_named_once(tmp_path):
    # `totals:` closes a part; a compressed name seen first as a callee (cfn=)
    # is known when it later becomes the current function by its id alone.
    text = PART.replace("summary: 1000", "summary: 0") + "totals: 855\n"
    profile = read_profile(write_part(tmp_path, text))
    assert profile.total == 855
    assert profile.self_cost[Function("malloc", "libc.so.6")] == 400
