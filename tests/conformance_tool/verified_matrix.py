"""The verified support matrix: the generator's declared matrix (codegen.matrix)
with the verdicts `make conformance` measured, as JSON, Markdown and HTML.

The generator knows nothing of verdicts: this module extends its matrix model
(SupportMatrix.annotation), its JSON document and its pages (templates/ here
extend the generator's), and codegen never imports it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields
from typing import Optional

from codegen import matrix, render

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


@dataclass(frozen=True)
class Conformance:
    """Measured verdicts (build/<vendor>/conformance.json)."""
    provenance: dict
    headline: dict
    # (overload, dtype) → (verdict, detail)
    verdicts: dict[tuple[str, str], tuple[str, str]]

    @classmethod
    def from_report(cls, report: dict) -> "Conformance":
        verdicts = {(r["overload"], r["dtype"]): (r["verdict"], r["detail"]) for r in report["results"]}
        return cls(report["provenance"], report["headline"], verdicts)

    @classmethod
    def load(cls, path: str) -> "Conformance":
        with open(path) as f:
            return cls.from_report(json.load(f))


@dataclass(frozen=True)
class VerifiedMatrix(matrix.SupportMatrix):
    conformance: Optional[Conformance] = None

    @classmethod
    def of(cls, declared: matrix.SupportMatrix, conformance: Conformance) -> "VerifiedMatrix":
        return cls(**{f.name: getattr(declared, f.name) for f in fields(matrix.SupportMatrix)}, conformance=conformance)

    def verdict(self, row: matrix.MatrixRow, dtype: str) -> str:
        return self.conformance.verdicts.get((row.name, dtype), ("", ""))[0]

    def detail(self, row: matrix.MatrixRow, dtype: str) -> str:
        return self.conformance.verdicts.get((row.name, dtype), ("", ""))[1]

    def annotation(self, row: matrix.MatrixRow, dtype: str) -> str:
        return self.verdict(row, dtype)


def to_document(verified: VerifiedMatrix) -> dict:
    """The declared document, with a verdict per native dtype after each op's source
    (UNTESTED where nothing was measured) and the headline before the ops."""
    declared = matrix.to_document(verified)
    rows = {row.name: row for row in verified.rows}
    ops = []
    for op in declared["ops"]:
        row, entry = rows[op["name"]], {}
        native = [d for d, status in row.statuses if status == "native"]
        for key, value in op.items():
            entry[key] = value
            if key != "source":
                continue
            entry["verdict"] = {d: verified.verdict(row, d) or "UNTESTED" for d in native}
            details = {d: verified.detail(row, d) for d in native if verified.detail(row, d)}
            if details:
                entry["verdict_detail"] = details
        ops.append(entry)
    document = {}
    for key, value in declared.items():
        if key == "ops":
            document["conformance"] = {"provenance": verified.conformance.provenance,
                                       "headline": verified.conformance.headline}
            value = ops
        document[key] = value
    return document


def pages(verified: VerifiedMatrix, banner: str) -> dict[str, str]:
    """build/<vendor>/support_matrix.{json,md,html}."""
    return {
        "support_matrix.json": matrix.document_json(to_document(verified)),
        "support_matrix.md": render.matrix_page(verified, banner, "verified_matrix.md.j2", (TEMPLATES,)),
        "support_matrix.html": render.matrix_page(verified, banner, "verified_matrix.html.j2", (TEMPLATES,)),
    }


def write(declared: matrix.SupportMatrix, conformance_path: str, spec_path: str, out_dir: str,
          repo_root: str) -> None:
    verified = VerifiedMatrix.of(declared, Conformance.load(conformance_path))
    banner = f"Written by `make conformance` from {spec_path} and {os.path.relpath(conformance_path, repo_root)}."
    os.makedirs(out_dir, exist_ok=True)
    for name, text in pages(verified, banner).items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(text)
