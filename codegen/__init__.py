"""Torch-FL's ahead-of-time generator: vendor op specs → PrivateUse1 backend sources.

Pipeline (one module per stage, each stage reads only the one before):
    spec_file.py    a spec file → text (bounded, strict UTF-8)
    source.py       YAML text → nodes that remember file:line:column (a YAML subset)
    layering.py     `include:` files merged under the vendor spec
    spec_parser.py  nodes → the typed spec model (structure, types, C++ name grammar),
                    one spec_*.py per part of the spec, read through spec_reader.py
    spec_model.py   the typed spec model (frozen dataclasses)
    aten.py         the installed torch's ATen schemas, through torchgen
    plan.py         spec + ATen → the backend plan: symbol, device and autocast checks, and
      plan_ops.py     ATen ops: one KernelPlan per registered kernel, their launches
      plan_custom.py  custom ops and their autograd
    plan_model.py   the plan: typed decisions only, no C++ (what the emitters read)
    emit_cpp.py     plan → C++ text, sharded; with emit_kernel.py (wrappers, in named steps),
                    emit_launch.py (SDK calls, status checks), emit_custom.py (vendor ops,
                    autograd), emit_guard.py (guards as C++), emit_blocks.py (shared pieces)
    matrix.py       plan → the declared operator support matrix (JSON; pages via render.py)
    render.py       the files of generated/<vendor>/ through the templates
    output.py       writes a whole generated/<vendor>/ tree atomically
    pipeline.py     the stages in order for one spec: load_plan(), generate_files()
    __main__.py     the command line: generate, check, diff-torch

A spec is untrusted input. What guards the generator against it:
    limits.py        the bounds (spec size, nesting, includes, guard length, errors shown)
    cpp_text.py      the grammar spec names must follow to become C++; escaping of the rest
    guards.py        `when:` guards: parsed, type-checked, printed (never pasted)
    device_names.py  the device names the installed torch keeps for itself
    markdown.py      escaping for the Markdown pages (HTML pages: Jinja's autoescaping)
"""
