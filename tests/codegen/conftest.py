import importlib.util
import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# `make mutation` puts its mutated copy (under this root) first on sys.path: keep it;
# anything else, such as another checkout's codegen, gives way to this one.
_found = importlib.util.find_spec("codegen")
if _found is None or not (_found.origin or "").startswith(REPO_ROOT + os.sep):
    sys.path.insert(0, REPO_ROOT)

