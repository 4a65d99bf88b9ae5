"""Torch-FL's ahead-of-time generator: vendor op specs → PrivateUse1 backend sources.

Pipeline (one module per stage; what each may import: Layers, below):
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
      attention_route.py  SDPA's route to a declared fused attention kernel (its rules)
      plan_aten_kernels.py  ATen's own kernels for the device keys (runtime/aten_kernels.yaml)
    plan_model.py   the plan: typed decisions only, no C++ (what the emitters read)
    emit_cpp.py     plan → C++ text, sharded; with emit_kernel.py (wrappers, in named steps),
                    emit_launch.py (SDK calls, status checks), emit_custom.py (vendor ops,
                    autograd), emit_guard.py (guards as C++), emit_blocks.py (shared pieces),
                    emit_attention.py (SDPA's choice of the fused attention kernel),
                    emit_names.py (the names of what the C++ defines; its registrations),
                    emit_aten_kernels.py (ATen's own kernels of runtime/aten_kernels.yaml)
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

Beside the pipeline:
    torch_versions.py  the torch releases of .ci/torch_versions and where each one's builds
                       and generated files live (standard library only: the Makefile, CI and
                       the runtime package load it too)

Layers. A module imports only modules of its own layer or of a layer above it
in this table (lazy imports inside functions too), and no import circle is
allowed, within a layer either; layers 1 to 3 import neither torch nor torchgen.
So parsing never loads torch, the plan holds no emitter's knowledge, and only
the CLI knows every stage.
tests/codegen/test_import_layers.py reads this table: a new module goes into it.
    1 foundation  __init__ limits errors cpp_text guards markdown torch_versions
    2 spec model  spec_model
    3 parse       spec_file source layering spec_reader spec_call spec_argument_rules spec_formats
                  spec_op spec_custom spec_sdk spec_sections spec_parser
    4 torch       aten library_ops device_names
    5 plan model  plan_model
    6 planner     schema_drift plan_formats plan_ops plan_custom plan_scalar_forms attention_route
                  plan_aten_kernels plan
    7 emitters    emit_names emit_blocks emit_guard emit_launch emit_kernel emit_attention emit_cpp emit_custom
                  emit_library emit_aten_kernels
                  matrix
    8 output      render output
    9 pipeline    pipeline torch_diff
   10 CLI         __main__
"""
