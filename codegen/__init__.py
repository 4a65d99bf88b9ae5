"""Torch-FL's ahead-of-time generator: vendor op specs → PrivateUse1 backend sources.

Pipeline (one module per stage):
    spec_file.py  a spec file → text (bounded, strict UTF-8)
    source.py     YAML text → nodes that remember file:line:column (a YAML subset)
    layering.py   `include:` files merged under the vendor spec
    spec.py       nodes → the typed spec model (structure, types, C++ name grammar)
    aten.py       the installed torch's ATen schemas, through torchgen
    plan.py       spec + ATen → one WrapperPlan per registered kernel (all semantic checks)
    emit_cpp.py   plans → C++ text (wrappers and registrations, sharded)
    matrix.py     plans → the operator support matrix (JSON, Markdown)
    output.py     writes a whole generated/<vendor>/ tree atomically

A spec is untrusted input. What guards the generator against it:
    limits.py        the bounds (spec size, nesting, includes, guard length, errors shown)
    cpp_text.py      the grammar spec names must follow to become C++; escaping of the rest
    guards.py        `when:` guards: parsed, type-checked, printed (never pasted)
    device_names.py  the device names the installed torch keeps for itself
    markdown.py      escaping for the Markdown pages (HTML pages: Jinja's autoescaping)
"""
