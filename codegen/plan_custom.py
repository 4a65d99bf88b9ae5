"""The custom-op planner: vendor ops (torch.ops.<vendor>.*) from their own
schemas, and their autograd: what the forward saves and how the backward op
is called."""
from __future__ import annotations

from typing import Callable, Optional

from torchgen.model import BaseType, FunctionSchema

from . import cpp_text
from .aten import AtenOp
from .errors import ErrorSink, Location, did_you_mean
from .plan_model import (SAVED_VALUE_TYPES, AutogradPlan, CustomOpPlan, GradOutput, KernelPlan, OpOrigin,
                         SavedTensor, SavedValue)
from .plan_ops import OpPlanner, is_tensor, return_names
from .spec_model import CustomOpSpec


class CustomOpPlanner:
    def __init__(self, ops: OpPlanner, spec_names: Callable[[], set[str]]):
        self.ops = ops
        self.errors: ErrorSink = ops.errors
        self.namespace = ops.spec.vendor
        self._spec_names = spec_names  # names a custom argument must not hide (Planner.spec_names)

    def _parse_custom_schema(self, text: str, expected_name: str, where: Location) -> Optional[AtenOp]:
        try:
            schema = FunctionSchema.parse(text)
        except Exception as error:  # torchgen raises AssertionError/RuntimeError with its own message
            self.errors.add(where, f"custom schema '{text}' does not parse: {str(error).splitlines()[0]}",
                            "write it as in native_functions.yaml: `name(Tensor x, float eps=1e-6) -> Tensor`")
            return None
        if str(schema.name) != expected_name:
            self.errors.add(where, f"custom schema names '{schema.name}', but the entry is '{expected_name}'",
                            "the schema's name must be the entry's key")
            return None
        # Argument names become C++ parameter names of the generated kernel.
        spec_names = self._spec_names()
        names = [a.name for a in schema.arguments.flat_all] + [r.name for r in schema.returns if r.name]
        for name in names:
            if not cpp_text.is_parameter_name(name) or name in spec_names:
                self.errors.add(where, f"custom schema argument '{name}' of '{expected_name}' cannot be a C++ "
                                "parameter name", "use an identifier that is not a C++ keyword, a function or "
                                "namespace the spec names, or a name the generated kernel declares (op, x_arg, ...)")
                return None
        return AtenOp(name=expected_name, schema=schema, has_cpp_meta=False, function_variant=True,
                      composite_implicit=False)

    def plan(self, custom: CustomOpSpec) -> Optional[CustomOpPlan]:
        namespace = self.namespace
        forward_op = self._parse_custom_schema(custom.schema, custom.op.name, custom.schema_location)
        if forward_op is None:
            return None
        forward = self.ops.plan_entry(custom.op, resolved=forward_op, namespace=namespace,
                                      origin=OpOrigin.VENDOR)
        backward = autograd = None
        if custom.backward is not None:
            bw_op = self._parse_custom_schema(custom.backward.schema, custom.backward.op.name,
                                              custom.backward.location)
            if bw_op is not None:
                planned = self.ops.plan_entry(custom.backward.op, resolved=bw_op, namespace=namespace,
                                               origin=OpOrigin.VENDOR)
                backward = planned[0] if planned else None
            if forward and backward:
                autograd = self._plan_autograd(custom, forward[0], backward)
        if not forward:
            return None
        return CustomOpPlan(forward=forward[0], schema=custom.schema, backward=backward,
                            backward_schema=custom.backward.schema if custom.backward else None, autograd=autograd,
                            reference=custom.reference)

    def _plan_autograd(self, custom, forward: KernelPlan, backward: KernelPlan) -> Optional[AutogradPlan]:
        where = custom.backward.location
        forward_args = {a.name: a for a in forward.aten.schema.arguments.flat_all}
        forward_returns = return_names(forward.aten)
        tensor_args = [n for n, a in forward_args.items() if is_tensor(a)]
        for grad in custom.backward.grads:
            if grad not in tensor_args:
                self.errors.add(where, f"backward grad '{grad}' is not a tensor argument of '{custom.op.name}'",
                                did_you_mean(grad, tensor_args))
                return None
        if len(backward.aten.schema.returns) != len(custom.backward.grads):
            self.errors.add(where, f"the backward schema returns {len(backward.aten.schema.returns)} tensor(s) "
                            f"for {len(custom.backward.grads)} grads")
            return None
        grad_names = {"grad": 0} if len(forward_returns) == 1 else {}
        grad_names.update({f"grad_{r}": i for i, r in enumerate(forward_returns)})
        saved_tensors, saved_values, arguments = [], [], []
        for arg in backward.aten.schema.arguments.flat_all:
            if arg.name in grad_names:
                arguments.append(GradOutput(grad_names[arg.name]))
            elif arg.name in forward_args:
                if is_tensor(forward_args[arg.name]):
                    arguments.append(SavedTensor(len(saved_tensors)))
                    saved_tensors.append(arg.name)
                else:
                    # float, int or bool exactly: not SymInt, not optional, not a list.
                    if not (isinstance(arg.type, BaseType) and arg.type.name in SAVED_VALUE_TYPES):
                        self.errors.add(where, f"backward argument '{arg.name}' of type {arg.type} cannot be "
                                        "saved for the backward", "use Tensor, float, int or bool arguments")
                        return None
                    saved = SavedValue(arg.name, arg.type.name)
                    arguments.append(saved)
                    saved_values.append(saved)
            else:
                known = sorted(grad_names) + list(forward_args)
                self.errors.add(where, f"backward argument '{arg.name}' is neither a forward argument nor a "
                                "gradient", did_you_mean(arg.name, known, f"expected one of: {', '.join(known)}"))
                return None
        gradient_of = tuple(custom.backward.grads.index(a.name) if a.name in custom.backward.grads else None
                            for a in forward.aten.schema.arguments.flat_all)
        return AutogradPlan(forward=forward, backward=backward, saved_tensors=tuple(saved_tensors),
                            saved_values=tuple(saved_values), backward_arguments=tuple(arguments),
                            gradient_of=gradient_of)
