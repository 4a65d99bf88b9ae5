"""The kernel emitter on hand-built plans, without a spec: each typed decision
becomes the step a careful engineer would write (allocation, guard, launch)."""
from __future__ import annotations

import functools

from codegen import guards
from codegen.aten import AtenRegistry
from codegen.emit_kernel import kernel_block
from codegen.plan_model import (Allocation, AllocationKind, DtypeDecision, DtypePolicy, KernelKind, KernelPlan,
                                LaunchParameter, LaunchPlan, Provenance, TensorArgKind, TensorInput)
from codegen.spec_model import FallbackPolicy


@functools.cache
def add_tensor():
    return AtenRegistry.from_installed_torch().lookup("add.Tensor")


def add_kernel(allocation: Allocation, guard=None) -> KernelPlan:
    aten = add_tensor()
    inputs = (TensorInput("self", TensorArgKind.TENSOR, True), TensorInput("other", TensorArgKind.TENSOR, True))
    launch = LaunchPlan(sdk_function="sdkAdd", call_text="sdkAdd(self, other, alpha, out)",
                        parameters=(LaunchParameter("self", False, None), LaunchParameter("other", False, None),
                                    LaunchParameter("alpha", False, None), LaunchParameter("out", True, None)),
                        call_arguments=(), entry=aten)
    return KernelPlan(aten=aten, kind=KernelKind.FUNCTIONAL, provenance=Provenance("specs/x.yaml", 7),
                      entry="add.Tensor", launch=launch, derived_from=None,
                      launch_arguments=("self", "other", "alpha", "out"), tensor_inputs=inputs, output_names=("out",),
                      dtype_decision=DtypeDecision(inputs, (), (), check_result=True),
                      dtypes=DtypePolicy(("float32",), FallbackPolicy.CPU, ()), allocation=allocation, guard=guard)


def lines(kernel: KernelPlan) -> list[str]:
    return list(kernel_block(kernel).lines)


def test_meta_allocation_computes_the_expected_result_then_allocates_it():
    body = lines(add_kernel(Allocation(AllocationKind.META)))
    expected = body.index("  const auto expected = at::meta::add(op.meta(self), op.meta(other), alpha);")
    assert body.index("  const at::Tensor out = op.allocate(expected);") > expected
    assert body[-3:] == ["  launch_add_Tensor(op, *self_on_device, *other_on_device, alpha, out);", "  return out;", "}"]


def test_a_remembered_meta_result_goes_through_the_kernels_memo():
    body = lines(add_kernel(Allocation(AllocationKind.META, remembered=True)))
    memo = body.index("  static thread_local torch_fl::ElementwiseMemo memo;")
    call = body.index("  const torch_fl::ExpectedResult expected = memo.result({&self, &other}, {&alpha}, [&] {")
    assert body[call + 1] == "    return at::meta::add(op.meta(self), op.meta(other), alpha);"
    assert memo < call < body.index("  const at::Tensor out = op.allocate(expected);")


def test_like_allocation_needs_no_meta_function():
    body = lines(add_kernel(Allocation(AllocationKind.LIKE, like=("self",))))
    assert "  const at::Tensor out = op.allocate_like(self);" in body
    assert not any("expected" in line for line in body)


def test_rule_allocation_calls_the_rule_with_the_overloads_inputs():
    body = lines(add_kernel(Allocation(AllocationKind.RULE, rule="glue::add_shape", inputs=("self", "other", "alpha"))))
    assert "  const auto expected = glue::add_shape(self, other, alpha);" in body


def test_the_guard_falls_back_when_it_does_not_hold():
    guard = guards.Not(guards.Compare((guards.Method("self", "dim", None), guards.Literal(0)), ("==",)))
    body = lines(add_kernel(Allocation(AllocationKind.META), guard))
    assert "  if (self.dim() == 0) {  // when: not self.dim() == 0" in body
    assert any("FallbackReason::kGuard" in line for line in body)
