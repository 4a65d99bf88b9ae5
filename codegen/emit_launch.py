"""Launch functions: one per spec entry, shared by the entry's kernels. Each
converts the ATen values for the SDK, follows the SDK's calling conventions
(workspace query, two-phase calls) and checks every status the SDK returns."""
from __future__ import annotations

from . import emit_names
from .emit_blocks import CppBlock, comments
from .plan_model import STREAM_ARGUMENT, WORKSPACE_ARGUMENT, BackendPlan, LaunchParameter, LaunchPlan
from .spec_model import PassBy, SdkSpec


# Ops whose SDK call writes one value everywhere: a memset row on the device's timeline.
_FILL_OPS = frozenset({"fill_.Scalar", "fill_.Tensor", "zero_"})


def _status_check(sdk: SdkSpec, status: str, function: str, arguments: list[str],
                  device_work: str | None = None) -> list[str]:
    """`const <status type> <status> = <function>(<arguments>);` inside a profiler range
    named after the function, and the check that raises the vendor's error (the op,
    the vendor, its code and message) when it is not `ok`. `device_work`: the call
    runs that kind of work on the op's stream ("kKernel", "kMemset"), which a device
    profiler shows on the stream's row; None for a host-only call (a workspace query)."""
    range_name = "query_call" if status == "query_status" else "sdk_call"
    detail = f", {sdk.status.detail}()" if sdk.status.detail else ""
    if device_work is None:
        range_line = f"  torch_fl::ProfilerRange {range_name}(\"{function}\");"
    elif device_work == "kKernel":
        range_line = f"  torch_fl::ProfilerRange {range_name}(op, \"{function}\");"
    else:
        range_line = (f"  torch_fl::ProfilerRange {range_name}(op, \"{function}\", "
                      f"torch_fl::DeviceActivityKind::{device_work});")
    return [range_line,
            f"  const {sdk.status.type} {status} = {function}({', '.join(arguments)});",
            f"  {range_name}.end();",
            f"  if ({status} != {sdk.status.ok}) {{",
            f"    op.raise_vendor_error(static_cast<int64_t>({status}), {sdk.status.message}({status}){detail});",
            "  }"]


def _launch_parameter_type(launch: LaunchPlan, parameter: LaunchParameter) -> str:
    """How the launch function takes a value: as the dispatcher passes it, never
    mutably (a launch writes through the SDK, not through its parameters)."""
    if parameter.is_output:
        return "const at::Tensor&"
    for cpp_type, name in launch.entry.dispatcher_arguments():
        if name == parameter.name:
            return "const at::Tensor &" if cpp_type.strip() == "at::Tensor &" else cpp_type
    raise KeyError(parameter.name)


def launch_block(plan: BackendPlan, launch: LaunchPlan, source: str) -> CppBlock:
    sdk = plan.sdk
    params = ", ".join(["const torch_fl::OpContext& op"] +
                       [f"{_launch_parameter_type(launch, p)} {p.name}" for p in launch.parameters])
    lines = [f"static void {emit_names.launch(launch)}({params}) {{"]
    by_name = {p.name: p for p in launch.parameters}
    call_args = []
    declared: set[str] = set()
    for index, arg in enumerate(launch.call_arguments):
        name = arg.name
        if name == STREAM_ARGUMENT:
            lines.append(f"  const auto stream_arg = {sdk.stream}(op.stream());")
            call_args.append("stream_arg")
            continue
        if name == WORKSPACE_ARGUMENT:  # filled in below, once its size is known
            call_args.append(WORKSPACE_ARGUMENT)
            continue
        if name is None:  # computed by the glue
            lines.append(f"  const auto computed_arg{index} = {arg.converter}();")
            call_args.append(f"computed_arg{index}")
            continue
        if arg.converter is not None:  # explicit converter: passed by value
            lines.append(f"  const auto {name}_arg{index} = {arg.converter}({name});")
            call_args.append(f"{name}_arg{index}")
            continue
        param = by_name[name]
        if param.converter is None:
            call_args.append(name)
            continue
        if name not in declared:  # once: an in-place SDK call may name a tensor as input and output
            declared.add(name)
            lines.append(f"  const auto {name}_arg = {param.converter.function}({name});")
        call_args.append(f"&{name}_arg" if param.converter.pass_by == PassBy.POINTER else f"{name}_arg")
    if WORKSPACE_ARGUMENT in call_args:
        # Two-phase call: ask the SDK how much scratch memory the call needs, take
        # it from the caching allocator on this stream, then run with it.
        query_args = [a for a in call_args if a not in ("stream_arg", WORKSPACE_ARGUMENT)]
        query = sdk.workspace_query.format(function=launch.sdk_function)
        lines.append("  size_t workspace_bytes = 0;")
        lines += _status_check(sdk, "query_status", query, query_args + ["&workspace_bytes"])
        lines.append("  const at::Tensor workspace = op.workspace(workspace_bytes);")
        call_args = [a if a != WORKSPACE_ARGUMENT else "op.data(workspace), workspace_bytes" for a in call_args]
    if sdk.two_phase is not None:
        # Every call of this SDK is two-phase: the query validates the arguments,
        # sizes the scratch memory and returns an executor; the execute call
        # consumes the executor on the stream with the workspace.
        query = sdk.two_phase.query.format(function=launch.sdk_function)
        lines.append("  uint64_t workspace_bytes = 0;")
        lines.append(f"  {sdk.two_phase.executor} executor = nullptr;")
        lines += _status_check(sdk, "query_status", query, call_args + ["&workspace_bytes", "&executor"])
        lines.append("  const at::Tensor workspace = op.workspace(workspace_bytes);")
        call_args = ["op.data(workspace)", "workspace_bytes", "executor", f"{sdk.stream}(op.stream())"]
    device_work = "kMemset" if launch.entry.name in _FILL_OPS else "kKernel"
    lines += _status_check(sdk, "status", launch.sdk_function, call_args, device_work)
    lines.append("}")
    return CppBlock(comments(launch.call_text, f"from {source}"), tuple(lines))
