"""Torch-FL's ahead-of-time generator: vendor op specs → PrivateUse1 backend sources.

Pipeline (one module per stage):
    source.py    YAML text → nodes that remember file:line:column
    spec.py      nodes → the typed spec model (structure and types checked)
    aten.py      the installed torch's ATen schemas, through torchgen
    plan.py      spec + ATen → one WrapperPlan per registered kernel (all semantic checks)
    emit_cpp.py  plans → C++ text (wrappers and registrations, sharded)
    matrix.py    plans → the operator support matrix (JSON, Markdown)
    output.py    writes a whole generated/<vendor>/ tree atomically
"""
