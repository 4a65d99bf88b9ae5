import os
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The tool under test, and the generator whose matrix model it extends.
TOOL = os.path.join(REPO_ROOT, "tests", "conformance_tool")
sys.path.insert(0, REPO_ROOT)
sys.path.insert(0, TOOL)
