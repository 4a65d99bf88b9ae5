"""Test processes that start processes of their own (launchers and their ranks, DDP,
servers): a free port to give them, and a run that cannot leave its children behind.

subprocess.run's timeout kills only the process it started: a launcher's ranks would go
on, holding devices, ports and cores, while the next test runs."""
from __future__ import annotations

import os
import signal
import socket
import subprocess


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_process_tree(args: list[str], timeout: float, **options) -> subprocess.CompletedProcess:
    """subprocess.run(args, capture_output=True, text=True, timeout=timeout, **options), with
    the process in a session of its own: on timeout its whole process group is killed, and
    TimeoutExpired is raised with what it had written."""
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          **options) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise subprocess.TimeoutExpired(args, timeout, stdout, stderr) from None
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)
