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
    with pytest.raises(TypeError, match="a name or a logging level number"):
        torch_fl.set_log_level(None)


@pytest.mark.parametrize("level,runtime_lines,python_level", [
    ("DEBUG", True, logging.DEBUG), ("Debug", True, logging.DEBUG), (logging.DEBUG, True, logging.DEBUG),
    ("INFO", False, logging.INFO), (logging.INFO, False, logging.INFO), (15, False, 15),
    ("WARNING", False, logging.WARNING), ("warn", False, logging.WARNING), (logging.ERROR, False, logging.ERROR),
], ids=str)
def test_levels_in_any_case_and_as_logging_numbers(device, caplog, level, runtime_lines, python_level):
    """As Python's logging takes them: torch_fl.set_log_level("DEBUG") as the articles write it."""
    from torch_fl import log
    a = torch.randn(3, device=device)
    torch_fl.set_log_level(level)
    assert log.LOGGER.level == python_level
    with caplog.at_level(logging.DEBUG, logger="torch_fl"):
        (a + a).cpu()
    dispatch_lines = [r for r in caplog.records if r.name == "torch_fl" and "add.Tensor" in r.getMessage()]
    assert bool(dispatch_lines) == runtime_lines


def test_a_stderr_handler_is_added_only_when_nobody_handles_the_lines(monkeypatch):
    from torch_fl import log
    monkeypatch.setattr(logging.getLogger(), "handlers", [logging.NullHandler()])
    monkeypatch.setattr(log.LOGGER, "handlers", [])
    torch_fl.set_log_level("info")
    assert log.LOGGER.handlers == []  # the application's root handler gets the lines
    monkeypatch.setattr(logging.getLogger(), "handlers", [])
    torch_fl.set_log_level("info")
    (handler,) = log.LOGGER.handlers
    assert isinstance(handler, logging.StreamHandler)
    record = logging.LogRecord("torch_fl", logging.INFO, __file__, 1, "add.Tensor native", None, None)
    assert handler.format(record) == "[torch_fl] add.Tensor native"


def test_runtime_levels_map_to_python_levels(caplog):
    from torch_fl import log
    with caplog.at_level(logging.DEBUG, logger="torch_fl"):
        log._forward(1, b"an info line")
        log._forward(2, b"a debug line")
        log._forward(9, b"a level the runtime may add later \xff")
    assert [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "torch_fl"] == [
        (logging.INFO, "an info line"), (logging.DEBUG, "a debug line"),
        (logging.DEBUG, "a level the runtime may add later \ufffd")]
