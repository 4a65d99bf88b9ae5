"""The ATen-op planner: one spec entry → its kernels (the entry's overload and its
derived variants) and their shared launch, every check against the ATen schema
made here, before anything is emitted."""
from __future__ import annotations

import re
from typing import Optional

from torchgen.model import BaseTy, BaseType, SchemaKind

from . import cpp_text, guards, plan_formats
from .aten import AtenOp, AtenRegistry
from .errors import ErrorSink, did_you_mean
from .plan_model import (STREAM_ARGUMENT, WORKSPACE_ARGUMENT, Allocation, AllocationKind, DtypeDecision, DtypePolicy,
                         KernelKind, KernelPlan, LaunchParameter, LaunchPlan, OpOrigin, OverlapCheck, Provenance,
                         TensorArgKind, TensorInput)
from .spec_model import OpSpec, PrivateFormatSpec, Variant, VendorSpec

# ATen types the SDK receives as plain values when the spec names no converter.
PRIMITIVE_TYPES = frozenset({"int", "float", "bool"})

# ATen's names for tensor arguments that may hold indices, class targets or
# masks. An integral or bool tensor there has a dtype fixed by the op (int64/int32
# indices, bool masks), not the computation dtype, so it takes no part in the
# native/fallback decision (an SDK that takes another index width says so with
# a `cast:` rule); a floating one (mse_loss's target) is a computation operand.
INDEX_LIKE_ARGUMENTS = frozenset({"index", "indices", "target", "mask", "condition"})


# Result types a kernel returns as values, not allocated tensors.
_NUMBER_TYPES = frozenset({"int", "SymInt", "float", "bool"})

# ATen's in-place writes that skip the internal-overlap check: filling is
# idempotent, so elements of the output that alias each other get the same value
# (ATen's fill_ builds its TensorIterator with check_mem_overlap off; zero_ is
# fill_; masked_fill_ only warns that this use is deprecated).
_INTERNAL_OVERLAP_ALLOWED = frozenset({"fill_", "zero_", "masked_fill_"})


def normalize_type(aten_type: str) -> str:
    """'int[1]?' → 'int[]?', 'SymInt' → 'int': the key converters are declared under."""
    text = re.sub(r"\[\d+\]", "[]", aten_type)
    return text.replace("SymInt", "int")


def is_tensor(arg) -> bool:
    return isinstance(arg.type, BaseType) and arg.type.name == BaseTy.Tensor


def is_tensor_list(arg) -> bool:
    return str(arg.type) == "Tensor[]"


def is_optional_tensor(arg) -> bool:
    return arg.type.is_nullable() and str(arg.type) == "Tensor?"


def value_return_names(op: AtenOp) -> tuple[str, ...]:
    """The results that are numbers (an int or SymInt), by return name."""
    return tuple(name for name, r in zip(return_names(op), op.schema.returns) if str(r.type) in _NUMBER_TYPES)


def return_names(op: AtenOp) -> tuple[str, ...]:
    returns = op.schema.returns
    if len(returns) == 1:
        return (returns[0].name or "out",)
    return tuple(r.name or f"out{i}" for i, r in enumerate(returns))


class OpPlanner:
    """Plans spec entries against ATen; reports every problem to `errors`."""

    def __init__(self, spec: VendorSpec, aten: AtenRegistry, errors: ErrorSink, symbols: set[str]):
        self.spec = spec
        self.aten = aten
        self.errors = errors
        self.symbols = symbols  # declared by the SDK headers

    def plan_entry(self, op_spec: OpSpec, resolved: Optional[AtenOp] = None, namespace: str = "aten",
                   origin: OpOrigin = OpOrigin.ATEN) -> list[KernelPlan]:
        aten = resolved or self.aten.lookup(op_spec.name)
        if aten is None:
            self.errors.add(op_spec.location, f"unknown ATen overload '{op_spec.name}'",
                            did_you_mean(op_spec.name, self.aten.names()))
            return []
        if aten.composite_implicit and op_spec.call is not None:
            if op_spec.autograd != "decomposition":
                self.errors.add(op_spec.location,
                                f"'{op_spec.name}' is CompositeImplicitAutograd: a native kernel would bypass "
                                "its decomposition's autograd",
                                "add `autograd: decomposition` (native when no gradient is needed), or list the "
                                "ops it decomposes into instead")
                return []
            if op_spec.variants or (aten.decomposition or "").endswith("_symint"):
                self.errors.add(op_spec.location, f"'{op_spec.name}': `autograd: decomposition` supports a "
                                "functional overload without variants whose decomposition takes no SymInt",
                                "list the ops it decomposes into instead")
                return []
        elif op_spec.autograd is not None:
            self.errors.add(op_spec.location, f"'{op_spec.name}' is not CompositeImplicitAutograd: its autograd "
                            "comes from PyTorch's own formula", "remove `autograd`")
        kind = {SchemaKind.functional: KernelKind.FUNCTIONAL, SchemaKind.inplace: KernelKind.INPLACE,
                SchemaKind.out: KernelKind.OUT}.get(aten.kind)
        if kind is None:
            self.errors.add(op_spec.location, f"'{op_spec.name}' is a {aten.kind.name} overload, which cannot "
                            "be registered from a spec")
            return []
        if kind != KernelKind.FUNCTIONAL and op_spec.variants:
            self.errors.add(op_spec.location, f"variants can only be derived from a functional overload, "
                            f"'{op_spec.name}' is {kind.value}")
            return []
        launch = self._plan_launch(op_spec, aten, kind) if op_spec.call else None
        if op_spec.call and launch is None:
            return []
        if op_spec.output.like is not None:
            if kind == KernelKind.OUT or Variant.OUT in op_spec.variants:
                # No meta function checks the caller's out= tensors (the generated
                # C++ used to call a meta function that is not there).
                self.errors.add(op_spec.output.location, f"'{op_spec.name}' sizes its output like a tensor "
                                "argument: its out= form has no meta function to check the out= tensors",
                                "remove `out` from `variants`, or size the output by `output: {rule: ...}`")
            tensor_names = [a.name for a in aten.arguments if is_tensor(a)]
            for like in op_spec.output.like:
                if like not in tensor_names:
                    self.errors.add(op_spec.output.location,
                                    f"output rule names '{like}', which is not a tensor argument "
                                    f"of '{op_spec.name}'", did_you_mean(like, tensor_names))
            if len(op_spec.output.like) != len(aten.schema.returns):
                self.errors.add(op_spec.output.location, f"output rule lists {len(op_spec.output.like)} tensor(s) "
                                f"for the {len(aten.schema.returns)} returns of '{op_spec.name}'")
        elif op_spec.output.rule is not None:
            if op_spec.variants:
                self.errors.add(op_spec.output.location, f"'{op_spec.name}' sizes its output by a rule: its out= "
                                "and in-place variants have no meta function to check them",
                                "remove `variants`, or list those overloads with their own rule")
            count = op_spec.output.count
            if count is not None:
                if kind != KernelKind.FUNCTIONAL or len(aten.schema.returns) != 1:
                    self.errors.add(op_spec.output.location, f"'{op_spec.name}': `count` trims the one result of a "
                                    "functional overload", "remove `count`")
                elif not cpp_text.is_parameter_name(count):
                    self.errors.add(op_spec.output.location, f"`count: {count}` of '{op_spec.name}' is a name the "
                                    "generated kernel declares itself", "name it after what it counts, e.g. `kept`")
                elif count in {a.name for a in aten.arguments} or count in return_names(aten):
                    self.errors.add(op_spec.output.location, f"`count: {count}` of '{op_spec.name}' names an "
                                    "argument or result of the op", "name the count something the schema does not use")
                elif op_spec.call is None or count not in {a.name for a in op_spec.call.arguments}:
                    self.errors.add(op_spec.output.location, f"`count: {count}` of '{op_spec.name}' is not passed "
                                    "to its call", f"pass `{count}` where the SDK writes the number of rows it filled")
        elif kind == KernelKind.FUNCTIONAL and op_spec.call and value_return_names(aten):
            # A `like` tensor cannot give an int result, and the meta function may be Python's.
            self.errors.add(op_spec.location, f"'{op_spec.name}' returns {', '.join(value_return_names(aten))}, "
                            "which only an output rule can compute",
                            "declare `output: {rule: <C++ function>}` returning every result")
        elif kind in (KernelKind.FUNCTIONAL, KernelKind.OUT) and op_spec.call and not aten.has_cpp_meta:
            self.errors.add(op_spec.location, f"'{op_spec.name}' has no C++ meta function to size its output",
                            "declare `output: {like: <tensor argument>}` or `output: {rule: <C++ function>}`")
        private_format = plan_formats.check_rule(
            op_spec, self.spec.formats, [a.name for a in aten.schema.arguments.flat_non_out if str(a.type) == "Tensor"],
            _entry_outputs(aten), kind, self.errors)
        kernels = [self._kernel(op_spec, aten, kind, launch, None, entry=aten, namespace=namespace, origin=origin,
                                private_format=private_format)]
        for variant in op_spec.variants:
            sibling_kind = SchemaKind.out if variant == Variant.OUT else SchemaKind.inplace
            sibling = self.aten.sibling(aten, sibling_kind)
            if sibling is None:
                self.errors.add(op_spec.location, f"'{op_spec.name}' has no {variant.value} variant in ATen",
                                f"remove '{variant.value}' from its variants")
                continue
            kernels.append(self._kernel(op_spec, sibling, KernelKind.OUT if variant == Variant.OUT
                                        else KernelKind.INPLACE, launch, op_spec.name, entry=aten, variant=variant,
                                        private_format=private_format))
        return kernels

    def _plan_launch(self, op_spec: OpSpec, aten: AtenOp, kind: KernelKind) -> Optional[LaunchPlan]:
        call = op_spec.call
        assert call is not None
        ok = True
        if call.function not in self.symbols:
            self.errors.add(call.location, f"SDK function '{call.function}' is not declared in "
                            f"{', '.join(self.spec.sdk.headers)}", did_you_mean(call.function, self.symbols))
            ok = False
        inputs = {a.name: a for a in aten.schema.arguments.flat_non_out}
        outputs = {KernelKind.FUNCTIONAL: return_names(aten),
                   KernelKind.OUT: tuple(a.name for a in aten.out_arguments)}.get(kind, ())
        if op_spec.output.count is not None and kind == KernelKind.FUNCTIONAL:
            outputs += (op_spec.output.count,)  # a device tensor the SDK writes, like an output
        parameters = []
        two_phase = self.spec.sdk.two_phase
        if two_phase is not None:
            query = two_phase.query.format(function=call.function)
            if query not in self.symbols:
                self.errors.add(call.location, f"two-phase query '{query}' of '{op_spec.name}' is not declared in "
                                f"{', '.join(self.spec.sdk.headers)}", did_you_mean(query, self.symbols))
                ok = False
            for implicit in (STREAM_ARGUMENT, WORKSPACE_ARGUMENT):
                if any(a.name == implicit for a in call.arguments):
                    self.errors.add(call.location, f"'{op_spec.name}' names '{implicit}', but in a two-phase SDK the "
                                    "stream and the workspace go to the execute call by themselves",
                                    f"remove '{implicit}' from the call")
                    ok = False
        for call_arg in call.arguments:
            name = call_arg.name
            if name == WORKSPACE_ARGUMENT:
                query = (self.spec.sdk.workspace_query or "").format(function=call.function)
                if not self.spec.sdk.workspace_query:
                    self.errors.add(call.location, f"'{op_spec.name}' passes a workspace, but the SDK declares no "
                                    "workspace convention", 'add `workspace_query: "{function}GetWorkspaceSize"` '
                                    "under sdk")
                    ok = False
                elif query not in self.symbols:
                    self.errors.add(call.location, f"workspace query '{query}' of '{op_spec.name}' is not declared "
                                    f"in {', '.join(self.spec.sdk.headers)}", did_you_mean(query, self.symbols))
                    ok = False
                continue
            if name is None or name == STREAM_ARGUMENT or name in {p.name for p in parameters}:
                continue
            if name in value_return_names(aten) and kind == KernelKind.FUNCTIONAL:
                self.errors.add(call.location, f"call argument '{name}' is a {_return_type(aten, name)} result "
                                f"of '{op_spec.name}': its output rule computes it, the SDK cannot write it",
                                f"remove '{name}' from the call")
                ok = False
                continue
            if name in outputs:
                parameters.append(LaunchParameter(name, True, self.spec.sdk.converters.get("Tensor")))
                continue
            arg = inputs.get(name)
            if arg is None:
                known = list(inputs) + list(outputs) + [STREAM_ARGUMENT, WORKSPACE_ARGUMENT]
                self.errors.add(call.location, f"call argument '{name}' names no parameter of '{op_spec.name}'",
                                did_you_mean(name, known, f"expected one of: {', '.join(known)}"))
                ok = False
                continue
            type_key = normalize_type(str(arg.type))
            converter = self.spec.sdk.converters.get(type_key)
            if converter is None and type_key not in PRIMITIVE_TYPES and call_arg.converter is None:
                self.errors.add(call.location, f"no converter for ATen type '{type_key}' (argument '{name}' "
                                f"of '{op_spec.name}')", f"add `{type_key}: <function>` under sdk.converters")
                ok = False
                continue
            parameters.append(LaunchParameter(name, False, converter))
        if not ok:
            return None
        return LaunchPlan(sdk_function=call.function, call_text=str(call), parameters=tuple(parameters),
                          call_arguments=call.arguments, entry=aten)

    def _kernel(self, op_spec: OpSpec, aten: AtenOp, kind: KernelKind, launch: Optional[LaunchPlan],
                derived_from: Optional[str], entry: AtenOp, namespace: str = "aten",
                variant: Optional[Variant] = None, origin: OpOrigin = OpOrigin.ATEN,
                private_format: Optional[PrivateFormatSpec] = None) -> KernelPlan:
        tensor_inputs = []
        for arg in aten.schema.arguments.flat_non_out:
            if is_tensor(arg):
                # self of an in-place kernel is its output: a CPU scalar cannot stand in for it.
                scalar_ok = not (kind == KernelKind.INPLACE and arg.name == "self")
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.TENSOR, scalar_ok))
            elif is_optional_tensor(arg):
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.OPTIONAL, False))
            elif is_tensor_list(arg):
                tensor_inputs.append(TensorInput(arg.name, TensorArgKind.LIST, False))
        if kind == KernelKind.FUNCTIONAL:
            outputs = return_names(aten)
        elif kind == KernelKind.OUT:
            outputs = tuple(a.name for a in aten.out_arguments)
        else:
            outputs = ("self",)
        # Launch arguments: the entry's output names re-bound to this kernel's outputs.
        if kind != KernelKind.INPLACE or derived_from or entry.kind == SchemaKind.out:
            entry_outputs = _entry_outputs(entry)
        else:
            entry_outputs = ()
        launch_arguments = []
        for param in launch.parameters if launch else ():
            if param.name in entry_outputs:
                launch_arguments.append("self" if kind == KernelKind.INPLACE
                                        else outputs[entry_outputs.index(param.name)])
            else:
                launch_arguments.append(param.name)
        tensor_names = [t.name for t in tensor_inputs]
        if op_spec.dtype_from is not None:  # the spec names the one operand that carries the dtype
            if op_spec.dtype_from not in tensor_names:
                self.errors.add(op_spec.location, f"dtype_from names '{op_spec.dtype_from}', which is not a tensor "
                                f"argument of '{aten.name}'", did_you_mean(op_spec.dtype_from, tensor_names))
            operands = tuple(t for t in tensor_inputs if t.name == op_spec.dtype_from)
            index_like = ()
        else:
            operands = tuple(t for t in tensor_inputs if t.name not in INDEX_LIKE_ARGUMENTS)
            index_like = tuple(t for t in tensor_inputs if t.name in INDEX_LIKE_ARGUMENTS)
        # `dtype_from` names the one tensor whose dtype decides: not the results
        # either (roi_pool's int32 argmax is the op's own index type).
        dtype_decision = DtypeDecision(operands, index_like, outputs if kind == KernelKind.OUT else (),
                                       check_result=kind == KernelKind.FUNCTIONAL and op_spec.dtype_from is None)
        kernel_format = plan_formats.for_kernel(op_spec, private_format, kind, _entry_outputs(entry), outputs)
        allocation = _allocation(op_spec, aten, kind, derived_from, public_result=kernel_format is None)
        guard = None
        if op_spec.guard is not None:
            arg_types = {a.name: str(a.type) for a in aten.schema.arguments.flat_all}
            try:
                guard = guards.parse(op_spec.guard.text, arg_types)
            except guards.GuardError as error:
                self.errors.add(op_spec.guard.location, str(error), error.suggestion)
        # Layout and cast rules prepare an input the SDK reads: an optional tensor, a
        # list or an output has no single tensor to convert (the emitted C++ would not compile).
        plain_tensors = [a.name for a in aten.schema.arguments.flat_non_out if str(a.type) == "Tensor"]
        for rule in op_spec.layouts:
            if rule.argument not in plain_tensors:
                self.errors.add(rule.location, f"layout rule names '{rule.argument}', which is not a (non-optional) "
                                f"Tensor argument of '{aten.name}'",
                                did_you_mean(rule.argument, plain_tensors,
                                             f"a layout rule may name {', '.join(plain_tensors) or 'no argument'}"))
        for rule in op_spec.casts:
            if rule.argument not in plain_tensors:
                self.errors.add(rule.location, f"cast rule names '{rule.argument}', which is not a (non-optional) "
                                f"Tensor argument of '{aten.name}'", did_you_mean(rule.argument, plain_tensors))
        overlap = None
        if kind != KernelKind.FUNCTIONAL:
            overlap = OverlapCheck(outputs, tuple(t for t in tensor_inputs if t.name not in outputs),
                                   aten.name.split(".")[0] in _INTERNAL_OVERLAP_ALLOWED)
        loc = op_spec.location
        return KernelPlan(aten=aten, kind=kind, provenance=Provenance(loc.path, loc.line), entry=op_spec.name,
                          launch=launch, derived_from=derived_from, launch_arguments=tuple(launch_arguments),
                          tensor_inputs=tuple(tensor_inputs), output_names=outputs, dtype_decision=dtype_decision,
                          dtypes=DtypePolicy(op_spec.dtypes_of(variant), op_spec.fallback, op_spec.error_dtypes),
                          allocation=allocation, layouts=op_spec.layouts, casts=op_spec.casts, namespace=namespace,
                          guard=guard, overlap=overlap, known_failure=op_spec.known_failure, origin=origin,
                          private_format=kernel_format,
                          value_results=value_return_names(aten) if kind == KernelKind.FUNCTIONAL else ())


def _return_type(op: AtenOp, name: str) -> str:
    return str(op.schema.returns[return_names(op).index(name)].type)


def _entry_outputs(entry: AtenOp) -> tuple[str, ...]:
    """The names the spec entry's call uses for its results."""
    if entry.kind == SchemaKind.out:
        return tuple(a.name for a in entry.out_arguments)
    return return_names(entry)


def _allocation(op_spec: OpSpec, aten: AtenOp, kind: KernelKind, derived_from: Optional[str],
                public_result: bool) -> Allocation:
    """Derived variants and functional kernels learn the expected result from the
    overload's meta function (or the spec's rule); a spec-listed in-place op
    writes self as is. A `like` rule sizes the functional form; its derived
    in-place form writes self as is."""
    output = op_spec.output
    if output.like is not None:
        return Allocation(AllocationKind.LIKE, like=output.like) if kind != KernelKind.INPLACE else \
            Allocation(AllocationKind.NONE)
    if output.rule is not None:
        if kind == KernelKind.INPLACE:
            return Allocation(AllocationKind.NONE)
        return Allocation(AllocationKind.RULE, rule=output.rule,
                          inputs=tuple(a.name for a in aten.schema.arguments.flat_non_out),
                          count=output.count if kind == KernelKind.FUNCTIONAL else None)
    if derived_from or kind in (KernelKind.FUNCTIONAL, KernelKind.OUT):
        remembered = public_result and kind != KernelKind.OUT and _meta_is_rememberable(aten)
        return Allocation(AllocationKind.META, remembered=remembered)
    return Allocation(AllocationKind.NONE)


def _meta_is_rememberable(aten: AtenOp) -> bool:
    """Whether the meta result may come from the runtime's memo (elementwise_memo.h):
    a TensorIterator overload called as at::meta::, one result, and arguments that
    are Tensors and Scalars only (what the memo's key holds)."""
    if not (aten.tensor_iterator and aten.direct_meta) or len(aten.schema.returns) != 1:
        return False
    arguments = aten.schema.arguments.flat_non_out
    tensors = [a for a in arguments if str(a.type) == "Tensor"]
    scalars = [a for a in arguments if str(a.type) == "Scalar"]
    return 0 < len(tensors) <= 4 and len(scalars) <= 4 and len(tensors) + len(scalars) == len(arguments)
