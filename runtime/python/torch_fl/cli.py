"""`torch-fl` (also `python -m torch_fl`): info, inventory, monitor and matrix for the
loaded vendor (TORCH_FL_VENDOR, or the one installed)."""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import time


def _device_info(device_type: str, index: int, before: dict | None) -> dict:
    """One device's entry: torch_fl.monitor's reading (one source for both), and, under
    --watch, the window since the previous entry. None where the chip cannot tell its
    busy time (the driver's reason is kept)."""
    from torch_fl import device_module, monitor
    now = monitor.read_device(index)
    entry = {"index": index, "name": device_module.get_device_name(index), "allocated_bytes": now.allocated_bytes,
             "reserved_bytes": now.reserved_bytes, "fragmentation_bytes": now.reserved_bytes - now.allocated_bytes,
             "largest_free_block_bytes": now.largest_free_block_bytes, "total_bytes": now.total_bytes,
             "free_bytes": now.free_bytes, "native_calls": now.native_calls,
             "fallback_calls_on_device": now.fallback_calls, "wall_ns": now.wall_ns}
    if now.busy_ns is None:
        entry.update(busy_share_since_start=None, busy_share_interval=None, utilisation_unknown=now.busy_unknown)
    else:
        entry.update(busy_ns=now.busy_ns, elapsed_ns=now.elapsed_ns,
                     busy_share_since_start=monitor.busy_share(now.busy_ns, now.elapsed_ns), busy_share_interval=None)
    if before and before.get("wall_ns") is not None:
        previous = monitor.DeviceReading(
            index=index, wall_ns=before["wall_ns"], busy_ns=before.get("busy_ns"), elapsed_ns=before.get("elapsed_ns"),
            busy_unknown=before.get("utilisation_unknown"), native_calls=before["native_calls"],
            fallback_calls=before["fallback_calls_on_device"], allocated_bytes=0, reserved_bytes=0, total_bytes=0,
            free_bytes=0, largest_free_block_bytes=0)
        window = monitor.DeviceStats.between(device_type, previous, now)
        if window.utilization is not None:
            entry["busy_share_interval"] = round(window.utilization / 100, 4)
        entry.update(op_calls_per_second=window.op_calls_per_second, fallback_rate=window.fallback_rate)
    return entry


def _info(previous: dict | None = None) -> dict:
    import torch
    import torch_fl
    matrix = torch_fl.support_matrix()
    device_type = torch_fl.device().type
    devices = []
    for index in range(torch_fl.device_count()):
        before = previous["devices"][index] if previous and index < len(previous["devices"]) else None
        devices.append(_device_info(device_type, index, before))
    fallbacks = torch_fl.fallback_count()
    from torch_fl import device_module
    return {"vendor": torch_fl.vendor(), "device": device_type, "torch": torch.__version__,
            "built_for_torch": matrix.get("torch_version"), "spec_sha256": matrix.get("spec_sha256"),
            "native_overloads": matrix.get("native_overloads"), "device_count": len(devices), "devices": devices,
            "fallback_calls": fallbacks, "forced_fallbacks": torch_fl.forced_fallbacks(),
            "driver_counters": device_module.driver_counters()}


def _print_info(info: dict) -> None:
    print(f"{info['vendor']} ({info['device']}): {info['device_count']} device(s), torch {info['torch']} "
          f"(built for {info['built_for_torch']}), {info['native_overloads']} native overloads")
    for d in info["devices"]:
        mib = 1 << 20
        print(f"  {info['device']}:{d['index']} {d['name']}: {d['allocated_bytes'] / mib:.1f} MiB allocated, "
              f"{d['reserved_bytes'] / mib:.1f} MiB reserved ({d['fragmentation_bytes'] / mib:.1f} MiB cached, "
              f"unallocated), {d['total_bytes'] / mib:.0f} MiB total, {_format_utilisation(d)}")
        if "op_calls_per_second" in d:
            print(f"    {d['op_calls_per_second']:g} op calls/s, {100 * d['fallback_rate']:.1f}% on the CPU fallback "
                  "since the last reading")
    print(f"  CPU fallback calls in this process: {info['fallback_calls']}; forced: "
          f"{', '.join(info['forced_fallbacks']) or 'none'}")
    if info["driver_counters"]:
        print("  driver: " + ", ".join(f"{name} {value:g}" for name, value in info["driver_counters"].items()))


def _format_utilisation(d: dict) -> str:
    if d["busy_share_since_start"] is None:
        return "utilisation unknown"
    text = f"queues busy {100 * d['busy_share_since_start']:.1f}% since start"
    if d["busy_share_interval"] is not None:
        text += f", {100 * d['busy_share_interval']:.1f}% since the last reading"
    return text


def cmd_info(args) -> int:
    info = None
    while True:
        info = _info(info)
        print(json.dumps(info, indent=1)) if args.json else _print_info(info)
        if not args.watch:
            return 0
        time.sleep(args.watch)


def _script(command: list[str]) -> list[str] | None:
    """`-- python train.py ARGS` or `-- python -m package.module ARGS` as [path or -m, module, ARGS];
    None when no script is given."""
    command = command[1:] if command[:1] == ["--"] else command
    if command[:1] and os.path.basename(command[0]).startswith("python"):
        command = command[1:]  # this interpreter runs the script
    if not command or (command[0] == "-m" and len(command) < 2):
        return None
    return command


def _run_script(command: list[str], caller: str) -> int:
    """Runs the script in this process (so torch_fl's counters see its ops); its exit status."""
    module = command[1] if command[0] == "-m" else None
    sys.argv = command[1:] if module else command
    try:
        if module:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(command[0], run_name="__main__")
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException as error:  # the caller's report is still written, with the script's failure
        print(f"{caller}: the script raised {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


def cmd_inventory(args) -> int:
    import torch_fl
    from torch_fl.inventory import OpInventory, format_report
    command = _script(args.command)
    if command is None:
        print("torch-fl inventory: give a script: torch-fl inventory -- python train.py ARGS "
              "(or -- python -m package.module ARGS)", file=sys.stderr)
        return 2
    torch_fl.init()
    inventory = OpInventory()
    with inventory:
        status = _run_script(command, "torch-fl inventory")
    report = inventory.report()
    report["script_exit_status"] = status
    print(format_report(report), file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if status == 0 and args.fail_on_fallback and report["fallback_calls"]:
        return 3
    return status


def _print_stats(watcher, stream) -> None:
    for entry in watcher.get_stats().values():
        # One write per line: the script's own output to the same stream must not split it.
        stream.write(json.dumps(entry.as_dict()) + "\n")
        stream.flush()


def cmd_monitor(args) -> int:
    import threading

    import torch_fl
    from torch_fl import monitor
    command = _script(args.command)
    torch_fl.init()
    if args.prometheus is not None:
        server, _ = monitor.start_http_server(args.prometheus, addr=args.addr)
        host, port = server.server_address[:2]
        print(f"torch-fl monitor: Prometheus metrics on http://{host}:{port}/metrics", file=sys.stderr, flush=True)
    watcher = monitor.DeviceMonitor()
    if command is not None:
        if args.prometheus is not None:
            return _run_script(command, "torch-fl monitor")  # the exporter serves while the script runs here
        # JSON lines go to stderr while the script runs in this process: its stdout stays its own.
        finished = threading.Event()

        def report() -> None:
            while not finished.wait(args.interval):
                _print_stats(watcher, sys.stderr)

        reporter = threading.Thread(target=report, name="torch-fl monitor", daemon=True)
        reporter.start()
        try:
            return _run_script(command, "torch-fl monitor")
        finally:
            finished.set()
            reporter.join()
            _print_stats(watcher, sys.stderr)  # the last window, up to the script's end
    try:
        while True:
            time.sleep(args.interval)
            if args.prometheus is None:
                _print_stats(watcher, sys.stdout)
    except KeyboardInterrupt:
        return 0


def cmd_matrix(args) -> int:
    import torch_fl
    from torch_fl import _backend
    matrix = torch_fl.support_matrix()
    if args.html:
        with open(_backend.data_file(matrix["vendor"], "support_matrix.html")) as src, open(args.html, "w") as dst:
            dst.write(src.read())
        print(f"wrote {args.html}")
        return 0
    with open(_backend.data_file(matrix["vendor"], "support_matrix.md")) as f:
        print(f.read())
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="torch-fl", description=__doc__)
    sub = root.add_subparsers(dest="action", required=True)
    info = sub.add_parser("info", help="devices, memory and fragmentation, versions, native overloads")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.add_argument("--watch", type=float, metavar="SECONDS", help="refresh every SECONDS (like nvidia-smi -l)")
    info.set_defaults(run=cmd_info)
    inventory = sub.add_parser("inventory", help="run a script and list the ATen overloads that reached the device")
    inventory.add_argument("--json", metavar="FILE", help="also write the report as JSON")
    inventory.add_argument("--fail-on-fallback", action="store_true", help="exit 3 when any call fell back to CPU")
    inventory.add_argument("command", nargs=argparse.REMAINDER, help="-- python train.py ARGS")
    inventory.set_defaults(run=cmd_inventory)
    watch = sub.add_parser(
        "monitor", help="per-device stats (utilization, memory, op calls, fallback rate), or serve them to Prometheus",
        description="Prints each device's torch_fl.monitor stats every INTERVAL seconds as JSON lines, or with "
                    "--prometheus serves them on PORT/metrics. Given a script, runs it in this process (the "
                    "runtime's counters are per process) while serving, or while printing the JSON lines to "
                    "stderr, the last one when it ends.")
    watch.add_argument("--prometheus", type=int, metavar="PORT", help="serve Prometheus metrics on PORT")
    watch.add_argument("--addr", default="0.0.0.0", help="the address to serve on (default: %(default)s)")
    watch.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                       help="seconds between printed readings (default: %(default)s)")
    watch.add_argument("command", nargs=argparse.REMAINDER, help="-- python train.py ARGS")
    watch.set_defaults(run=cmd_monitor)
    matrix = sub.add_parser("matrix", help="the loaded vendor's support matrix (Markdown), or --html FILE")
    matrix.add_argument("--html", metavar="FILE", help="write the HTML page instead")
    matrix.set_defaults(run=cmd_matrix)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
