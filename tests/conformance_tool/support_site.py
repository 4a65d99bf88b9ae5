"""`make site`: the published support site, build/site/ (static, nothing fetched at
view time). One page per vendor × torch version with overload × dtype cells and
filters, totals on the index, a vendor comparison, the torch-version diffs, and the
documentation (docs/*.md and the READMEs; doc_pages.py) beside them.

It reads what the builds left: a verified matrix (`make conformance`,
<build root>/<vendor>/support_matrix.json) where there is one, otherwise the declared
matrix the generator wrote for that torch (marked "declared, not verified"), and
build/reports/torch_diff_*.json (`make diff-torch`)."""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
from dataclasses import dataclass

import jinja2

from doc_pages import DocPage, load_docs

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates", "site")
DTYPES = ("float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool",
          "complex64")


@dataclass(frozen=True)
class Cell:
    status: str  # native | fallback | error
    verdict: str  # STRICT | BASIC | FAILED | UNTESTED, or "" (not native, or not verified)


@dataclass(frozen=True)
class Row:
    name: str
    source: str
    cells: tuple[Cell, ...]  # one per DTYPES
    functional: bool

    @property
    def statuses(self) -> str:
        return " ".join(sorted({c.status for c in self.cells}))

    @property
    def verdicts(self) -> str:
        return " ".join(sorted({c.verdict for c in self.cells if c.verdict})) or "none"


@dataclass(frozen=True)
class MatrixPage:
    vendor: str
    torch_version: str
    verified: bool
    rows: tuple[Row, ...]
    native_overloads: int
    native_functional_overloads: int
    headline: dict  # the conformance headline; {} when not verified
    provenance: dict

    @property
    def file_name(self) -> str:
        return f"matrix-{self.vendor}-{self.torch_version}.html"

    @property
    def failed_pairs(self) -> int | None:
        return self.headline.get("failed_pairs") if self.verified else None

    @property
    def strict_percent(self) -> float | None:
        return self.headline.get("strict_percent") if self.verified else None


@dataclass(frozen=True)
class TorchDiffPage:
    before: str
    after: str
    document: dict

    @property
    def file_name(self) -> str:
        return f"torch-diff-{self.before}-{self.after}.html"


def _functional(name: str) -> bool:
    overload = name.split(".", 1)[1] if "." in name else ""
    return not name.split(".")[0].endswith("_") and not overload.startswith("out")


def load_page(document: dict, verified: bool) -> MatrixPage:
    rows = []
    for op in document["ops"]:
        verdicts = op.get("verdict", {}) if verified else {}
        cells = tuple(Cell(op["dtypes"].get(d, "fallback"), verdicts.get(d, "")) for d in DTYPES)
        rows.append(Row(op["name"], op["source"], cells, _functional(op["name"])))
    conformance = document.get("conformance", {}) if verified else {}
    return MatrixPage(document["vendor"], document["torch_version"], verified, tuple(rows),
                      document["native_overloads"], document.get("native_functional_overloads", 0),
                      conformance.get("headline", {}), conformance.get("provenance", {}))


def find_matrices(repo_root: str) -> list[MatrixPage]:
    """Every vendor × torch this checkout built or generated: verified where conformance ran."""
    pages: dict[tuple[str, str], MatrixPage] = {}
    build = os.path.join(repo_root, "build")
    candidates = [(p, True) for p in glob.glob(os.path.join(build, "*", "support_matrix.json"))]
    candidates += [(p, True) for p in glob.glob(os.path.join(build, "torch-*", "*", "support_matrix.json"))]
    candidates += [(p, False) for p in glob.glob(os.path.join(repo_root, "generated", "*", "support_matrix.json"))]
    candidates += [(p, False) for p in glob.glob(os.path.join(build, "torch-*", "generated", "*", "support_matrix.json"))]
    for path, may_be_verified in candidates:
        with open(path) as f:
            document = json.load(f)
        verified = may_be_verified and "conformance" in document
        if verified and not _same_spec(document, repo_root):
            continue  # a verified matrix of an older spec: the declared one of this spec is shown instead
        key = (document["vendor"], document["torch_version"])
        if key in pages and (pages[key].verified or not verified):
            continue
        pages[key] = load_page(document, verified)
    return sorted(pages.values(), key=lambda p: (p.vendor, _version_key(p.torch_version)))


def _version_key(version: str) -> tuple:
    """2.13.0 < 2.14.1; a dev or local version (2.15.0.dev20261101) sorts by its numeric parts."""
    return tuple(int(part) if part.isdigit() else 0 for part in version.replace("+", ".").split("."))


def _same_spec(document: dict, repo_root: str) -> bool:
    declared = os.path.join(repo_root, "generated", document["vendor"], "support_matrix.json")
    if not os.path.isfile(declared):
        return True
    with open(declared) as f:
        return json.load(f).get("spec_sha256") == document.get("spec_sha256")


def find_diffs(repo_root: str) -> list[TorchDiffPage]:
    diffs = []
    for path in sorted(glob.glob(os.path.join(repo_root, "build", "reports", "torch_diff_*.json"))):
        with open(path) as f:
            document = json.load(f)
        diffs.append(TorchDiffPage(document["before"], document["after"], document))
    return diffs


def comparison(pages: list[MatrixPage]) -> dict[str, list]:
    """torch version → (overload, {vendor: native|fallback|error|absent}) for the vendors built for it."""
    by_version: dict[str, list] = {}
    for version in sorted({p.torch_version for p in pages}):
        of_version = [p for p in pages if p.torch_version == version]
        vendors = [p.vendor for p in of_version]
        names = sorted({r.name for p in of_version for r in p.rows})
        status = {(p.vendor, r.name): ("native" if any(c.status == "native" for c in r.cells) else
                                       "error" if all(c.status == "error" for c in r.cells) else "fallback")
                  for p in of_version for r in p.rows}
        by_version[version] = [vendors, [(n, [status.get((v, n), "absent") for v in vendors]) for n in names]]
    return by_version


def render_site(pages: list[MatrixPage], diffs: list[TorchDiffPage], out_dir: str,
                docs: list[DocPage] | None = None) -> list[str]:
    """The site's pages, written to out_dir; `docs`: the documentation pages (default: this
    checkout's)."""
    docs = load_docs(REPO_ROOT) if docs is None else docs
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.globals["docs_index"] = next((d.file_name for d in docs if d.source == "docs/README.md"), None)
    with open(os.path.join(TEMPLATES, "filter.js")) as f:
        script = f.read()
    files = {"index.html": env.get_template("index.html.j2").render(pages=pages, diffs=diffs, docs=docs),
             "compare.html": env.get_template("compare.html.j2").render(comparison=comparison(pages), script=script)}
    for page in pages:
        files[page.file_name] = env.get_template("matrix.html.j2").render(page=page, dtypes=DTYPES, script=script)
    for diff in diffs:
        files[diff.file_name] = env.get_template("torch_diff.html.j2").render(diff=diff, script=script)
    for doc in docs:
        if doc.file_name in files:
            raise ValueError(f"{doc.source} would render to {doc.file_name}, a page the site already has")
        files[doc.file_name] = env.get_template("doc.html.j2").render(doc=doc)
    staging = out_dir + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    for name, text in files.items():
        with open(os.path.join(staging, name), "w") as f:
            f.write(text)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(staging, out_dir)
    return sorted(files)


def summary(pages: list[MatrixPage]) -> str:
    parts = []
    for p in pages:
        verdict = (f"{p.strict_percent}% STRICT, {p.failed_pairs} FAILED" if p.verified else "declared, not verified")
        parts.append(f"{p.vendor}@{p.torch_version}: {p.native_functional_overloads} functional native ({verdict})")
    return "; ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(REPO_ROOT, "build", "site"))
    args = parser.parse_args()
    pages = find_matrices(REPO_ROOT)
    if not pages:
        parser.error("no support matrix found: run `make generate` (or `make conformance`) first")
    files = render_site(pages, find_diffs(REPO_ROOT), args.out)
    shot = screenshot(args.out, pages[0].file_name)
    print(f"site: {os.path.relpath(args.out, REPO_ROOT)}/ ({len(files)} pages{', screenshot ' + shot if shot else ''}): "
          f"{summary(pages)}")
    return 0


def screenshot(site_dir: str, page: str) -> str | None:
    """<site>-screenshot.png beside the site, by headless chromium where it is installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    shot = site_dir.rstrip("/") + "-screenshot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", f"--screenshot={shot}",
                    "--window-size=1280,900", f"file://{os.path.abspath(site_dir)}/{page}"],
                   capture_output=True, timeout=120, check=False)
    return os.path.relpath(shot, REPO_ROOT) if os.path.isfile(shot) else None


if __name__ == "__main__":
    raise SystemExit(main())
