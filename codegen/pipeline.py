"""The generator's stages run in order, for one spec: load and merge its files,
parse, plan against the installed torch, render. Writes nothing (the CLI,
__main__.py, writes or checks the files; output.py)."""
from __future__ import annotations

import os

from . import layering, render, spec_parser
from .aten import AtenRegistry
from .plan import Planner
from .plan_model import BackendPlan
from .schema_drift import ReferenceSchemas

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_plan(spec_path: str, repo_root: str = REPO_ROOT, display_path: str | None = None,
              reference: ReferenceSchemas | None = None) -> BackendPlan:
    """reference: the registrations the spec was validated against (default: the
    committed generated/<vendor>/support_matrix.json), checked when this torch differs."""
    rel = display_path or os.path.relpath(spec_path, repo_root)
    root, texts = layering.load(spec_path, rel)
    model = spec_parser.parse(rel, root)
    if reference is None:
        reference = ReferenceSchemas.load(repo_root, model.vendor)
    return Planner(model, AtenRegistry.from_installed_torch(), repo_root, "\n".join(texts), reference).plan()


def generate_files(spec_path: str, repo_root: str = REPO_ROOT, display_path: str | None = None,
                   reference: ReferenceSchemas | None = None) -> tuple[BackendPlan, dict[str, str]]:
    """Loads, validates and renders one spec; raises SpecErrors, writes nothing.

    display_path is how messages and generated comments name the spec
    (default: its path relative to the repository)."""
    plan = load_plan(spec_path, repo_root, display_path, reference)
    return plan, render.render(plan)
