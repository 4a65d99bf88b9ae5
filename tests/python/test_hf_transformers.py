"""Hugging Face transformers models train on the device as users write it, and match
the same training on CPU step for step.

Tiny GPT-2, BERT (masked LM and sequence classifier) and LLaMA (RoPE, RMSNorm, a SiLU
gated MLP, grouped-query attention) are built from configs with random weights (no
download, no network), on CPU from one seed; a deep copy goes `.to(device)`. Both take
five AdamW steps on the same batch, the model computing its own loss from `labels`,
gradients clipped as HF's Trainer does, dropout probabilities 0 in train mode. The
losses of every step and the final parameters must match CPU's; both attention
implementations, "eager" and "sdpa", are run.

Fallbacks: the models' compute (embeddings, matmuls, softmax, norms, activations,
attention, losses, AdamW) must run natively. The kernels transformers reaches while it
builds the attention mask from a padded batch are ones some specs lack;
vendor_facts.HF_TRANSFORMERS_FALLBACKS lists them per vendor and the CPU fallback is
allowed for those alone (every other fallback fails, with the full report). Where a
case has none listed, the test runs with TORCH_FL_FALLBACK=strict.

Needs `transformers` (pinned with its dependencies in requirements.txt); without it the file skips."""
from __future__ import annotations

import copy
import os
import time

import pytest
import torch

import torch_fl
import vendor_facts

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing here downloads; make sure of it
transformers = pytest.importorskip(
    "transformers", reason="Hugging Face transformers is not installed (pip install -r requirements.txt)")

from transformers import (BertConfig, BertForMaskedLM, BertForSequenceClassification, GPT2Config,  # noqa: E402
                          GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM)

VOCAB, HIDDEN, HEADS, LAYERS, SEQ, BATCH, LABELS = 128, 32, 4, 2, 16, 4, 3
STEPS = 5


def gpt2(attn: str) -> torch.nn.Module:
    return GPT2LMHeadModel(GPT2Config(
        vocab_size=VOCAB, n_positions=2 * SEQ, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, attn_implementation=attn))


def _bert_config(attn: str, **extra) -> BertConfig:
    return BertConfig(
        vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        intermediate_size=2 * HIDDEN, max_position_embeddings=2 * SEQ,
        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, attn_implementation=attn, **extra)


def bert_mlm(attn: str) -> torch.nn.Module:
    return BertForMaskedLM(_bert_config(attn))


def bert_classifier(attn: str) -> torch.nn.Module:
    return BertForSequenceClassification(_bert_config(attn, num_labels=LABELS, classifier_dropout=0.0))


def llama(attn: str) -> torch.nn.Module:
    return LlamaForCausalLM(LlamaConfig(
        vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=2 * HIDDEN, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=HEADS // 2, max_position_embeddings=2 * SEQ,
        attention_dropout=0.0, attn_implementation=attn))


MODELS = {"gpt2": gpt2, "bert_mlm": bert_mlm, "bert_classifier": bert_classifier, "llama": llama}


def make_batch(model: str, padded: bool) -> dict[str, torch.Tensor]:
    """What a collator gives: input_ids, an attention_mask when sequences are right-padded
    (their padding labelled -100), and labels: the tokens (causal LMs shift them
    themselves), 30% of positions to predict (masked LM), or one class per sequence."""
    g = torch.Generator().manual_seed(0)
    input_ids = torch.randint(0, VOCAB, (BATCH, SEQ), generator=g)
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    if padded:
        attention_mask[1, 12:] = 0
        attention_mask[3, 9:] = 0
    if model in ("gpt2", "llama"):
        labels = input_ids.masked_fill(attention_mask == 0, -100)
    elif model == "bert_mlm":
        predicted = (torch.rand(BATCH, SEQ, generator=g) < 0.3) & (attention_mask == 1)
        labels = torch.where(predicted, input_ids, torch.full_like(input_ids, -100))
    else:
        labels = torch.randint(0, LABELS, (BATCH,), generator=g)
    batch = {"input_ids": input_ids, "labels": labels}
    if padded:
        batch["attention_mask"] = attention_mask
    return batch


def allowed_fallbacks(padded: bool) -> set[tuple[str, str]] | None:
    """(op, dtype) pairs allowed to run on CPU here; None: any (a vendor not yet measured)."""
    table = vendor_facts.facts(vendor_facts.HF_TRANSFORMERS_FALLBACKS)
    return None if table is None else table["padded" if padded else "unpadded"]


def train(model, optimizer, batch) -> float:
    optimizer.zero_grad()
    loss = model(**batch).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    return loss.item()


@pytest.mark.parametrize("padded", [True, False], ids=["padded", "unpadded"])
@pytest.mark.parametrize("attn", ["eager", "sdpa"])
@pytest.mark.parametrize("name", list(MODELS))
def test_hf_model_trains_on_the_device_as_on_cpu(device, fallback_mode, record_property, name, attn, padded):
    allowed = allowed_fallbacks(padded)
    fallback_mode("strict" if allowed == set() else "silent")

    torch.manual_seed(0)
    cpu_model = MODELS[name](attn)
    dev_model = copy.deepcopy(cpu_model).to(device)
    for model in (cpu_model, dev_model):
        model.train()
        # transformers keeps the implementation asked for (it would switch to eager if sdpa
        # were unsupported): "sdpa" runs torch's scaled_dot_product_attention on the device.
        assert model.config._attn_implementation == attn
    if cpu_model.config.tie_word_embeddings and cpu_model.get_output_embeddings() is not None:
        # Module.to keeps Parameter objects: the tied output projection stays tied on the device.
        assert dev_model.get_output_embeddings().weight is dev_model.get_input_embeddings().weight
    assert next(dev_model.parameters()).device == device

    cpu_batch = make_batch(name, padded)
    dev_batch = {key: value.to(device) for key, value in cpu_batch.items()}
    cpu_opt = torch.optim.AdamW(cpu_model.parameters(), lr=1e-3, weight_decay=0.01)
    dev_opt = torch.optim.AdamW(dev_model.parameters(), lr=1e-3, weight_decay=0.01)

    torch_fl.reset_fallback_stats()
    started = time.perf_counter()
    dev_losses = [train(dev_model, dev_opt, dev_batch) for _ in range(STEPS)]
    getattr(torch, device.type).synchronize()
    record_property("device_seconds", round(time.perf_counter() - started, 3))
    fallbacks = torch_fl.fallback_stats()
    record_property("fallbacks", fallbacks)
    cpu_losses = [train(cpu_model, cpu_opt, cpu_batch) for _ in range(STEPS)]

    fallen = {(op, dtype) for op, per_dtype in fallbacks.items() for dtype in per_dtype}
    if allowed is not None:
        assert fallen <= allowed, (
            f"{name} ({attn}, {'padded' if padded else 'unpadded'}) fell back to CPU beyond what "
            f"vendor_facts.HF_TRANSFORMERS_FALLBACKS allows {sorted(allowed)}:\n{torch_fl.fallback_report()}")
    context = f"{name} ({attn}); CPU fallbacks on the device side: {fallbacks or 'none'}"

    torch.testing.assert_close(torch.tensor(dev_losses), torch.tensor(cpu_losses), rtol=1e-5, atol=1e-5,
                               msg=lambda m: f"losses per step differ, {context}\n{m}\n"
                                             f"device {dev_losses}\ncpu    {cpu_losses}")
    assert dev_losses[-1] < dev_losses[0], f"the loss should go down: {dev_losses}"
    cpu_params = dict(cpu_model.named_parameters())
    dev_params = dict(dev_model.named_parameters())
    assert dev_params.keys() == cpu_params.keys()
    for key, p_cpu in cpu_params.items():
        assert dev_params[key].device == device
        torch.testing.assert_close(dev_params[key].detach().cpu(), p_cpu.detach(), rtol=1e-4, atol=1e-5,
                                   msg=lambda m, key=key: f"parameter {key} after {STEPS} steps, {context}\n{m}")


@pytest.mark.parametrize("spelling", ["torch.device", "string of device 1"])
def test_pipeline_runs_on_the_device_as_on_cpu(device, tmp_path, spelling):
    """`pipeline(..., device=<device>)`, as a user runs inference: the pipeline puts the
    model on the device and its inputs with it, and its scores match the CPU pipeline's.
    The tokenizer is built from a vocabulary written here (no download)."""
    from transformers import BertTokenizer, pipeline
    words = ["the", "chip", "runs", "pytorch", "fast", "slow", "model", "a"]
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words) + "\n")
    tokenizer = BertTokenizer(str(vocab))
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(vocab_size=len(words) + 5, hidden_size=HIDDEN,
                                                     num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                                                     intermediate_size=2 * HIDDEN, num_labels=LABELS)).eval()
    texts = ["the chip runs pytorch fast", "a slow model", "pytorch"]
    expected = pipeline("text-classification", model=copy.deepcopy(model), tokenizer=tokenizer, device="cpu",
                        top_k=None)(texts)
    target = device if spelling == "torch.device" else f"{device.type}:{torch_fl.device_count() - 1}"
    classify = pipeline("text-classification", model=model, tokenizer=tokenizer, device=target, top_k=None)
    assert classify.device == torch.device(target) and next(classify.model.parameters()).device == classify.device
    got = classify(texts)
    for ours, theirs in zip(got, expected):
        assert [entry["label"] for entry in ours] == [entry["label"] for entry in theirs]
        torch.testing.assert_close([entry["score"] for entry in ours], [entry["score"] for entry in theirs],
                                   rtol=1e-4, atol=1e-5)
