"""codegen/torch_versions.py: the one reader of .ci/torch_versions and the one rule for
where each torch's environment, builds and output live."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from codegen import torch_versions


@pytest.fixture
def repo(tmp_path):
    (tmp_path / ".ci").mkdir()
    (tmp_path / ".ci" / "torch_versions").write_text(
        "# comment | not | a line\n"
        "2.13.0 | - | the default\n"
        "\n"
        "2.14.1 | torchvision==0.29.1 extra==1 | the newest\n"
        "2.9.0 | - | older than both\n")
    return str(tmp_path)


def test_the_file_is_read_in_order_with_its_extras(repo):
    assert [(r.version, r.extras) for r in torch_versions.releases(repo)] == [
        ("2.13.0", ()), ("2.14.1", ("torchvision==0.29.1", "extra==1")), ("2.9.0", ())]
    assert torch_versions.default_version(repo) == "2.13.0"
    assert torch_versions.newest_version(repo) == "2.14.1"  # by release number, not by line


def test_the_newest_release_with_a_package_is_found_by_the_package_name(repo):
    assert torch_versions.newest_with("torchvision", repo) == "2.14.1"
    assert torch_versions.newest_with("extra", repo) == "2.14.1"
    assert torch_versions.newest_with("torch", repo) == ""  # torch itself is no extra
    with open(os.path.join(repo, ".ci", "torch_versions"), "a") as f:
        f.write("2.10.0 | TorchVision>=0.25 | an older one\n2.15.0 | - | newer, without it\n")
    assert torch_versions.newest_with("torchvision", repo) == "2.14.1"  # not the newest line, nor 2.15.0


def test_the_default_torch_builds_under_build_and_its_output_is_the_committed_generated(repo):
    assert torch_versions.build_root("2.13.0+cpu", repo) == os.path.join(repo, "build")
    assert torch_versions.generated_dir("2.13.0", repo) == os.path.join(repo, "generated")
    assert torch_versions.build_root("2.14.1+cu130", repo) == os.path.join(repo, "build", "torch-2.14.1")
    assert torch_versions.generated_dir("2.14.1", repo) == os.path.join(repo, "build", "torch-2.14.1", "generated")
    assert torch_versions.dist_dir("2.14.1", repo) == os.path.join(repo, "dist", "torch-2.14.1")


def test_an_unlisted_torch_is_refused_with_the_list_and_a_malformed_line_with_its_line(repo):
    with pytest.raises(torch_versions.UnsupportedTorch, match=r"torch 2\.99\.0 is not supported.*\n  2\.13\.0: the default"):
        torch_versions.release("2.99.0", repo)
    with open(os.path.join(repo, ".ci", "torch_versions"), "a") as f:
        f.write("2.15.0 | only two fields\n")
    with pytest.raises(ValueError, match=r"torch_versions:6: expected 'version \| extras or - \| reason'"):
        torch_versions.releases(repo)


def test_the_command_line_the_makefile_and_scripts_use():
    script = os.path.join(torch_versions.REPO_ROOT, "codegen", "torch_versions.py")
    run = lambda *args: subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    default = run("default")
    assert default.returncode == 0 and default.stdout.strip() == torch_versions.default_version()
    assert run("list").stdout.split() == [r.version for r in torch_versions.releases()]
    refused = run("check", "0.0.1")
    assert refused.returncode == 2 and "torch 0.0.1 is not supported" in refused.stderr
    assert run("no-such-query").returncode == 2
