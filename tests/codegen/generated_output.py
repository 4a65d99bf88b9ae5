"""Which generator output the codegen tests compare with, for the torch running them."""
import os

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _generated_dir() -> str:
    """What `make generate` wrote for the torch running these tests: the committed
    generated/ for the default torch (.ci/torch_versions' first line), else
    build/torch-<version>/generated (make ... TORCH=<version>)."""
    import torch
    with open(os.path.join(REPO_ROOT, ".ci", "torch_versions")) as f:
        default = next(line.split("|")[0].strip() for line in f if line.strip() and not line.startswith("#"))
    version = torch.__version__.split("+")[0]
    if version == default:
        return os.path.join(REPO_ROOT, "generated")
    return os.path.join(REPO_ROOT, "build", f"torch-{version}", "generated")


GENERATED_DIR = _generated_dir()
