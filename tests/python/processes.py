"""Test processes that start processes of their own (launchers and their ranks, DDP,
servers): a free port to give them, and a run that cannot leave its children behind.

subprocess.run's timeout kills only the process it started: a launcher's ranks would go
on, holding devices, ports and cores (and the output pipes, so that reading what the
launcher wrote would wait for them), while the next test runs."""
from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import threading
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    """Every process below pid, read from /proc: torch's elastic launcher (under torchrun and
    accelerate launch) starts each rank in a session of its own, out of reach of killpg."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rpartition(")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        children.setdefault(parent, []).append(int(entry))
    found, pending = [], [pid]
    while pending:
        below = children.get(pending.pop(), [])
        found += below
        pending += below
    return found


def run_process_tree(args: list[str], timeout: float, **options) -> subprocess.CompletedProcess:
    """subprocess.run(args, capture_output=True, text=True, timeout=timeout, **options), except
    that on timeout the process and every process below it are killed, and TimeoutExpired is
    raised with what they had written."""
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                          **options) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for pid in _descendants(process.pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate(timeout=30)
            raise subprocess.TimeoutExpired(args, timeout, stdout, stderr) from None
    return subprocess.CompletedProcess(args, process.returncode, stdout, stderr)


def read_lines(process: subprocess.Popen, count: int, timeout: float) -> list[str]:
    """The next `count` lines of process.stdout (a text pipe). A process that hangs before
    writing them, or ends, fails the test with its stderr (the process killed) instead of
    hanging it, as a bare readline() would."""
    lines: queue.Queue = queue.Queue()

    def reader() -> None:
        for _ in range(count):
            line = process.stdout.readline()
            lines.put(line)
            if not line:
                return
    threading.Thread(target=reader, daemon=True).start()
    deadline = time.monotonic() + timeout
    got: list[str] = []
    while len(got) < count:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if not line:
            process.kill()
            what = f"wrote no line {len(got) + 1} in {timeout} s" if line is None else f"ended after {len(got)} lines"
            raise AssertionError(f"{process.args!r} {what}; its stderr: {process.stderr.read()[-3000:]}")
        got.append(line)
    return got
