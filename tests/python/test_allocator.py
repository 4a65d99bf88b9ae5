"""The caching allocator's segments: splitting, merging, memory_snapshot(), and
TORCH_FL_ALLOC_CONF (max_split_size_mb, garbage_collection_threshold)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_fl

MiB = 1 << 20


@pytest.fixture
def mod(device):
    module = getattr(torch, device.type)
    module.synchronize()
    module.empty_cache()
    return module


def test_snapshot_shows_segments_blocks_and_their_states(device, mod):
    a = torch.empty(1000, device=device)
    b = torch.empty(3000, device=device)
    segments = mod.memory_snapshot()
    assert len(segments) == 1 and segments[0]["segment_type"] == "small"
    blocks = segments[0]["blocks"]
    assert [blk["state"] for blk in blocks] == ["active_allocated", "active_allocated", "inactive"]
    assert sum(blk["size"] for blk in blocks) == segments[0]["total_size"]
    assert blocks[0]["address"] == a.data_ptr() and blocks[1]["address"] == b.data_ptr()
    del a, b
    assert [blk["state"] for blk in mod.memory_snapshot()[0]["blocks"]] == ["inactive"]  # merged back
    mod.empty_cache()
    assert mod.memory_snapshot() == [] and mod.memory_reserved() == 0


def run_with_conf(conf: str, code: str) -> subprocess.CompletedProcess:
    vendor = torch_fl.vendor().upper()
    env = dict(os.environ, TORCH_FL_ALLOC_CONF=conf, **{f"TORCH_FL_{vendor}_MEMORY_MB": "256"})
    prelude = "import torch, torch_fl\nd = torch_fl.device()\nmod = getattr(torch, d.type)\nMiB = 1 << 20\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=env)


SPLIT_PROBE = """
    big = torch.empty(64 * MiB, dtype=torch.uint8, device=d)
    del big                                     # a 64 MiB block, cached
    before = mod.memory_stats()["num_device_alloc"]
    small = torch.empty(12 * MiB, dtype=torch.uint8, device=d)
    print(mod.memory_stats()["num_device_alloc"] - before)
"""


def test_without_max_split_a_big_cached_block_serves_a_smaller_request(device):
    result = run_with_conf("", SPLIT_PROBE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "0"


def test_max_split_size_keeps_big_blocks_for_big_requests(device):
    result = run_with_conf("max_split_size_mb:32", SPLIT_PROBE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-1] == "1"  # the 64 MiB block is not cut for 12 MiB


GC_PROBE = """
    first = torch.empty(80 * MiB, dtype=torch.uint8, device=d)
    del first                                   # 80 MiB cached
    second = torch.empty(100 * MiB, dtype=torch.uint8, device=d)   # cannot reuse it
    print(mod.memory_reserved() // MiB)
"""


def test_garbage_collection_threshold_returns_cached_segments_before_growing(device):
    without = run_with_conf("", GC_PROBE)
    with_gc = run_with_conf("garbage_collection_threshold:0.5", GC_PROBE)
    assert without.returncode == 0 and with_gc.returncode == 0, without.stderr + with_gc.stderr
    assert int(without.stdout.split()[-1]) == 180  # both kept
    assert int(with_gc.stdout.split()[-1]) == 100  # 180 MiB > half of 256 MiB: the cached 80 MiB went first


def test_a_malformed_alloc_conf_is_a_clear_error(device):
    result = run_with_conf("max_split_size_mb:64,gc_threshold:0.5", "torch.empty(4, device=d)\n")
    assert result.returncode != 0
    assert "TORCH_FL_ALLOC_CONF: unknown key 'gc_threshold'" in result.stderr
