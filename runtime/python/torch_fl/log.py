"""torch_fl's log lines through Python's logging (logger "torch_fl"), so that
applications route them like their own. TORCH_FL_LOG=info|debug still works
without Python and prints to stderr until set_log_level is called."""
from __future__ import annotations

import ctypes
import logging
from typing import Union

from . import _backend

LOGGER = logging.getLogger("torch_fl")
_RUNTIME_LEVELS = {"warning": 0, "info": 1, "debug": 2}
_PYTHON_LEVELS = {1: logging.INFO, 2: logging.DEBUG}
_SINK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p)


def _forward(level: int, line: bytes) -> None:
    LOGGER.log(_PYTHON_LEVELS.get(level, logging.DEBUG), line.decode(errors="replace"))


_sink = _SINK_TYPE(_forward)  # kept alive for as long as the runtime may call it


def _runtime_level(level: Union[str, int]) -> tuple[str, int]:
    """(the runtime's level, the Python level) for a name in any case or a logging number.
    The runtime has three: a Python level between two takes the more verbose one's lines
    (logging.WARNING and above: warnings only)."""
    if isinstance(level, str):
        # getLevelName maps a registered name to its number (and anything else to a
        # string); getLevelNamesMapping would say so plainly but needs Python 3.11.
        number = logging.getLevelName(level.upper())
        if not isinstance(number, int):
            raise ValueError(f"torch_fl.set_log_level: level must be one of {sorted(_RUNTIME_LEVELS)} "
                             f"(any case) or a logging level such as logging.DEBUG, got {level!r}")
    elif isinstance(level, int) and not isinstance(level, bool):
        number = level
    else:
        raise TypeError(f"torch_fl.set_log_level: level must be a name or a logging level number, got {level!r}")
    if number <= logging.DEBUG:
        return "debug", number
    if number <= logging.INFO:
        return "info", number
    return "warning", number


def set_log_level(level: Union[str, int]) -> None:
    """"debug" (one line per dispatch decision), "info", or "warning" (only
    warnings, which arrive as Python warnings), in any case, or a level of Python's
    logging (logging.DEBUG, 20, "ERROR", ...), as logging.Logger.setLevel takes.
    Lines go to the "torch_fl" logger, set to that level; if neither it nor the
    root logger has a handler, one that writes to stderr is added, so that the
    lines show as they did before."""
    runtime_level, python_level = _runtime_level(level)
    lib = _backend.load()
    lib.call("tfl_set_log_sink", ctypes.cast(_sink, ctypes.c_void_p))
    lib.call("tfl_set_log_level", _RUNTIME_LEVELS[runtime_level])
    LOGGER.setLevel(python_level)
    if not LOGGER.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[torch_fl] %(message)s"))
        LOGGER.addHandler(handler)
