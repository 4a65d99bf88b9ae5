"""run.py runs several OpInfos per worker process; a crash or a hang must cost
only the OpInfo it hit, and every other OpInfo of the batch must still run.
A stand-in worker (a few lines of Python) plays the crash and the hang."""
from __future__ import annotations

import sys
import textwrap

from run import Job, run_batch

# Reads the jobs like worker.py; "crash" exits mid-job, "hang" sleeps, "late-crash"
# aborts after its last job; each other job prints one record and its done line.
STAND_IN = textwrap.dedent("""\
    import json, os, sys, time
    for line in sys.stdin:
        job = json.loads(line)
        name = job["opinfo"]
        print(json.dumps({"opinfo": name, "ok": True, "phase": "forward"}), flush=True)
        if name.startswith("crash"):
            print("boom", file=sys.stderr, flush=True)
            os._exit(3)
        if name.startswith("hang"):
            time.sleep(60)
        print(json.dumps({"done": name}), flush=True)
        if name.startswith("late-crash"):
            sys.stdout.flush()
            os._exit(4)
        if name.startswith("exit-hang"):
            time.sleep(60)
    """)


def jobs(*names: str) -> list[Job]:
    return [Job(name, frozenset({"float32"}), frozenset({f"{name}.default"})) for name in names]


def run(tmp_path, names, timeout=20.0):
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    return run_batch([sys.executable, str(script)], jobs(*names), timeout)


def test_every_job_of_a_batch_reports_its_own_records(tmp_path):
    results = run(tmp_path, ["a", "b", "c"])
    assert [name for name, _, _ in results] == ["a", "b", "c"]
    assert all(len(records) == 1 and records[0]["opinfo"] == name and not problem
               for name, records, problem in results)


def test_a_crash_fails_its_opinfo_and_the_rest_of_the_batch_still_runs(tmp_path):
    results = run(tmp_path, ["a", "crash-b", "c", "d"])
    assert [name for name, _, _ in results] == ["a", "crash-b", "c", "d"]
    name, records, problem = results[1]
    assert "crashed (exit 3)" in problem and "boom" in problem
    lost = records[-1]
    assert lost["phase"] == "crash" and not lost["ok"] and lost["invoked"] == [["crash-b.default", "float32"]]
    assert all(not problem and records[0]["ok"] for _, records, problem in results[2:])


def test_a_hang_costs_its_timeout_and_the_rest_still_runs(tmp_path):
    results = run(tmp_path, ["hang-a", "b"], timeout=5.0)
    assert results[0][2] == "timed out after 5.0 s" and results[0][1][-1]["phase"] == "timeout"
    assert results[1][0] == "b" and not results[1][2]


def test_a_crash_at_exit_after_the_last_job_is_reported_without_failing_samples(tmp_path):
    results = run(tmp_path, ["a", "late-crash-b"])
    assert results[0][2] == ""
    name, records, problem = results[1]
    assert problem.startswith("exited 4 after finishing all samples")
    assert all(r["ok"] for r in records)


def test_a_crash_between_two_jobs_is_not_blamed_on_the_next_one(tmp_path):
    """The worker died after b's done line (b's exit, say), before c printed
    anything: c runs again in a fresh process and passes; b carries the problem."""
    results = run(tmp_path, ["a", "late-crash-b", "c"])
    assert [name for name, _, _ in results] == ["a", "late-crash-b", "c"]
    assert "crashed (exit 4)" in results[1][2] and "after this OpInfo finished" in results[1][2]
    assert all(r["ok"] for r in results[1][1]), "b's samples passed"
    assert results[0][2] == results[2][2] == ""


def test_a_worker_that_hangs_after_its_last_job_is_killed(tmp_path):
    results = run(tmp_path, ["a", "exit-hang-b"], timeout=3.0)
    assert [problem for _, _, problem in results][0] == ""
    assert results[1][2].startswith("exited -9 after finishing all samples")
