"""torch_fl.set_log_level routes the runtime's lines into Python's logging."""
from __future__ import annotations

import logging

import pytest
import torch

import torch_fl


@pytest.fixture(autouse=True)
def quiet_afterwards():
    yield
    torch_fl.set_log_level("warning")


def test_debug_lines_reach_the_torch_fl_logger(device, caplog):
    a = torch.randn(3, device=device)
    torch_fl.set_log_level("debug")
    with caplog.at_level(logging.DEBUG, logger="torch_fl"):
        (a + a).cpu()
    lines = [r.getMessage() for r in caplog.records if r.name == "torch_fl"]
    assert any("add.Tensor" in line and "native" in line for line in lines), lines
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == "torch_fl")


def test_warning_level_silences_the_dispatch_lines(device, caplog):
    a = torch.randn(3, device=device)
    torch_fl.set_log_level("warning")
    with caplog.at_level(logging.DEBUG, logger="torch_fl"):
        (a + a).cpu()
    assert [r for r in caplog.records if r.name == "torch_fl"] == []


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="must be one of"):
        torch_fl.set_log_level("verbose")
