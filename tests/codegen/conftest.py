import importlib.util
import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if importlib.util.find_spec("codegen") is None:  # `make mutation` puts its mutated copy first: keep it
    sys.path.insert(0, REPO_ROOT)

