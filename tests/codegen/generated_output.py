"""Which generator output the codegen tests compare with, for the torch running them:
what `make generate` wrote for it (codegen/torch_versions.py says where)."""
import os

import torch

from codegen import torch_versions

REPO_ROOT = torch_versions.REPO_ROOT
GENERATED_DIR = torch_versions.generated_dir(torch.__version__)
