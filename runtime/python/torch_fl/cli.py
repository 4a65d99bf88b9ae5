"""`torch-fl` (also `python -m torch_fl`): info, inventory and matrix for the
loaded vendor (TORCH_FL_VENDOR, or the one installed)."""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
import time


def _busy_share(busy_ns: int, elapsed_ns: int) -> float:
    return round(busy_ns / elapsed_ns, 4) if elapsed_ns > 0 else 0.0


def _utilisation(device_module, index: int, previous: dict | None) -> dict:
    """Busy share of the device's queues since it came up and, under --watch, since the last reading;
    None where the chip cannot tell (the driver's reason is kept)."""
    try:
        busy, elapsed = device_module.busy_time(index)
    except RuntimeError as error:
        return {"busy_share_since_start": None, "busy_share_interval": None, "utilisation_unknown": str(error)}
    interval = None
    if previous and previous.get("busy_ns") is not None:
        interval = _busy_share(busy - previous["busy_ns"], elapsed - previous["elapsed_ns"])
    return {"busy_ns": busy, "elapsed_ns": elapsed, "busy_share_since_start": _busy_share(busy, elapsed),
            "busy_share_interval": interval}


def _info(previous: dict | None = None) -> dict:
    import torch
    import torch_fl
    from torch_fl import device_module
    matrix = torch_fl.support_matrix()
    devices = []
    for index in range(torch_fl.device_count()):
        stats = device_module.memory_stats(index)
        free, total = device_module.mem_get_info(index)
        allocated, reserved = stats["allocated_bytes.all.current"], stats["reserved_bytes.all.current"]
        before = previous["devices"][index] if previous and index < len(previous["devices"]) else None
        devices.append({"index": index, "name": device_module.get_device_name(index), "allocated_bytes": allocated,
                        "reserved_bytes": reserved, "fragmentation_bytes": reserved - allocated,
                        "total_bytes": total, "free_bytes": free, **_utilisation(device_module, index, before)})
    fallbacks = torch_fl.fallback_count()
    return {"vendor": torch_fl.vendor(), "device": torch_fl.device().type, "torch": torch.__version__,
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


def cmd_inventory(args) -> int:
    import torch_fl
    from torch_fl.inventory import OpInventory, format_report
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if command[:1] and os.path.basename(command[0]).startswith("python"):
        command = command[1:]  # `-- python train.py ARGS`: this interpreter runs the script
    module = command[1] if command[:1] == ["-m"] and len(command) > 1 else None
    if not command or (command[0] == "-m" and module is None):
        print("torch-fl inventory: give a script: torch-fl inventory -- python train.py ARGS "
              "(or -- python -m package.module ARGS)", file=sys.stderr)
        return 2
    torch_fl.init()
    status = 0
    inventory = OpInventory()
    sys.argv = command[1:] if module else command
    try:
        with inventory:
            if module:
                runpy.run_module(module, run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(command[0], run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException as error:  # the report is still written, with the script's failure
        print(f"torch-fl inventory: the script raised {type(error).__name__}: {error}", file=sys.stderr)
        status = 1
    report = inventory.report()
    report["script_exit_status"] = status
    print(format_report(report), file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    if status == 0 and args.fail_on_fallback and report["fallback_calls"]:
        return 3
    return status


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
    matrix = sub.add_parser("matrix", help="the loaded vendor's support matrix (Markdown), or --html FILE")
    matrix.add_argument("--html", metavar="FILE", help="write the HTML page instead")
    matrix.set_defaults(run=cmd_matrix)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
