"""Spec text shown in the support matrix pages is
data: HTML is escaped in support_matrix.html, and in support_matrix.md it
neither breaks the table (a `|` or a line break) nor becomes markup."""
from __future__ import annotations

import json
import re

from conftest import REPO_ROOT
from test_spec_errors import VALID_SPEC

from codegen import matrix, render
from codegen.pipeline import load_plan

SCRIPT = "<script>alert(1)</script>"
HOSTILE_NOTE = f"{SCRIPT} a | b\nc [link](javascript:alert(1)) `tick` <img src=x onerror=alert(2)>"
HOSTILE_NAME = "evil<img src=x onerror=alert(3)>&.yaml"
MM = '  mm: {call: "mluOpMatMul(stream, self, mat2, out)"}'


def hostile_plan(tmp_path):
    spec = tmp_path / HOSTILE_NAME
    spec.write_text(VALID_SPEC.replace(MM, MM[:-1] + f", known_failure: {json.dumps(HOSTILE_NOTE)}}}"))
    return load_plan(str(spec), REPO_ROOT)


def outside_code_spans(markdown: str) -> str:
    """The text a renderer reads as markup: code spans show `<` literally."""
    return re.sub(r"(?<!\\)(`+)(?:(?!\1).)+?\1", "", markdown)


def unescaped_pipes(line: str) -> int:
    count, i = 0, 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        count += line[i] == "|"
        i += 1
    return count


def test_html_matrix_escapes_spec_text(tmp_path):
    files = render.render_matrix(matrix.build(hostile_plan(tmp_path)), "banner")
    html = files["support_matrix.html"]
    assert html.count("<script") == 1, "only the page's own offline filter script"
    assert "<img" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "evil&lt;img src=x onerror=alert(3)&gt;&amp;.yaml" in html
    assert json.loads(files["support_matrix.json"])["ops"][-1]["known_failure"] == HOSTILE_NOTE


def test_markdown_matrix_cells_cannot_break_the_table(tmp_path):
    markdown = render.render_matrix(matrix.build(hostile_plan(tmp_path)), "banner -->")["support_matrix.md"]
    lines = markdown.splitlines()
    header = next(line for line in lines if line.startswith("| overload |"))
    rows = [line for line in lines if line.startswith("| `")]
    assert rows and all(unescaped_pipes(row) == unescaped_pipes(header) for row in rows)
    mm = next(row for row in rows if row.startswith("| `mm`"))
    assert "a \\| b c" in mm, "the line break is a space, the pipe escaped"
    markup = outside_code_spans(markdown)
    assert "<script" not in markup and "<img" not in markup and not re.search(r"(?<!\\)\]\(", markup)
    assert "&lt;script&gt;" in mm and "\\[link\\]" in mm and "\\`tick\\`" in mm
    assert "evil&lt;img src=x onerror=alert(3)&gt;&amp;.yaml" in mm
    assert lines[0] == "<!-- banner --&gt; -->", "the banner cannot end its comment"


def test_code_spans_hold_backticks_and_pipes(tmp_path):
    from codegen import markdown
    assert markdown.code("a`b") == "``a`b``"
    assert markdown.code("`x") == "`` `x ``"
    assert markdown.code("x | y\nz") == "`x \\| y z`"



def test_the_matrix_counts_functional_overloads_apart_from_their_variants(tmp_path):
    """add.Tensor with out= and in-place forms, and mm: 2 functional, 2 variants."""
    spec = tmp_path / "mlu.yaml"
    spec.write_text(VALID_SPEC)
    support = matrix.build(load_plan(str(spec), REPO_ROOT))
    assert (support.native_overloads, support.native_functional_overloads, support.native_variant_overloads) == (4, 2, 2)
    document = matrix.to_document(support)
    assert document["native_functional_overloads"] == 2 and document["native_variant_overloads"] == 2
    assert "(2 functional, 2 out=/in-place variants)" in render.render_matrix(support, "banner")["support_matrix.md"]
