"""A memory snapshot (torch.<device>.memory._snapshot()) as one self-contained HTML page,
readable offline: per device, the memory held by tensors over the recorded actions, and
each segment of the caching allocator as a bar of its blocks (allocated, waiting for
another stream, cached free). PyTorch's own page (torch.cuda._memory_viz.trace_plot)
draws more, but loads its script from the web; this one needs nothing.

    torch_fl.memory_page.write(torch.mlu.memory._snapshot(), "memory.html")
"""
from __future__ import annotations

import html
from typing import Any

WIDTH, PLOT_HEIGHT, BAR_HEIGHT = 960, 220, 18
COLOURS = {"active_allocated": "#d9534f", "active_pending_free": "#f0ad4e", "inactive": "#5cb85c"}


def _mib(n: float) -> str:
    return f"{n / (1 << 20):.2f} MiB"


def _timeline(events: list[dict]) -> tuple[list[float], int]:
    """Bytes held by tensors after each action (alloc adds, free_completed removes)."""
    held, points = 0, []
    for event in events:
        if event["action"] == "alloc":
            held += event["size"]
        elif event["action"] == "free_completed":
            held -= event["size"]
        points.append(held)
    return points, max(points, default=0)


def _plot(device: int, events: list[dict]) -> str:
    points, peak = _timeline(events)
    if not points:
        return (f"<p>Device {device}: no allocator actions recorded (recording starts with "
                "torch.&lt;device&gt;.memory._record_memory_history()).</p>")
    step = WIDTH / max(len(points) - 1, 1)
    scale = (PLOT_HEIGHT - 20) / peak if peak else 0
    path = " ".join(f"{i * step:.1f},{PLOT_HEIGHT - value * scale:.1f}" for i, value in enumerate(points))
    ooms = "".join(f'<line x1="{i * step:.1f}" x2="{i * step:.1f}" y1="0" y2="{PLOT_HEIGHT}" stroke="#000" '
                   f'stroke-dasharray="4"><title>out of memory: {_mib(e["size"])} asked</title></line>'
                   for i, e in enumerate(events) if e["action"] == "oom")
    return (f'<h2>Device {device}: memory held by tensors over {len(points)} actions (peak {_mib(peak)})</h2>'
            f'<svg width="{WIDTH}" height="{PLOT_HEIGHT}" style="background:#f7f7f7">'
            f'<polyline fill="none" stroke="#337ab7" stroke-width="2" points="{path}"/>{ooms}</svg>')


def _segments(segments: list[dict]) -> str:
    if not segments:
        return "<p>The caching allocator holds no segment.</p>"
    largest = max(s["total_size"] for s in segments)
    rows = []
    for segment in sorted(segments, key=lambda s: (s["device"], -s["total_size"])):
        x, blocks = 0.0, []
        for block in segment["blocks"]:
            width = WIDTH * block["size"] / largest
            blocks.append(f'<rect x="{x:.1f}" width="{max(width - 0.5, 0.5):.1f}" height="{BAR_HEIGHT}" '
                          f'fill="{COLOURS.get(block["state"], "#999")}"><title>{html.escape(block["state"])}: '
                          f'{_mib(block["size"])}</title></rect>')
            x += width
        rows.append(f'<div>device {segment["device"]}, {segment["segment_type"]} segment at '
                    f'{segment["address"]:#x}: {_mib(segment["total_size"])}, {_mib(segment["allocated_size"])} '
                    f'allocated</div><svg width="{WIDTH}" height="{BAR_HEIGHT}">{"".join(blocks)}</svg>')
    legend = " ".join(f'<span style="color:{colour}">&#9632; {state}</span>' for state, colour in COLOURS.items())
    return f"<h2>Segments ({len(segments)})</h2><p>{legend}</p>" + "".join(rows)


def render(snapshot: dict[str, Any], title: str = "Torch-FL memory snapshot") -> str:
    plots = "".join(_plot(device, events) for device, events in enumerate(snapshot.get("device_traces", [])))
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head>"
            f"<body style='font-family:sans-serif'><h1>{html.escape(title)}</h1>{plots}"
            f"{_segments(snapshot.get('segments', []))}</body></html>")


def write(snapshot: dict[str, Any], filename: str, title: str = "Torch-FL memory snapshot") -> None:
    with open(filename, "w") as f:
        f.write(render(snapshot, title))
