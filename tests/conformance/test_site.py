"""`make site`: the static support site, built from a declared matrix and a verified
one made from it; its filters and its isolation checked in a real (headless) browser."""
from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess

import pytest

import support_site  # tests/conformance_tool/support_site.py
from conftest import REPO_ROOT



CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium here (make setup installs Debian's)")
HOSTILE = "evil<script>alert(1)</script>.Tensor"


def declared() -> dict:
    with open(os.path.join(REPO_ROOT, "generated", "mlu", "support_matrix.json")) as f:
        return json.load(f)


def verified_from(document: dict) -> dict:
    """The declared matrix as `make conformance` would extend it: a verdict per native dtype
    (one FAILED), a headline, and a hostile op name (spec text is untrusted)."""
    doc = copy.deepcopy(document)
    doc["torch_version"] = "9.9.9"
    for op in doc["ops"]:
        op["verdict"] = {d: "STRICT" for d, s in op["dtypes"].items() if s == "native"}
    doc["ops"][0]["verdict"] = {d: "FAILED" for d in doc["ops"][0]["verdict"]}
    doc["ops"].append({"name": HOSTILE, "dtypes": {"float32": "native"}, "source": "specs/mlu.yaml:1",
                       "verdict": {"float32": "STRICT"}})
    doc["conformance"] = {"provenance": {"date": "2026-12-01", "commit": "0123456789abcdef"},
                          "headline": {"strict_percent": 99.5, "failed_pairs": 1, "untested_pairs": 0}}
    return doc


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("site") / "site")
    pages = [support_site.load_page(declared(), verified=False), support_site.load_page(verified_from(declared()), True)]
    diff = support_site.TorchDiffPage("2.13.0", "2.14.1", {
        "before": "2.13.0", "after": "2.14.1", "counts": {"added": 1, "removed": 0, "changed": 0},
        "changes": [{"overload": "aten::linalg_polar", "kind": "added", "before": None, "after": "linalg_polar(Tensor A)",
                     "touches": []}]})
    support_site.render_site(pages, [diff], out)
    return out, pages


def read(site_dir: str, name: str) -> str:
    with open(os.path.join(site_dir, name)) as f:
        return f.read()


def test_the_index_has_the_totals_and_links_every_page(site):
    out, pages = site
    index = read(out, "index.html")
    for page in pages:
        assert f'href="{page.file_name}"' in index and os.path.isfile(os.path.join(out, page.file_name))
    assert "99.5%" in index and "declared, not verified" in index
    assert 'href="torch-diff-2.13.0-2.14.1.html"' in index and 'href="compare.html"' in index
    assert f"<td>{pages[0].native_functional_overloads}</td>" in index


def test_spec_text_is_escaped_and_nothing_is_fetched(site):
    out, _ = site
    for name in os.listdir(out):
        text = read(out, name)
        assert "<script>alert(1)" not in text, name
        # No external resource: no http(s) URL in an attribute, no remote script or style.
        assert not re.search(r'(src|href)="(https?:)?//', text), name
        assert "default-src 'none'" in text, name
    assert "evil&lt;script&gt;" in read(out, "matrix-mlu-9.9.9.html")


def chromium(*args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", *args],
                          capture_output=True, text=True, timeout=timeout)


def shown(dom: str) -> tuple[int, int]:
    match = re.search(r"(\d+) of (\d+) rows shown", dom)
    assert match, dom[-500:]
    return int(match.group(1)), int(match.group(2))


@needs_chromium
def test_filters_hide_rows_in_a_real_browser(site):
    out, pages = site
    page = pages[1]
    url = f"file://{out}/{page.file_name}"
    assert shown(chromium("--dump-dom", url).stdout) == (len(page.rows), len(page.rows))
    expected = sum(1 for r in page.rows if "softmax" in r.name and "native" in r.statuses.split())
    dom = chromium("--dump-dom", url + "#name=softmax&status=native").stdout
    assert 0 < expected < len(page.rows)
    assert shown(dom) == (expected, len(page.rows))
    visible = re.findall(r'<tr class="row" data-name="([^"]+)"[^>]*>', dom)
    hidden = re.findall(r'<tr class="row" data-name="([^"]+)"[^>]*hidden', dom)
    assert len(visible) - len(hidden) == expected and all("softmax" in n for n in set(visible) - set(hidden))
    failed = chromium("--dump-dom", url + "#verdict=FAILED").stdout
    assert shown(failed) == (1, len(page.rows))


def page_requests(net_log: str) -> list[str]:
    """URL requests a page made (the browser's own background requests have no origin)."""
    with open(net_log) as f:
        log = json.load(f)
    kinds = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    return [e["params"]["url"] for e in log["events"] if kinds.get(e["type"]) == "URL_REQUEST_START_JOB"
            and "url" in e.get("params", {}) and e["params"].get("initiator") != "not an origin"]


@needs_chromium
def test_no_page_makes_a_request_and_the_check_sees_one_that_does(site, tmp_path):
    out, _ = site
    for name in sorted(os.listdir(out)):
        log = str(tmp_path / f"{name}.netlog.json")
        chromium(f"--log-net-log={log}", "--dump-dom", f"file://{out}/{name}")
        assert page_requests(log) == [], name
    # The control: a page without the policy that loads an image from the network is seen.
    leaky = tmp_path / "leaky.html"
    leaky.write_text('<html><body><img src="http://127.0.0.1:9/pixel.png"></body></html>')
    log = str(tmp_path / "leaky.netlog.json")
    chromium(f"--log-net-log={log}", "--dump-dom", f"file://{leaky}")
    assert page_requests(log) == ["http://127.0.0.1:9/pixel.png"]


@needs_chromium
def test_a_screenshot_is_written_next_to_the_site(site):
    out, pages = site
    shot = support_site.screenshot(out, pages[1].file_name)
    assert shot is not None
    shot = os.path.normpath(os.path.join(support_site.REPO_ROOT, shot))
    assert shot == out + "-screenshot.png"
    with open(shot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(shot) > 10_000  # a rendered table, not a blank page


# --- the documentation pages (docs/*.md, README.md, specs/README.md; doc_pages.py) --------

import html  # noqa: E402
from collections import Counter  # noqa: E402

import doc_pages  # noqa: E402  tests/conformance_tool/doc_pages.py

HREF = re.compile(r'href="([^"]*)"')
ID = re.compile(r'\bid="([^"]*)"')


def test_every_doc_renders_to_a_page_the_index_links(site):
    out, _ = site
    sources = doc_pages.doc_sources(REPO_ROOT)
    assert {"README.md", "docs/README.md", "specs/README.md", "tests/README.md"} <= set(sources)
    assert len([s for s in sources if s.startswith("docs/")]) >= 10
    index, docs_index = read(out, "index.html"), read(out, "docs.html")
    for source, name in doc_pages.page_names(sources).items():
        page = read(out, name)
        assert re.search(r"<h1 id=\"[^\"]+\">", page), name
        assert f'href="{name}"' in index, name
        if source.startswith("docs/") and source != "docs/README.md":
            assert f'href="{name}"' in docs_index, f"docs/README.md does not link {source}"
    assert '<a href="docs.html">documentation</a>' in read(out, "index.html")


def test_every_link_of_the_site_reaches_a_page_and_an_anchor_it_has(site):
    out, _ = site
    ids = {name: set(ID.findall(read(out, name))) for name in os.listdir(out)}
    links = 0
    for name in sorted(ids):
        for href in HREF.findall(read(out, name)):
            target, _, fragment = html.unescape(href).partition("#")
            target = target or name
            assert target in ids, f"{name}: a link to {href}, which the site lacks"
            assert not fragment or fragment in ids[target], f"{name}: a link to {href}, an anchor {target} lacks"
            links += 1
    assert links > 100
    # Links between docs pages became links between the rendered pages.
    assert 'href="spec-language.html#how-a-vendor-adds-an-op"' in read(out, "readme.html")
    assert 'href="spec-reference.html"' in read(out, "spec-language.html")
    assert 'href="readme.html"' in read(out, "docs.html")


def _text(page: str) -> str:
    body = page.split('<article class="doc">', 1)[1].split("</article>", 1)[0]
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


WORD = re.compile(r"[A-Za-z0-9_]+")


def test_no_words_and_no_code_are_lost_on_the_way(site):
    out, _ = site
    for source, name in doc_pages.page_names(doc_pages.doc_sources(REPO_ROOT)).items():
        with open(os.path.join(REPO_ROOT, source)) as f:
            markdown = f.read()
        page = read(out, name)
        # Every word of the Markdown is on the page (link targets, code blocks' languages and
        # the numbers of numbered lists aside).
        prose = re.sub(r"\]\([^)\s]*\)", "]", markdown)
        prose = re.sub(r"^( *```)[\w+-]+$|^( *)\d+\. ", r"\1\2", prose, flags=re.M)
        words = Counter(WORD.findall(prose))
        missing = words - Counter(WORD.findall(_text(page)))
        assert not missing, f"{source}: {sorted(missing)[:20]} not on {name}"
        # Code blocks verbatim, in order.
        fenced = [re.sub(f"^ {{0,{len(indent)}}}", "", block, flags=re.M) for indent, block in
                  re.findall(r"^( *)```[\w+-]*\n(.*?)^ *```$", markdown, flags=re.S | re.M)]
        shown = [html.unescape(b) for b in re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", page, flags=re.S)]
        assert shown == fenced, source


HOSTILE_DOC = """# Evil <script>alert(1)</script>

<img src=x onerror=alert(1)> and <details><summary>raw</summary></details>

[click](javascript:alert(1)) [quote](other.md"onclick="alert(1)) [out](https://example.com/x)
[ok](other.md#a-section) [same](#evil-scriptalert1script) [source](../runtime/src/x.cpp)
**<b>bold</b>** *<i>em</i>* `<code>` \\<escaped\\>

| a | `<td>` |
| --- | --- |
| <script>alert(2)</script> | x \\| y |

- <li>item</li>
  ```html
  <script>alert(3)</script>
  ```
"""


def test_doc_text_is_escaped_and_links_only_to_rendered_pages(tmp_path):
    docs = doc_pages.render_docs({"docs/README.md": "# Index\n\n[evil](evil.md)\n", "docs/evil.md": HOSTILE_DOC,
                                  "docs/other.md": "# Other\n\n## A section\n"})
    out = str(tmp_path / "site")
    support_site.render_site([support_site.load_page(declared(), verified=False)], [], out, docs=docs)
    page = read(out, "evil.html")
    body = page.split('<article class="doc">', 1)[1]
    for raw in ("<script", "<img", "<details", "<b>", "<i>", "<li>item", "<td>`", "<code><code>"):
        assert raw not in body, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "&lt;img src=x onerror=alert(1)&gt;" in body
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in body and "<code>&lt;code&gt;</code>" in body
    assert sorted(HREF.findall(body)) == ["#evil-scriptalert1script", "other.html#a-section"]
    assert "javascript:" not in "".join(HREF.findall(page)) and "example.com" not in "".join(HREF.findall(page))
    assert 'href="evil.html"' in read(out, "docs.html")
    assert "<title>Evil &lt;script&gt;alert(1)&lt;/script&gt;</title>" in page


def test_a_doc_that_would_replace_a_site_page_is_refused(tmp_path):
    docs = doc_pages.render_docs({"docs/index.md": "# Index\n"})
    with pytest.raises(ValueError, match="docs/index.md would render to index.html"):
        support_site.render_site([support_site.load_page(declared(), verified=False)], [], str(tmp_path / "s"),
                                 docs=docs)
    with pytest.raises(ValueError, match="not a documentation page"):
        doc_pages.render_docs({"tests/python/README.md": "# Python tests\n"})
