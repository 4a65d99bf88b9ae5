"""The generator's modules import each other only downwards through the layers of
codegen/__init__.py's table, never in a circle, and the parse stage never imports
torch: every import is read from the source (`ast`), lazy ones inside functions
and TYPE_CHECKING ones included."""
from __future__ import annotations

import ast
import os
import re

import codegen

CODEGEN = os.path.dirname(os.path.abspath(codegen.__file__))
# The packages only the layers from `torch` down may import.
TORCH_PACKAGES = ("torch", "torchgen")
_LAYER_ROW = re.compile(r"^ {3,4}(\d+) ([a-zA-Z][a-zA-Z ]*?) {2,}(\S.*)$")
_CONTINUED_ROW = re.compile(r"^ {18}(\S.*)$")


def layer_table(docstring: str) -> dict[str, tuple[int, str]]:
    """module → (layer number, layer name), from the table after `Layers.`"""
    table: dict[str, tuple[int, str]] = {}
    layer = None
    for line in docstring.split("Layers.", 1)[1].splitlines():
        row, continued = _LAYER_ROW.match(line), _CONTINUED_ROW.match(line)
        if row:
            layer = (int(row.group(1)), row.group(2))
            modules = row.group(3)
        elif continued and layer:
            modules = continued.group(1)
        else:
            continue
        for module in modules.split():
            assert module not in table, f"codegen/__init__.py's layer table lists {module} twice"
            table[module] = layer
    assert table, "codegen/__init__.py's docstring has no layer table after `Layers.`"
    return table


def imports(path: str) -> list[tuple[str, int]]:
    """(imported name, line): codegen modules by their name in the package, others by
    their top-level package."""
    found = []
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.append((parts[1] if parts[0] == "codegen" and len(parts) > 1 else parts[0], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            assert node.level <= 1, f"{path}:{node.lineno}: imports from outside codegen/ by a relative path"
            package = node.module.split(".") if node.module else []
            if node.level == 0 and package[:1] != ["codegen"]:
                found.append((package[0], node.lineno))  # a third-party or standard module
                continue
            inner = package[1:] if node.level == 0 else package
            if inner:
                found.append((inner[0], node.lineno))
            else:  # `from . import spec_model, errors`
                found += [(alias.name, node.lineno) for alias in node.names]
    return found


def module_graph() -> dict[str, list[tuple[str, int]]]:
    """codegen module → what it imports, with the line: codegen modules by their name
    in the package (a key of the graph), other packages by their top-level name."""
    modules = sorted(name[:-3] for name in os.listdir(CODEGEN) if name.endswith(".py"))
    return {module: imports(os.path.join(CODEGEN, module + ".py")) for module in modules}


def layer_violations(graph: dict[str, list[tuple[str, int]]], table: dict[str, tuple[int, str]]) -> list[str]:
    problems = []
    torch_layer = min(layer for layer in table.values() if layer[1] == "torch")
    for module, imported in sorted(graph.items()):
        if module not in table:
            problems.append(f"codegen/{module}.py is in no layer: add it to codegen/__init__.py's layer table")
            continue
        layer = table[module]
        for name, line in imported:
            if name in graph and name in table and table[name] > layer:
                problems.append(f"codegen/{module}.py:{line} imports {name} upwards: {module} is in layer "
                                f"{layer[0]} ({layer[1]}), {name} in layer {table[name][0]} ({table[name][1]})")
            elif name in TORCH_PACKAGES and layer < torch_layer:
                problems.append(f"codegen/{module}.py:{line} imports {name}, but layer {layer[0]} ({layer[1]}) is "
                                f"above layer {torch_layer[0]} ({torch_layer[1]}), the first that may")
    problems += [f"codegen/__init__.py's layer table lists {name}, which is not a module of codegen/"
                 for name in table if name not in graph]
    return problems


def cycles(graph: dict[str, list[tuple[str, int]]]) -> list[str]:
    """Each import circle once, as `a.py:3 → b.py:7 → a`."""
    found, seen = [], set()
    done: set[str] = set()

    def visit(module: str, path: list[tuple[str, int]]) -> None:
        on_path = [name for name, _ in path]
        if module in on_path:
            loop = path[on_path.index(module):]
            key = frozenset(name for name, _ in loop)
            if key not in seen:
                seen.add(key)
                found.append(" → ".join(f"codegen/{name}.py:{line}" for name, line in loop) + f" → {module}")
            return
        if module in done:
            return
        for name, line in graph[module]:
            if name in graph:
                visit(name, path + [(module, line)])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return found


def test_every_codegen_module_imports_only_its_own_layer_or_those_below_it():
    problems = layer_violations(module_graph(), layer_table(codegen.__doc__))
    assert not problems, "\n".join(problems)


def test_codegen_has_no_import_circle():
    found = cycles(module_graph())
    assert not found, "import circles:\n" + "\n".join(found)


def test_the_checks_name_an_upward_import_a_missing_layer_and_a_circle():
    table = layer_table(codegen.__doc__)
    graph = {"spec_model": [("plan_model", 12), ("enum", 5)], "plan_model": [("spec_model", 3), ("torchgen", 4)],
             "spec_reader": [("torchgen", 9)], "nowhere": []}
    problems = "\n".join(layer_violations(graph, table))
    assert "codegen/spec_model.py:12 imports plan_model upwards" in problems
    assert "codegen/nowhere.py is in no layer" in problems
    assert "codegen/spec_reader.py:9 imports torchgen" in problems
    assert "codegen/plan_model.py:3" not in problems and "codegen/plan_model.py:4" not in problems
    assert cycles(graph) == ["codegen/plan_model.py:3 → codegen/spec_model.py:12 → plan_model"]
