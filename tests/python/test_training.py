"""An MLP trains on the device exactly as on CPU, without a single fallback."""
from __future__ import annotations

import copy

import torch

import torch_fl
from torch_fl import demo


def test_mlp_training_matches_cpu_with_zero_fallbacks(device, fallback_mode):
    fallback_mode("strict")
    torch.manual_seed(0)
    cpu_model = demo.make_model()
    dev_model = copy.deepcopy(cpu_model).to(device)
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.1, momentum=0.9)
    dev_opt = torch.optim.SGD(dev_model.parameters(), lr=0.1, momentum=0.9)
    features, labels = demo.make_data()
    torch_fl.reset_fallback_stats()
    for _ in range(10):
        dev_loss = demo.train_step(dev_model, dev_opt, features.to(device), labels.to(device))
        cpu_loss = demo.train_step(cpu_model, cpu_opt, features, labels)
        assert abs(dev_loss.item() - cpu_loss.item()) < 1e-4
    assert torch_fl.fallback_count() == 0
    for p_dev, p_cpu in zip(dev_model.parameters(), cpu_model.parameters()):
        torch.testing.assert_close(p_dev.cpu(), p_cpu, rtol=1e-4, atol=1e-5)


def test_demo_main_reports_ok(capsys):
    assert demo.main(["--steps", "3"]) == 0
    out = capsys.readouterr().out
    assert "RESULT: OK" in out and "fallbacks to CPU during training: 0" in out
