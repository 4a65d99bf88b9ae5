"""The vendor wheel as a user installs it: built once by `make wheel` (in the build
tree of `make backend`), installed into a temporary venv that takes torch from the
cached environment, and used from outside the source tree in fresh processes."""
from __future__ import annotations

import contextlib
import email.parser
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass

import pytest

from codegen import torch_versions
from tests.python.processes import free_port, run_process_tree
from wheel_venv import make_wheel_venv

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENDOR = os.environ.get("TORCH_FL_VENDOR", "mlu")
AUTOLOAD_WARNING = "torch_fl autoload"


@dataclass
class Installed:
    python: str
    wheel: str
    vendor_dir: str  # torch_fl/vendors/<vendor>/ in the venv
    device: str
    cwd: str         # outside the source tree

    def run(self, code: str, **env: str) -> subprocess.CompletedProcess:
        return self.run_args(["-c", code], **env)

    def run_args(self, args: list[str], **env: str) -> subprocess.CompletedProcess:
        environment = {k: v for k, v in os.environ.items()
                       if not k.startswith(("TORCH_FL_", "TORCH_DEVICE_BACKEND")) and k != "PYTHONPATH"}
        environment.update(TORCH_FL_FALLBACK="silent", **env)
        # a process tree: the DeepSpeed launcher's test starts ranks
        return run_process_tree([self.python, *args], timeout=300, cwd=self.cwd, env=environment)

    @contextlib.contextmanager
    def edited(self, name: str, edit):
        """Edits one installed file of the vendor for the duration; restores it afterwards."""
        path = os.path.join(self.vendor_dir, name)
        saved = path + ".saved"
        shutil.copy2(path, saved)
        try:
            edit(path)
            yield path
        finally:
            os.replace(saved, path)


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Installed:
    python = sys.executable  # the interpreter of `make test-packaging`, for its torch (TORCH=<version>)
    probe = subprocess.run([python, "-c", "import torch_fl; print(torch_fl.device_count())"], capture_output=True,
                           text=True, env=dict(os.environ, TORCH_FL_VENDOR=VENDOR), timeout=300)
    assert probe.returncode == 0, f"the {VENDOR} backend does not load from the build tree:\n{probe.stderr}"
    if probe.stdout.strip() == "0":
        pytest.skip(f"no {VENDOR} device on this machine (torch_fl.device_count() == 0): the wheel's autoload "
                    "tests need one")
    torch_version = os.environ.get("TORCH_FL_TORCH")  # set by the Makefile
    build = subprocess.run(["make", "-s", "--no-print-directory", "wheel", f"VENDOR={VENDOR}",
                            *([f"TORCH={torch_version}"] if torch_version else [])], cwd=REPO,
                           capture_output=True, text=True, timeout=3600)
    assert build.returncode == 0, build.stdout + build.stderr
    # `make wheel` lists the vendor's wheels in its dist folder (after what generate and ninja print).
    wheels = [line for line in build.stdout.splitlines() if line.endswith(".whl")]
    assert len(wheels) == 1, f"expected one {VENDOR} wheel, found {wheels}: remove the stale ones"
    wheel = os.path.join(REPO, wheels[0])
    root = tmp_path_factory.mktemp("wheel")
    venv_python = make_wheel_venv(str(root / "venv"), [wheel])
    site = subprocess.run([venv_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    vendor_dir = os.path.join(site, "torch_fl", "vendors", VENDOR)
    with open(os.path.join(vendor_dir, "build_info.json")) as f:
        device = json.load(f)["device"]
    return Installed(venv_python, wheel, vendor_dir, device, str(root))


def autoload_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if AUTOLOAD_WARNING in line]


def test_the_wheel_holds_the_library_matrix_spec_and_pins_torch(installed):
    import torch
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(wheel.read(f"{dist_info}/METADATA").decode())
        entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    vendor_files = {f"torch_fl/vendors/{VENDOR}/{name}" for name in (
        f"libtorch_fl_{VENDOR}.so", "build_info.json", "support_matrix.json", "support_matrix.md",
        "support_matrix.html", f"{VENDOR}.yaml")}
    assert vendor_files | {"torch_fl/__init__.py", "torch_fl/_backend.py", "torch_fl_autoload.py", "torch_fl_wheels.py"} <= names
    assert metadata["Name"] == f"torch_fl_{VENDOR}"
    requirements = metadata.get_all("Requires-Dist")
    assert [r for r in requirements if ";" not in r] == [f"torch=={torch.__version__.split('+')[0]}"]
    # The frameworks as extras (pip install torch_fl_<vendor>[deepspeed]), each only under its extra.
    assert set(metadata.get_all("Provides-Extra")) == {"hf", "deepspeed", "lightning", "prometheus"}
    extras = {r.split(";")[0].strip(): r.split("extra ==")[1].strip(" \"'") for r in requirements if ";" in r}
    assert extras == {"transformers>=5.25.0": "hf", "accelerate>=1.15.0": "hf", "deepspeed>=0.19.8": "deepspeed",
                      "pytorch-lightning>=2.6.6": "lightning", "prometheus-client>=0.26.0": "prometheus"}
    assert "[torch.backends]" in entry_points and "torch_fl_autoload:autoload" in entry_points


def test_import_torch_autoloads_the_device_and_loads_the_backend_on_first_use(installed):
    result = installed.run("import sys, torch\n"
                           "print('torch_fl' in sys.modules)\n"
                           f"x = torch.randn(2, device='{installed.device}') * 2\n"
                           "print(x.device.type, 'torch_fl' in sys.modules)\n"
                           "import torch_fl\n"
                           "print(torch_fl.__file__)\n")
    assert result.returncode == 0, result.stderr
    lazy, used, path = result.stdout.split("\n")[:3]
    assert lazy == "False"  # import torch alone leaves the library unloaded
    assert used == f"{installed.device} True"
    assert path.startswith(os.path.dirname(os.path.dirname(installed.vendor_dir)))
    assert autoload_warnings(result.stderr) == []


def test_tensor_methods_and_the_device_module_work_before_any_tensor(installed):
    result = installed.run("import torch\n"
                           f"module = torch.{installed.device}\n"
                           "print(module.device_count() > 0, module.is_available())\n"
                           f"print(torch.ones(2).{installed.device}().device.type)\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", installed.device]


@pytest.mark.chip_independent
def test_cuda_compat_from_the_environment_takes_effect_at_import_torch(installed):
    """A CUDA-written script checks torch.cuda.is_available() before anything else: with
    the wheel installed and TORCH_FL_CUDA_COMPAT=1 it runs on the device, with no
    `import torch_fl` (#35); without the variable nothing is loaded at import."""
    script = ("import sys, torch\n"
              "device = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
              "x = torch.ones(3, device=device) * 2\n"
              "print(device, x.device.type, float(x.sum()))\n")
    result = installed.run(script, TORCH_FL_CUDA_COMPAT="1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["cuda", installed.device, "6.0"]
    assert autoload_warnings(result.stderr) == []
    unset = installed.run("import sys, torch\nprint(torch.cuda.is_available(), 'torch_fl' in sys.modules)\n")
    assert unset.returncode == 0, unset.stderr
    assert unset.stdout.split() == ["False", "False"]


@pytest.mark.chip_independent
def test_frameworks_find_the_device_from_the_wheel_alone(installed):
    """A user installs the wheel and imports DeepSpeed or Lightning, with no `import
    torch_fl` (#35): their first import loads the backend, whose hooks give each the
    device. `import torch` alone still loads nothing."""
    pytest.importorskip("deepspeed", reason="deepspeed is not installed (pinned in requirements.txt)")
    pytest.importorskip("pytorch_lightning", reason="pytorch-lightning is not installed (pinned in requirements.txt)")
    device = installed.device
    result = installed.run("import sys, warnings\n"
                           "warnings.simplefilter('ignore', DeprecationWarning)\n"
                           "import torch\n"
                           "print('torch_fl' in sys.modules)\n"
                           "from deepspeed.accelerator import get_accelerator\n"
                           "print(get_accelerator().device_name(), 'torch_fl' in sys.modules)\n"
                           "import pytorch_lightning as pl\n"
                           f"trainer = pl.Trainer(accelerator='{device}', devices=1, logger=False)\n"
                           "print(trainer.strategy.root_device)\n")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split("\n")[:3] == ["False", f"{device} True", f"{device}:0"]
    assert "torch_fl:" not in result.stderr, result.stderr[-3000:]  # no hook found its module half-made


@pytest.mark.chip_independent
def test_accelerate_loads_the_backend_only_when_told_the_device(installed):
    """With ACCELERATE_TORCH_DEVICE=<device> (the documented line), importing Accelerate loads
    the backend, whose hook makes launched ranks use their own devices; without it, it does not."""
    pytest.importorskip("accelerate", reason="accelerate is not installed (pinned in requirements.txt)")
    code = "import sys, torch, accelerate.state\nprint('torch_fl' in sys.modules)\n"
    told = installed.run(code, ACCELERATE_TORCH_DEVICE=installed.device)
    untold = installed.run(code)
    assert told.returncode == 0 and untold.returncode == 0, told.stderr[-2000:] + untold.stderr[-2000:]
    assert (told.stdout.split()[-1], untold.stdout.split()[-1]) == ("True", "False")


# One rank as DeepSpeed's launcher starts it: DeepSpeed's process group on the device
# LOCAL_RANK names, an all_reduce, and what the launcher told the rank.
LAUNCHED_RANK = """import os, torch, deepspeed
from deepspeed.accelerator import get_accelerator
deepspeed.init_distributed()
get_accelerator().set_device(int(os.environ["LOCAL_RANK"]))
x = torch.ones(1, device=get_accelerator().current_device_name()) * (torch.distributed.get_rank() + 1)
torch.distributed.all_reduce(x)
line = f"rank {torch.distributed.get_rank()} {x.device} {int(x.item())} {os.environ['TORCH_FL_VISIBLE_DEVICES']}"
os.write(1, (line + "\\n").encode())  # one write: the two ranks share the launcher's stdout
torch.distributed.destroy_process_group()
"""


@pytest.mark.chip_independent
def test_deepspeeds_launcher_starts_a_rank_per_device(installed, tmp_path):
    """`deepspeed --num_gpus 2 script.py` from the wheel alone: the launcher's processes
    find the device through autoload, list its devices, and each rank takes its own; a
    choice the runtime would not honour (--include localhost:1) is refused by name."""
    pytest.importorskip("deepspeed", reason="deepspeed is not installed (pinned in requirements.txt)")
    count = installed.run("import torch_fl; print(torch_fl.device_count())")
    if int(count.stdout.split()[-1]) < 2:
        pytest.skip(f"needs 2 {installed.device} devices; this machine has {count.stdout.split()[-1]}")
    script = tmp_path / "rank.py"
    script.write_text(LAUNCHED_RANK)
    runner = ["-m", "deepspeed.launcher.runner", "--master_port"]
    launched = installed.run_args([*runner, str(free_port()), "--num_gpus", "2", str(script)])
    assert launched.returncode == 0, launched.stdout[-3000:] + launched.stderr[-3000:]
    ranks = sorted(line for line in launched.stdout.splitlines() if line.startswith("rank "))
    device = installed.device
    assert ranks == [f"rank 0 {device}:0 3 0,1", f"rank 1 {device}:1 3 0,1"], launched.stdout[-3000:]
    refused = installed.run_args([*runner, str(free_port()), "--include", "localhost:1", str(script)])
    assert refused.returncode != 0 and "does not renumber devices" in refused.stdout + refused.stderr, \
        refused.stdout[-3000:] + refused.stderr[-3000:]


@pytest.mark.chip_independent
def test_autoload_off_leaves_torch_without_the_device(installed):
    result = installed.run("import sys, torch\n"
                           f"print(hasattr(torch, '{installed.device}'), 'torch_fl_autoload' in sys.modules)\n"
                           f"torch.randn(2, device='{installed.device}')\n",
                           TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert result.stdout.split() == ["False", "False"]
    assert result.returncode != 0 and "device type at start of device string" in result.stderr


def test_support_matrix_is_read_from_the_installed_package(installed):
    result = installed.run("import torch, torch_fl, json\n"
                           "from torch_fl import _backend\n"
                           "print(_backend.data_file(torch_fl.vendor(), 'support_matrix.json'))\n"
                           "print(json.dumps(torch_fl.support_matrix()))\n")
    assert result.returncode == 0, result.stderr
    path, matrix = result.stdout.split("\n")[:2]
    assert path == os.path.join(installed.vendor_dir, "support_matrix.json")
    # What the build generated for this torch.
    import torch
    expected = os.path.join(torch_versions.generated_dir(torch.__version__, REPO), VENDOR, "support_matrix.json")
    with open(expected) as f:
        assert json.loads(matrix) == json.load(f)


def _use_after_import(installed: Installed, **env: str) -> subprocess.CompletedProcess:
    """import torch, then CPU work, then the device: prints what worked, exits 0 if the device raised RuntimeError."""
    return installed.run("import torch\n"
                         "print('cpu', (torch.ones(2) + 1).tolist())\n"
                         f"print('available', torch.{installed.device}.is_available())\n"
                         "try:\n"
                         f"    torch.randn(2, device='{installed.device}')\n"
                         "except RuntimeError as error:\n"
                         "    print('raised', error)\n"
                         "else:\n"
                         "    raise SystemExit('the device worked')\n", **env)


@pytest.mark.chip_independent
def test_a_wheel_for_another_torch_warns_once_at_import_and_raises_on_use(installed):
    import torch

    def claim_other_torch(path):
        with open(path) as f:
            info = json.load(f)
        info["torch_version"] = "2.12.0"
        with open(path, "w") as f:
            json.dump(info, f)

    with installed.edited("build_info.json", claim_other_torch):
        result = _use_after_import(installed)
    assert result.returncode == 0, result.stderr + result.stdout
    warnings = autoload_warnings(result.stderr)
    assert len(warnings) == 1, result.stderr
    assert "built for torch 2.12.0" in warnings[0] and f"this is torch {torch.__version__}" in warnings[0]
    lines = result.stdout.splitlines()
    assert lines[:2] == ["cpu [2.0, 2.0]", "available False"]
    assert lines[2].startswith("raised torch_fl: ") and "built for torch 2.12.0" in lines[2]


@pytest.mark.chip_independent
def test_a_missing_library_warns_naming_the_file_and_raises_on_use(installed):
    library = f"libtorch_fl_{VENDOR}.so"
    with installed.edited(library, os.remove) as path:
        result = _use_after_import(installed)
    assert result.returncode == 0, result.stderr + result.stdout
    warnings = autoload_warnings(result.stderr)
    assert len(warnings) == 1 and f"library is missing: {path}" in warnings[0], result.stderr
    assert result.stdout.splitlines()[2].startswith("raised torch_fl: ") and path in result.stdout


@pytest.mark.chip_independent
def test_a_truncated_library_warns_at_import_and_raises_on_use(installed):
    def truncate(path):
        with open(path, "r+b") as f:
            f.truncate(4096)  # loading it would crash the process (SIGBUS in dlopen)

    with installed.edited(f"libtorch_fl_{VENDOR}.so", truncate) as path:
        result = _use_after_import(installed)
    assert result.returncode == 0, result.stderr + result.stdout
    warnings = autoload_warnings(result.stderr)
    assert len(warnings) == 1 and f"library is truncated (4096 bytes): {path}" in warnings[0], result.stderr
    assert result.stdout.splitlines()[2].startswith("raised torch_fl: ")


@pytest.mark.chip_independent
def test_a_library_that_fails_to_load_raises_on_first_use_and_torch_still_works(installed):
    import torch
    another_library = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_global_deps.so")

    with installed.edited(f"libtorch_fl_{VENDOR}.so", lambda path: shutil.copy(another_library, path)):
        result = _use_after_import(installed)
    assert result.returncode == 0, result.stderr + result.stdout
    assert autoload_warnings(result.stderr) == []  # a valid shared library: only loading it tells
    lines = result.stdout.splitlines()
    assert lines[:2] == ["cpu [2.0, 2.0]", "available False"]
    assert lines[2].startswith(f"raised torch_fl: the {installed.device} backend failed to load")
    assert "tfl_" in lines[2]  # the missing entry point


@pytest.fixture
def twin_vendor(installed):
    """A second vendor's wheel installed beside this one (a copy under another vendor and device name)."""
    twin_dir = os.path.join(os.path.dirname(installed.vendor_dir), "twin")
    shutil.copytree(installed.vendor_dir, twin_dir)
    with open(os.path.join(twin_dir, "build_info.json")) as f:
        info = json.load(f)
    info.update(vendor="twin", device="twin")
    with open(os.path.join(twin_dir, "build_info.json"), "w") as f:
        json.dump(info, f)
    yield "twin"
    shutil.rmtree(twin_dir)


@pytest.mark.chip_independent
def test_two_vendor_wheels_need_torch_fl_vendor_and_say_so_on_first_use(installed, twin_vendor):
    result = installed.run("import torch\n"
                           "print('imported', (torch.ones(2) + 1).tolist())\n"
                           f"torch.{installed.device}.synchronize()\n")
    assert result.stdout.splitlines() == ["imported [2.0, 2.0]"]
    assert autoload_warnings(result.stderr) == []  # not at import torch
    assert result.returncode != 0
    assert "RuntimeError: torch_fl: Torch-FL wheels for several vendors are installed" in result.stderr
    assert "set TORCH_FL_VENDOR" in result.stderr

    # A device string names the unchosen device: our reason, not PyTorch's "Expected one of cpu, ...".
    for use in (f"torch.randn(2, device='{installed.device}')", f"torch.ones(2).to('{installed.device}:0')",
                f"torch.zeros(2, device='{twin_vendor}')", f"torch.device('{installed.device}')",
                f"torch.nn.Linear(2, 2).to('{installed.device}')"):
        refused = installed.run(f"import torch\ntry:\n    {use}\nexcept RuntimeError as e:\n    print(e)\n")
        assert refused.returncode == 0, refused.stderr
        assert "Torch-FL wheels for several vendors are installed" in refused.stdout, (use, refused.stdout)
        assert "set TORCH_FL_VENDOR" in refused.stdout and "device '" in refused.stdout, refused.stdout

    chosen = installed.run(f"import torch\nprint(torch.randn(2, device='{installed.device}').device.type)\n",
                           TORCH_FL_VENDOR=VENDOR)
    assert chosen.returncode == 0, chosen.stderr
    assert chosen.stdout.strip() == installed.device


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
