"""`torch-fl` (python -m torch_fl): info, inventory and matrix, run as a user
runs them, in a fresh process."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
import torch

import torch_fl
from processes import read_lines

# What this file tests is the same code for every vendor: chip_independent (conftest.py).
pytestmark = pytest.mark.chip_independent

SCRIPT = """
import sys, torch, torch_fl
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).to(torch_fl.device())
x = torch.randn(16, 4, device=torch_fl.device())
for _ in range(int(sys.argv[1])):
    loss = torch.special.erfcx(model(x)).sum()  # erfcx: no chip declares it, so it falls back
    loss.backward()
if sys.argv[2] == "fail":
    raise RuntimeError("the training script failed")
"""


def torch_fl_cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ, TORCH_FL_FALLBACK="silent")
    return subprocess.run([sys.executable, "-m", "torch_fl", *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT)
    return path


def test_info_reports_devices_memory_and_versions_as_json(device):
    run = torch_fl_cli("info", "--json")
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    assert info["vendor"] == torch_fl.vendor() and info["device_count"] == torch_fl.device_count()
    assert info["native_overloads"] == torch_fl.support_matrix()["native_overloads"]
    for entry in info["devices"]:
        assert entry["total_bytes"] > 0
        assert entry["fragmentation_bytes"] == entry["reserved_bytes"] - entry["allocated_bytes"]
        if entry["busy_share_since_start"] is None:  # a chip whose driver cannot tell (nvidia): says why
            assert entry["utilisation_unknown"] and entry["busy_share_interval"] is None
            continue
        assert 0.0 <= entry["busy_share_since_start"] <= 1.0
        assert entry["busy_share_since_start"] == round(entry["busy_ns"] / entry["elapsed_ns"], 4)
        assert entry["busy_share_interval"] is None  # one reading: no interval yet


def test_info_under_watch_reports_the_busy_share_since_the_last_reading(device):
    """`info --watch` computes each refresh's share from two readings: a busy interval shows
    near 1 and an idle one near 0, whatever the share since start."""
    from torch_fl import cli
    module = getattr(torch, device.type)
    try:
        module.busy_time(device)
    except RuntimeError as error:
        pytest.skip(f"the {torch_fl.vendor()} driver reports no busy time: {error}")
    module.synchronize()
    first = cli._info()
    a = torch.randn(384, 384, device=device)
    for _ in range(30):
        a = (a @ a).tanh()
    module.synchronize()
    busy = cli._info(first)
    time.sleep(0.3)
    idle = cli._info(busy)
    index = device.index or 0
    assert busy["devices"][index]["busy_share_interval"] > 0.4, busy["devices"][index]
    assert idle["devices"][index]["busy_share_interval"] < 0.1, idle["devices"][index]
    assert "% since the last reading" in cli._format_utilisation(idle["devices"][index])


def test_inventory_lists_native_and_fallback_overloads_with_their_counts(device, script, tmp_path):
    report_path = tmp_path / "inventory.json"
    run = torch_fl_cli("inventory", "--json", str(report_path), "--", "python", str(script), "3", "ok")
    assert run.returncode == 0, run.stderr
    report = json.loads(report_path.read_text())
    ops = {row["overload"]: row for row in report["ops"]}
    assert ops["aten::special_erfcx"]["fallback_calls"] == 3, ops["aten::special_erfcx"]
    assert ops["aten::special_erfcx"]["reasons"] == {"not in spec": 3}
    assert ops["aten::addmm"]["native_calls"] == 6 and ops["aten::addmm"]["fallback_calls"] == 0
    assert ops["aten::addmm"]["spec"].startswith(f"specs/{torch_fl.vendor()}.yaml:")
    assert report["calls"] == sum(row["calls"] for row in report["ops"])
    assert 0 < report["fallback_share"] < 1
    assert "on the CPU fallback" in run.stderr


def test_inventory_of_the_demo_module(device, tmp_path):
    report_path = tmp_path / "demo.json"
    run = torch_fl_cli("inventory", "--json", str(report_path), "--", "python", "-m", "torch_fl.demo")
    assert run.returncode == 0, run.stderr
    report = json.loads(report_path.read_text())
    assert report["calls"] > 100 and any(row["overload"] == "aten::convolution_overrideable" or
                                         row["overload"].startswith("aten::addmm") for row in report["ops"])


def test_inventory_fails_on_fallback_when_asked(device, script):
    run = torch_fl_cli("inventory", "--fail-on-fallback", "--", "python", str(script), "1", "ok")
    assert run.returncode == 3


def test_inventory_of_a_failing_script_still_reports_and_keeps_its_status(device, script, tmp_path):
    report_path = tmp_path / "inventory.json"
    run = torch_fl_cli("inventory", "--json", str(report_path), "--", "python", str(script), "1", "fail")
    assert run.returncode == 1
    assert "the training script failed" in run.stderr
    report = json.loads(report_path.read_text())
    assert report["script_exit_status"] == 1 and report["calls"] > 0


def test_matrix_prints_the_summary_and_writes_the_page(device, tmp_path):
    run = torch_fl_cli("matrix")
    assert run.returncode == 0 and torch_fl.vendor() in run.stdout
    page = tmp_path / "matrix.html"
    assert torch_fl_cli("matrix", "--html", str(page)).returncode == 0
    assert page.read_text().lstrip().lower().startswith("<!doctype html")


def test_unknown_arguments_print_usage_and_exit_2():
    run = torch_fl_cli("bogus")
    assert run.returncode == 2 and "usage: torch-fl" in run.stderr
    assert torch_fl_cli("inventory").returncode == 2


# The same commands in this process (cli.main), where a test sees the package code it
# runs (`make mutation` judges the package by such tests; a subprocess imports its own).

def test_inventory_in_process_counts_native_and_fallback_calls(device, script, tmp_path, capsys, monkeypatch,
                                                              fallback_mode):
    from torch_fl import cli
    fallback_mode("silent")  # the script's erfcx falls back: under strict it would raise instead
    monkeypatch.setattr(sys, "argv", list(sys.argv))  # inventory hands the script its own argv
    report_path = tmp_path / "inventory.json"
    status = cli.main(["inventory", "--json", str(report_path), "--", "python", str(script), "2", "ok"])
    assert status == 0
    report = json.loads(report_path.read_text())
    ops = {row["overload"]: row for row in report["ops"]}
    assert ops["aten::special_erfcx"]["fallback_calls"] == 2 and ops["aten::special_erfcx"]["native_calls"] == 0
    assert ops["aten::addmm"]["native_calls"] == 4 and ops["aten::addmm"]["calls"] == 4
    assert report["script_exit_status"] == 0 and report["calls"] == sum(row["calls"] for row in report["ops"])
    assert report["fallback_calls"] == sum(row["fallback_calls"] for row in report["ops"]) >= 2
    printed = capsys.readouterr().err
    assert "aten::special_erfcx" in printed and "on the CPU fallback" in printed
    assert cli.main(["inventory", "--fail-on-fallback", "--", str(script), "1", "ok"]) == 3
    assert cli.main(["inventory", "--", str(script), "1", "fail"]) == 1
    assert cli.main(["inventory", "--", "python"]) == 2


def test_info_and_matrix_in_process(device, capsys, tmp_path):
    from torch_fl import cli
    assert cli.main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vendor"] == torch_fl.vendor() and len(info["devices"]) == torch_fl.device_count()
    assert cli.main(["info"]) == 0
    text = capsys.readouterr().out
    assert torch_fl.vendor() in text and "CPU fallback calls in this process" in text
    assert cli.main(["matrix"]) == 0
    markdown = capsys.readouterr().out
    assert torch_fl.vendor() in markdown and "add.Tensor" in markdown
    page = tmp_path / "m.html"
    assert cli.main(["matrix", "--html", str(page)]) == 0
    assert page.read_text().lstrip().lower().startswith("<!doctype html") and str(page) in capsys.readouterr().out
    with pytest.raises(SystemExit) as usage:
        cli.main(["bogus"])
    assert usage.value.code == 2


def test_the_inventory_table_gives_the_reasons_else_the_spec_line():
    from torch_fl.inventory import format_report
    report = {"vendor": "chip", "overloads": 3, "calls": 8, "fallback_calls": 2, "fallback_share": 0.25,
              "ops": [{"overload": "aten::erf", "calls": 2, "native_calls": 0, "fallback_calls": 2,
                       "reasons": {"dtype": 1, "forced": 1}, "spec": "specs/chip.yaml:9"},
                      {"overload": "aten::add.Tensor", "calls": 5, "native_calls": 5, "fallback_calls": 0,
                       "reasons": {}, "spec": "specs/chip.yaml:3"},
                      {"overload": "aten::view", "calls": 1, "native_calls": 1, "fallback_calls": 0,
                       "reasons": {}, "spec": ""}]}
    assert format_report(report).splitlines() == [
        f"{'calls':>8} {'native':>8} {'fallback':>8}  {'overload':<44} reason / spec line",
        f"{2:>8} {0:>8} {2:>8}  {'aten::erf':<44} dtype (1), forced (1)",
        f"{5:>8} {5:>8} {0:>8}  {'aten::add.Tensor':<44} specs/chip.yaml:3",
        f"{1:>8} {1:>8} {0:>8}  {'aten::view':<44} -",
        "3 overloads, 8 calls on chip, 2 on the CPU fallback (25.0%)"]


def test_the_inventory_names_each_overloads_spec_line_and_lists_fallbacks_first(device, fallback_mode):
    from torch_fl.inventory import OpInventory
    fallback_mode("silent")
    a = torch.randn(4, 4, device=device)
    with OpInventory() as inventory:
        for _ in range(3):
            a = torch.addmm(a, a, a) * 0.1
        torch.special.erfcx(a)  # no chip declares it: it falls back
    report = inventory.report()
    rows = {row["overload"]: row for row in report["ops"]}
    matrix = {f"aten::{row['name']}": row["source"] for row in torch_fl.support_matrix()["ops"]}
    assert rows["aten::addmm"]["spec"] == matrix["aten::addmm"]
    assert rows["aten::addmm"]["spec"].startswith(f"specs/{torch_fl.vendor()}.yaml:")
    assert rows["aten::special_erfcx"]["spec"] == ""  # not in the spec
    assert report["ops"][0]["overload"] == "aten::special_erfcx"  # the only fallback, though called least
    assert rows["aten::addmm"]["calls"] == 3 and report["fallback_share"] == round(1 / report["calls"], 4)


def _write_module(directory, name: str, code: str) -> None:
    (directory / f"{name}.py").write_text(code)


def test_inventory_runs_a_module_as_main_with_its_own_argv(device, tmp_path, monkeypatch, capsys):
    from torch_fl import cli
    seen = tmp_path / "seen.json"
    _write_module(tmp_path, "inventory_probe", "import json, sys\n"
                  f"json.dump({{'name': __name__, 'argv': sys.argv}}, open({str(seen)!r}, 'w'))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert cli.main(["inventory", "--", "python", "-m", "inventory_probe", "a", "b"]) == 0
    probe = json.loads(seen.read_text())
    assert probe["name"] == "__main__"
    assert probe["argv"][1:] == ["a", "b"] and probe["argv"][0].endswith("inventory_probe.py")
    assert cli.main(["inventory", "--", "python", "-m"]) == 2
    assert "give a script" in capsys.readouterr().err


@pytest.mark.parametrize("exit_call, status", [("sys.exit()", 0), ("sys.exit(4)", 4), ("sys.exit('bad input')", 1),
                                               ("raise ValueError('no data')", 1)])
def test_inventory_keeps_the_scripts_exit_status(device, tmp_path, monkeypatch, capsys, exit_call, status):
    from torch_fl import cli
    path = tmp_path / "ends.py"
    path.write_text(f"import sys\n{exit_call}\n")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    report = tmp_path / "report.json"
    assert cli.main(["inventory", "--json", str(report), "--", str(path)]) == status
    assert json.loads(report.read_text())["script_exit_status"] == status
    raised = "torch-fl inventory: the script raised ValueError: no data"
    assert (raised in capsys.readouterr().err) == exit_call.startswith("raise")


def test_info_reports_fragmentation_and_keeps_a_chips_unknown_utilisation(device, monkeypatch, capsys):
    from torch_fl import cli, device_module as mod
    keep = torch.empty(3 << 20, dtype=torch.uint8, device=device)
    del keep  # cached, unallocated: reserved exceeds allocated
    info = cli._info()
    first = info["devices"][0]
    assert first["fragmentation_bytes"] == first["reserved_bytes"] - first["allocated_bytes"] >= 3 << 20
    cli._print_info(info)
    printed = capsys.readouterr().out
    mib = 1 << 20
    assert (f"{first['reserved_bytes'] / mib:.1f} MiB reserved ({first['fragmentation_bytes'] / mib:.1f} MiB cached"
            in printed)
    # A later reading with fewer devices than now (a reading of another process) has no interval for the rest.
    again = cli._info({"devices": info["devices"][:1]})
    assert all(d["busy_share_interval"] is None for d in again["devices"][1:])

    def no_busy_time(index):
        raise RuntimeError("this chip cannot tell")
    monkeypatch.setattr(mod, "busy_time", no_busy_time)
    unknown = cli._info()["devices"][0]
    assert unknown["busy_share_since_start"] is None
    assert unknown["utilisation_unknown"] == "this chip cannot tell"


def _help_blocks(page: str) -> dict[str, str]:
    """docs/cli.md's ```text blocks that begin with `$ torch-fl ... --help`, by command line."""
    blocks, lines = {}, page.splitlines()
    for start, line in enumerate(lines):
        if line == "```text" and start + 1 < len(lines) and lines[start + 1].startswith("$ torch-fl"):
            end = lines.index("```", start + 1)
            blocks[lines[start + 1][2:]] = "\n".join(lines[start + 2:end])
    return blocks


def test_the_cli_page_shows_each_commands_help_as_it_is(monkeypatch):
    """The usage of `torch-fl` in docs/cli.md is the parser's own help (regenerate it with
    `COLUMNS=100 python -m torch_fl <command> --help`)."""
    from torch_fl import cli
    if sys.version_info[:2] != (3, 11):
        pytest.skip("docs/cli.md's help blocks are Python 3.11's argparse layout (another Python words its help otherwise)")
    monkeypatch.setenv("COLUMNS", "100")
    root = cli.parser()
    commands = {"torch-fl --help": root}
    subparsers = next(a for a in root._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    commands.update({f"torch-fl {name} --help": p for name, p in subparsers.choices.items()})
    page = open(os.path.join(os.path.dirname(__file__), "..", "..", "docs", "cli.md")).read()
    blocks = _help_blocks(page)
    assert set(blocks) == set(commands), "docs/cli.md's help blocks and the parser's commands differ"
    for line, command_parser in commands.items():
        assert blocks[line] == command_parser.format_help().rstrip("\n"), f"docs/cli.md's `{line}` is out of date"
    assert root.parse_args(["info", "--watch", "0.5"]).watch == 0.5


def test_monitor_prints_each_devices_stats_as_json_lines(device):
    env = dict(os.environ, TORCH_FL_FALLBACK="silent")
    process = subprocess.Popen([sys.executable, "-m", "torch_fl", "monitor", "--interval", "0.2"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [json.loads(line) for line in read_lines(process, torch_fl.device_count(), timeout=120)]
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert [line["device"] for line in lines] == [str(torch_fl.device(i)) for i in range(torch_fl.device_count())]
    for line in lines:
        assert 0.1 < line["window_seconds"] < 5 and line["memory_total"] > 0
        assert line["op_calls"] == 0  # nothing ran in that process


def test_monitor_serves_prometheus_while_the_script_runs_in_its_process(device, tmp_path):
    pytest.importorskip("prometheus_client", reason="prometheus-client is pinned in requirements.txt")
    port = socket_port()
    scrape = tmp_path / "scrape.py"
    scrape.write_text(
        "import sys, urllib.request, torch, torch_fl\n"
        "x = torch.ones(4, device=torch_fl.device(0)) * 3\n"
        f"text = urllib.request.urlopen('http://127.0.0.1:{port}/metrics', timeout=10).read().decode()\n"
        "native = [l for l in text.splitlines() if l.startswith('torch_fl_op_calls_total') and 'native' in l]\n"
        "print(native[0])\n"
        "sys.exit(7)\n")
    run = torch_fl_cli("monitor", "--prometheus", str(port), "--addr", "127.0.0.1", "--", "python", str(scrape))
    assert run.returncode == 7, run.stderr[-2000:]  # the script's own status
    assert f"Prometheus metrics on http://127.0.0.1:{port}/metrics" in run.stderr
    assert float(run.stdout.split()[-1]) >= 1  # the script's multiply, counted in the same process


def test_monitor_prints_json_lines_to_stderr_while_the_script_runs_in_its_process(device, tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import sys, time, torch, torch_fl\n"
        "x = torch.ones(4, device=torch_fl.device(0))\n"
        "for _ in range(5):\n"
        "    x = x * 3\n"
        "total = x.sum().item()  # waits for the device\n"
        "time.sleep(0.5)\n"
        "print('the script says', total)\n")
    run = torch_fl_cli("monitor", "--interval", "0.1", "--", "python", str(script))
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "the script says 972.0"  # stdout stays the script's own
    readings = [json.loads(line) for line in run.stderr.splitlines() if line.startswith("{")]
    first = [r for r in readings if r["device"] == str(torch_fl.device(0))]
    assert len(first) >= 2, run.stderr[-2000:]  # while it ran, and the last window at its end
    assert sum(r["op_calls"] for r in first) >= 5  # its multiplies, counted in the same process


def socket_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
