"""Issue #40, item 4: fused attention from the spec. A spec that declares
`_scaled_dot_product_fused_attention_overrideable` (and its backward) makes
F.scaled_dot_product_attention take that kernel where the entry's own checks
accept the call (ATen's `_fused_sdp_choice` answers OVERRIDEABLE), and PyTorch's
math path everywhere else. Forward and backward must match CPU, and the route
must show: in torch._fused_sdp_choice, in a profile, in strict mode.

On a vendor whose spec does not declare it, every call takes the math path."""
from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import torch_fl

import models

FUSED = "_scaled_dot_product_fused_attention_overrideable"
OVERRIDEABLE, MATH = SDPBackend.OVERRIDEABLE.value, SDPBackend.MATH.value


def native_dtypes(op: str) -> set[torch.dtype]:
    rows = [row for row in torch_fl.support_matrix()["ops"] if row["name"] == op]
    return {getattr(torch, name) for row in rows for name, verdict in row["dtypes"].items() if verdict == "native"}


FUSED_DTYPES = native_dtypes(FUSED)
needs_fused = pytest.mark.skipif(not FUSED_DTYPES, reason=f"the {torch_fl.vendor()} spec declares no fused attention")


def _tensors(shape_q, shape_k, shape_v, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g).to(dtype) for s in (shape_q, shape_k, shape_v)]


# name: (q, k, v shapes, SDPA keyword arguments, the mask's shape and kind or None)
ACCEPTED = {
    "plain": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 6), {}, None),
    "causal": ((2, 3, 6, 8), (2, 3, 6, 8), (2, 3, 6, 8), {"is_causal": True}, None),
    "causal_rectangular": ((1, 2, 5, 4), (1, 2, 7, 4), (1, 2, 7, 4), {"is_causal": True}, None),
    "float_mask": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {}, ((2, 3, 5, 7), "float")),
    "broadcast_mask": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {}, ((1, 1, 5, 7), "float")),
    "bool_mask": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {}, ((5, 7), "bool")),
    "scale": ((2, 2, 4, 8), (2, 2, 4, 8), (2, 2, 4, 8), {"scale": 0.3}, None),
    "no_head_dims": ((1, 2, 3, 0), (1, 2, 4, 0), (1, 2, 4, 5), {}, None),  # scores 0: the mean of v
}


def _mask(spec, dtype, seed=1):
    if spec is None:
        return None
    shape, kind = spec
    g = torch.Generator().manual_seed(seed)
    if kind == "bool":
        keep = torch.rand(shape, generator=g) > 0.4
        keep[..., 0] = True  # every query keeps a key
        return keep
    return torch.randn(shape, generator=g).to(dtype)


def _attention(q, k, v, mask, kwargs):
    """Output and the gradients of q, k, v (and a float mask) of one SDPA call."""
    leaves = [t.detach().requires_grad_() for t in (q, k, v)]
    if mask is not None and mask.is_floating_point():
        mask = mask.detach().requires_grad_()
        leaves.append(mask)
    out = F.scaled_dot_product_attention(*leaves[:3], attn_mask=mask, **kwargs)
    grad = torch.randn(out.shape, generator=torch.Generator().manual_seed(2)).to(out.dtype).to(out.device)
    out.backward(grad)
    return [out.detach()] + [leaf.grad for leaf in leaves]


def _on(device, tensors):
    return [None if t is None else t.to(device) for t in tensors]


TOLERANCES = {torch.float32: dict(atol=1e-5, rtol=1e-4), torch.float16: dict(atol=5e-3, rtol=5e-3),
              torch.bfloat16: dict(atol=3e-2, rtol=3e-2)}


@needs_fused
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
@pytest.mark.parametrize("case", list(ACCEPTED))
def test_the_fused_kernel_serves_sdpa_and_matches_cpu(device, fallback_mode, case, dtype):
    if dtype not in FUSED_DTYPES:
        pytest.skip(f"{dtype} is not native for {FUSED} in the {torch_fl.vendor()} spec")
    fallback_mode("strict")
    shape_q, shape_k, shape_v, kwargs, mask_spec = ACCEPTED[case]
    q, k, v = _tensors(shape_q, shape_k, shape_v, dtype)
    mask = _mask(mask_spec, dtype)
    qd, kd, vd, maskd = _on(device, [q, k, v, mask])
    assert torch._fused_sdp_choice(qd, kd, vd, maskd, **kwargs) == OVERRIDEABLE
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        on_device = _attention(qd, kd, vd, maskd, kwargs)
    names = {event.key for event in profile.key_averages()}
    assert f"aten::{FUSED}" in names and f"aten::{FUSED}_backward" in names, sorted(names)
    assert "aten::_scaled_dot_product_attention_math" not in names
    on_cpu = _attention(q, k, v, mask, kwargs)
    for name, expected, actual in zip(["output", "grad_query", "grad_key", "grad_value", "grad_mask"],
                                      on_cpu, on_device):
        torch.testing.assert_close(actual.cpu(), expected, **TOLERANCES[dtype], msg=lambda m, n=name: f"{n}: {m}")


# Masks as user code writes them (found by adversarial testing): a padded row filled
# with a large finite negative (masked_fill(-1e9), (1 - m) * finfo.min) must give
# CPU's uniform average, not a sum; +inf gives NaN as on CPU.
EXTREME_MASKS = {"row_of_minus_1e9": -1e9, "row_of_finfo_min": torch.finfo(torch.float32).min,
                 "row_of_minus_inf": float("-inf"), "plus_inf_entry": float("inf")}


@needs_fused
@pytest.mark.parametrize("case", list(EXTREME_MASKS))
def test_extreme_mask_values_give_cpus_results(device, fallback_mode, case):
    fallback_mode("strict")
    q, k, v = _tensors((1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4), torch.float32)
    mask = torch.zeros(3, 5)
    if case == "plus_inf_entry":
        mask[0, 2] = EXTREME_MASKS[case]
    else:
        mask[1] = EXTREME_MASKS[case]
    qd, kd, vd, maskd = _on(device, [q, k, v, mask])
    assert torch._fused_sdp_choice(qd, kd, vd, maskd) == OVERRIDEABLE
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    actual = F.scaled_dot_product_attention(qd, kd, vd, attn_mask=maskd)
    torch.testing.assert_close(actual.cpu(), expected, atol=1e-5, rtol=1e-4, equal_nan=True)


@needs_fused
@pytest.mark.parametrize("case", ["mask_does_not_broadcast", "key_head_size", "value_length"])
def test_arguments_the_kernel_cannot_take_raise_at_the_call(device, case):
    """Not later, at whichever op synchronises next: the output rule checks them."""
    q, k, v = _tensors((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), torch.float32)
    mask = None
    if case == "mask_does_not_broadcast":
        mask = torch.zeros(5, 8)
    elif case == "key_head_size":
        k = torch.randn(2, 3, 7, 6)
    else:
        v = torch.randn(2, 3, 6, 8)
    qd, kd, vd, maskd = _on(device, [q, k, v, mask])
    with pytest.raises(RuntimeError, match="fused attention: "):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(qd, kd, vd, maskd)
    torch.ones(3).to(device)  # nothing was queued that fails later
    getattr(torch, device.type).synchronize()


# name: (q, k, v shapes, SDPA keyword arguments, dtype): what the spec's `when:`, its
# dtypes or the missing enable_gqa argument leave to the math path.
MATH_CASES = {
    "dropout": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {"dropout_p": 0.25}, torch.float32),
    "three_dims": ((3, 5, 8), (3, 7, 8), (3, 7, 8), {}, torch.float32),
    "grouped_heads": ((2, 4, 5, 8), (2, 2, 7, 8), (2, 2, 7, 8), {"enable_gqa": True}, torch.float32),
    "float64": ((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), {}, torch.float64),
}


@pytest.mark.parametrize("case", list(MATH_CASES))
def test_what_the_kernel_does_not_accept_takes_the_math_path(device, fallback_mode, case):
    fallback_mode("silent")  # float64 is not native on every chip: the math path falls back there
    shape_q, shape_k, shape_v, kwargs, dtype = MATH_CASES[case]
    q, k, v = _tensors(shape_q, shape_k, shape_v, dtype)
    qd, kd, vd = _on(device, [q, k, v])
    assert torch._fused_sdp_choice(qd, kd, vd, None, **kwargs) == MATH
    if kwargs.get("dropout_p"):
        return  # random: the choice is the point; dropout's own tests compare it
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        on_device = _attention(qd, kd, vd, None, kwargs)
    if case != "three_dims":  # torch 2.14 makes 3-D inputs 4-D before its choice (which the kernel takes)
        assert f"aten::{FUSED}" not in {event.key for event in profile.key_averages()}
    for expected, actual in zip(_attention(q, k, v, None, kwargs), on_device):
        torch.testing.assert_close(actual.cpu(), expected, atol=1e-5, rtol=1e-4)


@needs_fused
def test_sdpa_kernel_context_decides_between_fused_and_math(device):
    q, k, v = _on(device, _tensors((1, 2, 4, 8), (1, 2, 4, 8), (1, 2, 4, 8), torch.float32))
    with sdpa_kernel([SDPBackend.MATH]):
        assert torch._fused_sdp_choice(q, k, v) == MATH
    with sdpa_kernel([SDPBackend.OVERRIDEABLE]):
        assert torch._fused_sdp_choice(q, k, v) == OVERRIDEABLE
        # Dropout is not accepted, and the math path is off: a clear error, not a silent choice.
        with pytest.raises(RuntimeError, match=rf"\[{torch_fl.vendor()}\] scaled_dot_product_attention: .*"
                                               r"does not accept it .* math path is disabled"):
            F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)


@needs_fused
def test_a_direct_call_the_kernel_rejects_raises_naming_op_and_vendor(device):
    q, k, v = _on(device, _tensors((3, 5, 8), (3, 7, 8), (3, 7, 8), torch.float32))
    with pytest.raises(NotImplementedError, match=rf"\[{torch_fl.vendor()}\] {FUSED}: .*fallback: error"):
        torch.ops.aten._scaled_dot_product_fused_attention_overrideable(q, k, v)


def test_without_a_fused_kernel_every_call_is_math(device):
    if FUSED_DTYPES:
        pytest.skip(f"the {torch_fl.vendor()} spec declares a fused attention (the other tests cover it)")
    q, k, v = _on(device, _tensors((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 8), torch.float32))
    assert torch._fused_sdp_choice(q, k, v, None, is_causal=False) == MATH


@needs_fused
def test_the_gpt_model_trains_through_the_fused_kernel_as_on_cpu(device, fallback_mode):
    """TinyGPT (causal SDPA, dropout 0) for three SGD-momentum steps: the same losses
    and weights as CPU, in strict mode, with the fused forward and backward in the
    profile. (Not AdamW: the key projection's bias has a gradient of zero in exact
    arithmetic, a softmax shift, and Adam scales its rounding noise up to the learning rate.)"""
    fallback_mode("strict")
    torch.manual_seed(0)
    cpu_model = models.TinyGPT(dropout=0.0)
    device_model = models.TinyGPT(dropout=0.0)
    device_model.load_state_dict(cpu_model.state_dict())
    device_model.to(device)
    tokens = torch.randint(0, 50, (4, 16), generator=torch.Generator().manual_seed(3))
    losses = {}
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        for model, where in ((cpu_model, "cpu"), (device_model, device)):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            x = tokens.to(where)
            losses[str(where)] = []
            for _ in range(3):
                optimizer.zero_grad()
                logits = model(x[:, :-1])
                loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), x[:, 1:].reshape(-1))
                loss.backward()
                optimizer.step()
                losses[str(where)].append(loss.item())
    names = {event.key for event in profile.key_averages()}
    assert f"aten::{FUSED}" in names and f"aten::{FUSED}_backward" in names
    torch.testing.assert_close(losses[str(device)], losses["cpu"], atol=1e-5, rtol=1e-5)
    for (name, p_cpu), p_device in zip(cpu_model.named_parameters(), device_model.parameters()):
        torch.testing.assert_close(p_device.detach().cpu(), p_cpu.detach(), atol=1e-4, rtol=1e-4, msg=name)


@needs_fused
@pytest.mark.parametrize("padded", [False, True], ids=["unpadded", "padded"])
def test_hf_llama_runs_its_attention_through_the_fused_kernel(device, fallback_mode, padded):
    """A tiny Hugging Face LLaMA with attn_implementation="sdpa" (multi-head: grouped
    heads take the math path, see MATH_CASES): its causal attention, and the padded
    batch's float mask, reach the fused forward and backward; loss and gradients match CPU."""
    transformers = pytest.importorskip(
        "transformers", reason="Hugging Face transformers is not installed (pip install -r requirements.txt)")
    fallback_mode("silent")  # the padded batch's mask building falls back on some chips (vendor_facts)
    torch.manual_seed(0)
    cpu_model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=4, max_position_embeddings=32, attention_dropout=0.0, attn_implementation="sdpa"))
    device_model = copy.deepcopy(cpu_model).to(device)
    input_ids = torch.randint(0, 64, (2, 12), generator=torch.Generator().manual_seed(4))
    batch = {"input_ids": input_ids, "labels": input_ids}
    if padded:
        mask = torch.ones(2, 12, dtype=torch.long)
        mask[1, 8:] = 0
        batch = {"input_ids": input_ids, "labels": input_ids.masked_fill(mask == 0, -100), "attention_mask": mask}
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        device_loss = device_model(**{key: value.to(device) for key, value in batch.items()}).loss
        device_loss.backward()
    names = {event.key for event in profile.key_averages()}
    assert f"aten::{FUSED}" in names and f"aten::{FUSED}_backward" in names, sorted(names)
    cpu_loss = cpu_model(**batch).loss
    cpu_loss.backward()
    torch.testing.assert_close(device_loss.item(), cpu_loss.item(), atol=1e-5, rtol=1e-5)
    for (name, p_cpu), p_device in zip(cpu_model.named_parameters(), device_model.parameters()):
        torch.testing.assert_close(p_device.grad.cpu(), p_cpu.grad, atol=1e-5, rtol=1e-4, msg=name)
