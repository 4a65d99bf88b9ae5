"""The torch_fl package's layers (its docstring draws them): a module imports only
from its own layer or below, and no modules import each other in a circle.

Read from the source with `ast`, function-level imports included, so a lazy import
cannot hide a circle. A new module must be given a layer here."""
from __future__ import annotations

import ast
import pathlib

import pytest

PYTHON_ROOT = pathlib.Path(__file__).resolve().parents[2] / "runtime" / "python"
PACKAGE = "torch_fl"

FOUNDATION, DEVICE, FEATURES, STARTUP, ENTRY_POINTS = range(5)
LAYER_NAMES = ("foundation", "device", "features", "start-up", "entry points")
LAYERS = {
    "torch_fl_wheels": FOUNDATION, "torch_fl._backend": FOUNDATION, "torch_fl.log": FOUNDATION,
    "torch_fl.references": FOUNDATION, "torch_fl.post_import": FOUNDATION,
    "torch_fl.device_module": DEVICE, "torch_fl.device_memory": DEVICE,
    **{f"torch_fl.{name}": FEATURES for name in (
        "accelerate_state", "amp", "compiler", "cuda_compatibility", "data_parallel", "deepspeed_accelerator", "distributed", "fallback",
        "forced_fallback", "formats",
        "inventory", "lightning", "memory_page", "monitor", "multiprocessing", "placement", "prometheus_exporter", "support")},
    "torch_fl._startup": STARTUP,
    "torch_fl": ENTRY_POINTS, "torch_fl.cli": ENTRY_POINTS, "torch_fl.demo": ENTRY_POINTS,
    "torch_fl.__main__": ENTRY_POINTS, "torch_fl_autoload": ENTRY_POINTS,
}


def module_files() -> dict[str, pathlib.Path]:
    files = {path.stem: path for path in PYTHON_ROOT.glob("*.py")}
    for path in (PYTHON_ROOT / PACKAGE).glob("*.py"):
        files[PACKAGE if path.stem == "__init__" else f"{PACKAGE}.{path.stem}"] = path
    return files


def nearest_known(name: str, known: set[str]) -> str | None:
    """name, or the nearest package above it that is ours (torch_fl for torch_fl.unknown)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def our_imports(module: str, path: pathlib.Path, known: set[str]) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import statement in the file. From outside
    the package, importing any torch_fl.x imports torch_fl itself first (its __init__ loads the
    backend), so that counts as an import of torch_fl too."""
    package = module if path.stem == "__init__" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(filter(None, [package, base]))
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = nearest_known(name, known)
            if target is None:
                continue
            found.append((target, node.lineno))
            outside = not module.startswith(PACKAGE + ".") and module != PACKAGE
            if outside and target.startswith(PACKAGE + "."):
                found.append((PACKAGE, node.lineno))
    return found


def violations(graph: dict[str, list[tuple[str, int]]], layers: dict[str, int]) -> list[str]:
    """Upward imports, then circles, each named with its module and line."""
    problems = []
    for module, imports in sorted(graph.items()):
        for target, line in imports:
            if target != module and layers[target] > layers[module]:
                problems.append(f"{module}:{line} imports {target}: {LAYER_NAMES[layers[module]]} must not import "
                                f"from {LAYER_NAMES[layers[target]]}")
    state: dict[str, str] = {}

    def visit(module: str, path: list[str]) -> None:
        state[module] = "open"
        for target, line in graph.get(module, []):
            if target == module:
                continue
            if state.get(target) == "open":
                circle = path[path.index(target):] + [target]
                problems.append(f"import circle: {' -> '.join(circle)} (closed at {module}:{line})")
            elif target not in state:
                visit(target, path + [target])
        state[module] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return problems


def test_every_module_has_a_layer():
    unplaced = sorted(set(module_files()) - set(LAYERS))
    assert not unplaced, f"give each new module a layer in {__file__}: {unplaced}"
    gone = sorted(set(LAYERS) - set(module_files()))
    assert not gone, f"modules listed here that no longer exist: {gone}"


def test_no_module_imports_a_layer_above_it_or_in_a_circle():
    files = module_files()
    graph = {module: our_imports(module, path, set(files)) for module, path in files.items()}
    assert violations(graph, LAYERS) == []


@pytest.mark.parametrize("graph, expected", [
    ({"torch_fl._backend": [("torch_fl.fallback", 7)], "torch_fl.fallback": []},
     ["torch_fl._backend:7 imports torch_fl.fallback: foundation must not import from features"]),
    ({"torch_fl.amp": [("torch_fl.placement", 3)], "torch_fl.placement": [("torch_fl.amp", 9)]},
     ["import circle: torch_fl.amp -> torch_fl.placement -> torch_fl.amp (closed at torch_fl.placement:9)"]),
])
def test_the_check_names_an_upward_import_and_a_circle(graph, expected):
    assert violations(graph, LAYERS) == expected


def test_the_wheels_reader_imports_neither_torch_nor_the_package():
    """torch_fl_wheels runs inside `import torch` (the autoload hook) and before the backend loads."""
    path = PYTHON_ROOT / "torch_fl_wheels.py"
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
    assert imported & {"torch", PACKAGE} == set()


def test_importing_a_submodule_from_outside_the_package_imports_the_package(tmp_path):
    module = tmp_path / "torch_fl_wheels.py"
    module.write_text("import torch_fl.log\nfrom torch_fl.no_such_module import x\n")
    known = {"torch_fl", "torch_fl.log", "torch_fl_wheels"}
    assert our_imports("torch_fl_wheels", module, known) == [("torch_fl.log", 1), ("torch_fl", 1), ("torch_fl", 2)]


def test_a_lazy_import_inside_a_function_counts(tmp_path):
    (tmp_path / "torch_fl").mkdir()
    module = tmp_path / "torch_fl" / "log.py"
    module.write_text("def f():\n    import torch_fl\n    from . import _backend\n")
    assert our_imports("torch_fl.log", module, {"torch_fl", "torch_fl.log", "torch_fl._backend"}) == [
        ("torch_fl", 2), ("torch_fl._backend", 3)]
