"""The torch.<device> module and torch_fl's top-level API."""
from __future__ import annotations

import os

import pytest
import torch

import spec_dtypes
import torch_fl


@pytest.fixture
def mod(device):
    return getattr(torch, device.type)


needs_two_devices = pytest.mark.skipif(torch_fl.device_count() < 2,
                                       reason="needs two devices of this vendor (the simulators have two by default)")


def test_device_module_is_registered_under_the_spec_device_name(device, mod):
    assert device.type == torch_fl.support_matrix()["device"]
    assert mod.is_available()
    assert mod.device_count() == torch_fl.device_count() >= 1  # a real GPU machine may have one
    if torch_fl.vendor() in ("mlu", "npu"):  # the simulators: TORCH_FL_<VENDOR>_DEVICES, default 2
        assert mod.device_count() == int(os.environ.get(f"TORCH_FL_{torch_fl.vendor().upper()}_DEVICES", "2"))


@needs_two_devices
def test_set_device_changes_where_new_tensors_go(device, mod):
    previous = mod.current_device()
    try:
        mod.set_device(1)
        assert mod.current_device() == 1
        assert torch.empty(3, device=device.type).device.index == 1
    finally:
        mod.set_device(previous)


@needs_two_devices
def test_device_context_manager_restores(mod):
    mod.set_device(0)
    with mod.device(1):
        assert mod.current_device() == 1
    assert mod.current_device() == 0


def test_invalid_device_index_is_a_runtime_error_as_in_cuda(device, mod):
    with pytest.raises(RuntimeError, match="invalid device ordinal 5"):
        mod.set_device(5)
    with pytest.raises(RuntimeError, match="invalid device ordinal 5"):
        torch.zeros(2, device=f"{device.type}:5")
    with pytest.raises(RuntimeError, match="invalid device ordinal 5"):
        mod.memory_allocated(5)
    with pytest.raises(RuntimeError, match="invalid device ordinal 5"):
        mod.get_device_properties(5)


def test_device_properties_name_and_capability(device, mod):
    mod.init()
    for index in range(mod.device_count()):
        properties = mod.get_device_properties(index)
        assert properties.name and mod.get_device_name(index) == properties.name
        assert properties.total_memory == mod.mem_get_info(index)[1]
        assert properties.multi_processor_count > 0
        assert mod.get_device_capability(index) == (properties.major, properties.minor)
        assert mod.get_device_capability(torch.device(device.type, index)) == mod.get_device_capability(index)
    assert mod.get_device_name() == mod.get_device_name(mod.current_device())


def test_accelerator_device_capability_lists_the_dtypes_the_device_holds(device):
    capability = torch.accelerator.get_device_capability(device)
    dtypes = capability["supported_dtypes"]
    assert {torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64, torch.bool} <= dtypes
    assert {torch.complex32, torch.qint8, torch.quint4x2} <= dtypes  # test_quantized.py makes each one
    # The capability's bit field has no float8 entries (c10::DeviceCapability).
    assert torch.float8_e4m3fn not in dtypes


def test_tensor_methods_and_module_to(device):
    x = torch.ones(2, 2)
    assert getattr(x, device.type)().device.type == device.type
    assert getattr(x.to(device), f"is_{device.type}")
    model = torch.nn.Linear(2, 2)
    getattr(model, device.type)()
    assert model.weight.device.type == device.type


def test_memory_stats_track_allocations(device, mod):
    mod.synchronize()
    before = mod.memory_allocated(0)
    t = torch.empty(1 << 20, device=device)  # 4 MiB
    assert mod.memory_allocated(0) >= before + 4 * (1 << 20)
    assert mod.max_memory_allocated(0) >= mod.memory_allocated(0)
    assert mod.memory_reserved(0) >= mod.memory_allocated(0)
    del t
    assert mod.memory_allocated(0) == before
    mod.empty_cache()
    stats = mod.memory_stats(0)
    assert stats["reserved_bytes.all.current"] == mod.memory_reserved(0)
    free, total = mod.mem_get_info(0)
    assert 0 < free <= total


def test_memory_stats_cross_from_the_runtime_by_name(device, mod, monkeypatch):
    from torch_fl import device_module
    t = torch.empty(1 << 18, device=device)
    stats = mod.memory_stats(0)
    assert set(stats) == set(device_module._PYTORCH_STAT_NAMES.values())
    assert stats["allocated_bytes.all.current"] == mod.memory_allocated(0) >= t.nbytes
    assert stats["reserved_bytes.all.peak"] == mod.max_memory_reserved(0) >= stats["reserved_bytes.all.current"]
    assert stats["num_alloc_calls"] >= 1
    # A field the package expects and the library lacks is an error, not a zero.
    monkeypatch.setitem(device_module._PYTORCH_STAT_NAMES, "bytes_nobody_counts", "made_up.all.current")
    with pytest.raises(RuntimeError, match="disagree on the memory statistics"):
        mod.memory_stats(0)


def test_reset_peak_memory_stats(device, mod):
    t = torch.empty(1 << 18, device=device)
    del t
    mod.reset_peak_memory_stats(0)
    assert mod.max_memory_allocated(0) == mod.memory_allocated(0)


def test_rng_state_round_trips(device, mod):
    mod.manual_seed(42)
    assert mod.initial_seed() == 42
    state = mod.get_rng_state()
    a = torch.empty(100, device=device).uniform_().cpu()
    mod.set_rng_state(state)
    b = torch.empty(100, device=device).uniform_().cpu()
    assert torch.equal(a, b)


def test_streams_and_events(device, mod):
    s = mod.Stream()
    assert s != mod.default_stream()
    with mod.stream(s):
        assert mod.current_stream() == s
        start, end = mod.Event(enable_timing=True), mod.Event(enable_timing=True)
        start.record()
        y = torch.ones(256, 256, device=device) @ torch.ones(256, 256, device=device)
        end.record()
    assert mod.current_stream() == mod.default_stream()
    end.synchronize()
    assert end.query()
    assert start.elapsed_time(end) > 0  # a 256x256 matmul ran between the two events
    s.synchronize()
    assert y.cpu()[0, 0].item() == 256


def test_wait_stream_orders_work_across_streams(device, mod):
    producer = mod.Stream()
    with mod.stream(producer):
        x = torch.full((512, 512), 3.0, device=device)
        y = x @ x
    mod.current_stream().wait_stream(producer)
    z = y + 1
    assert z.cpu()[0, 0].item() == 3.0 * 3.0 * 512 + 1


@pytest.mark.parametrize("spelling", [None, 0, "NAME", "NAME:1", "DEVICE", "cpu"],
                         ids=["nothing", "index", "name", "name-and-index", "torch.device", "cpu"])
def test_set_default_device_takes_what_users_write(device, spelling):
    """torch_fl.set_default_device('npu'), as the articles write it, and every other spelling."""
    expected = {None: device, 0: torch.device(device.type, 0), "NAME": device,
                "NAME:1": torch.device(device.type, 1), "DEVICE": torch.device(device.type, 1),
                "cpu": torch.device("cpu")}[spelling]
    argument = {"NAME": device.type, "NAME:1": f"{device.type}:1",
                "DEVICE": torch.device(device.type, 1)}.get(spelling, spelling)
    if expected.index is not None and expected.index >= torch_fl.device_count():
        pytest.skip(f"{expected} needs a second device; this machine has {torch_fl.device_count()}")
    try:
        if spelling is None:
            torch_fl.set_default_device()
        else:
            torch_fl.set_default_device(argument)
        made = torch.empty(1).device
        assert made.type == expected.type and (expected.index is None or made.index == expected.index)
    finally:
        # None, not "cpu": a default device of "cpu" stays a mode that puts every
        # factory call without device= (torch.sparse_coo_tensor of device tensors
        # too) on CPU, for the rest of the session.
        torch.set_default_device(None)


@pytest.mark.parametrize("wrong", ["cuda", "cuda:0", "not a device", torch.device("meta")], ids=str)
def test_set_default_device_refuses_another_devices_name(device, wrong):
    with pytest.raises(ValueError, match=rf"give an index, '{device.type}'"):
        torch_fl.set_default_device(wrong)
    assert torch.empty(1).device.type == "cpu"


def test_support_matrix_follows_the_contract():
    matrix = torch_fl.support_matrix()
    assert {"vendor", "device", "torch_version", "ops"} <= set(matrix)
    assert matrix["torch_version"] == torch.__version__.split("+")[0]
    statuses = {status for row in matrix["ops"] for status in row["dtypes"].values()}
    assert statuses <= {"native", "fallback", "error"}
    names = {row["name"] for row in matrix["ops"]}
    assert {"add.Tensor", "add.out", "add_.Tensor", "mm"} <= names
    add = next(row for row in matrix["ops"] if row["name"] == "add.Tensor")
    assert add["dtypes"]["float32"] == "native"
    assert add["dtypes"][str(spec_dtypes.non_native_float()).removeprefix("torch.")] == "fallback"


def test_device_properties_print_like_cudas(device, mod):
    properties = mod.get_device_properties(0)
    assert repr(properties) == (
        f"_{device.type.capitalize()}DeviceProperties(name='{properties.name}', major={properties.major}, "
        f"minor={properties.minor}, total_memory={properties.total_memory // (1024 * 1024)}MB, "
        f"multi_processor_count={properties.multi_processor_count})")


def test_utilization_is_the_busy_percentage(monkeypatch):
    from torch_fl import device_module
    for busy_elapsed, percent in (((1, 2), 50), ((3, 4), 75), ((0, 0), 0), ((10, 10), 100)):
        monkeypatch.setattr(device_module, "busy_time", lambda device=None, value=busy_elapsed: value)
        assert device_module.utilization(0) == percent


def test_custom_ops_are_the_spec_matrix_rows_by_name():
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "generated", torch_fl.vendor(),
                           "support_matrix.json")) as f:
        rows = __import__("json").load(f).get("custom_ops", [])
    assert torch_fl.custom_ops() == {row["name"]: row for row in rows}
    import yaml
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "specs", f"{torch_fl.vendor()}.yaml")) as f:
        declared = yaml.safe_load(f).get("custom") or {}
    assert sorted(torch_fl.custom_ops()) == sorted(declared)  # the spec's `custom:` entries, each by name


def test_init_replaces_the_autoload_hooks_placeholder(device, monkeypatch):
    """A wheel's autoload hook puts a placeholder at torch.<device> that loads us on first use;
    init() puts the device module in its place, as an attribute and as a module."""
    import sys
    import types
    from torch_fl import device_module
    placeholder = types.SimpleNamespace(_torch_fl_placeholder=True)
    monkeypatch.setattr(torch, device.type, placeholder)
    monkeypatch.setitem(sys.modules, f"torch.{device.type}", placeholder)
    monkeypatch.setattr(torch_fl._startup, "_initialized", False)
    assert torch_fl.init() == device.type
    assert getattr(torch, device.type) is device_module
    assert sys.modules[f"torch.{device.type}"] is device_module
    assert torch_fl.init() == device.type  # idempotent


def test_draining_at_exit_runs_one_backward_on_each_device(device, monkeypatch):
    """drain_devices (atexit) synchronizes every device and runs a trivial backward on each
    device's autograd thread; every one of those backwards must succeed."""
    real_engine = torch.autograd.Variable._execution_engine
    runs = []

    class RecordingEngine:
        def run_backward(self, tensors, grads, *flags):
            runs.append((tensors[0].device, grads[0].device, grads[0].shape))
            real_engine.run_backward(tensors, grads, *flags)
            runs[-1] += (tensors[0].grad_fn.next_functions[0][0].variable.grad.item(),)

    monkeypatch.setattr(torch.autograd.Variable, "_execution_engine", RecordingEngine())
    module = getattr(torch, device.type)
    busy = torch.randn(256, 256, device=torch_fl.device(torch_fl.device_count() - 1))
    for _ in range(4):
        busy = busy @ busy
    torch_fl._startup.drain_devices()
    assert module.current_stream(torch_fl.device_count() - 1).query()
    expected = [(torch_fl.device(i), torch_fl.device(i), torch.Size([]), 1.0) for i in range(torch_fl.device_count())]
    assert runs == expected
