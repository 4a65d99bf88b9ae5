"""The documentation pages of `make site`: docs/*.md, the top-level README,
specs/README.md and tests/README.md rendered to HTML beside the support matrix.

A small Markdown converter for the subset these pages use: ATX headings, paragraphs,
bullet and numbered lists (nested, with code blocks inside), fenced code blocks,
pipe tables, inline code, links, **strong** and *emphasis*, backslash escapes. It
escapes every character of the text it is given (markupsafe's escape, the one the
site's Jinja templates apply): raw HTML in a page shows as text, never as markup.
A link becomes a link only when it names another rendered page (`foo.md` →
`foo.html`, with its `#fragment`) or an anchor of the same page; any other target
(a source file, a URL) keeps its text and loses the link, so a page requests nothing
and links nothing that the site lacks. Not a general Markdown implementation: a
construct outside the subset shows as its text."""
from __future__ import annotations

import glob
import os
import posixpath
import re
from dataclasses import dataclass
from typing import Callable

from markupsafe import Markup, escape

# Sources beside docs/*.md, and the file each renders to; a docs page foo.md is foo.html.
FIXED_PAGES = {"README.md": "readme.html", "docs/README.md": "docs.html", "specs/README.md": "spec-reference.html",
               "tests/README.md": "tests.html"}


@dataclass(frozen=True)
class DocPage:
    source: str  # repo-relative path of the Markdown file
    file_name: str  # the page in the site
    title: str  # the first heading's text
    html: Markup  # the page's body


def page_names(sources: list[str]) -> dict[str, str]:
    """Repo-relative Markdown path → the site page it renders to."""
    names = {}
    for source in sources:
        if source in FIXED_PAGES:
            names[source] = FIXED_PAGES[source]
        elif posixpath.dirname(source) == "docs" and source.endswith(".md"):
            names[source] = posixpath.basename(source)[:-3] + ".html"
        else:
            raise ValueError(f"{source}: not a documentation page (docs/*.md, {', '.join(p for p in FIXED_PAGES if p != 'docs/README.md')})")
    return names


def doc_sources(repo_root: str) -> list[str]:
    found = [os.path.relpath(p, repo_root).replace(os.sep, "/") for p in glob.glob(os.path.join(repo_root, "docs", "*.md"))]
    found += [p for p in FIXED_PAGES if p != "docs/README.md" and os.path.isfile(os.path.join(repo_root, p))]
    return sorted(found)


def load_docs(repo_root: str) -> list[DocPage]:
    sources = doc_sources(repo_root)
    texts = {}
    for source in sources:
        with open(os.path.join(repo_root, source), encoding="utf-8") as f:
            texts[source] = f.read()
    return render_docs(texts)


def render_docs(texts: dict[str, str]) -> list[DocPage]:
    """Markdown files (repo-relative path → text) → pages, links between them resolved."""
    names = page_names(sorted(texts))
    pages = []
    for source in sorted(texts):
        def resolve(target: str, source: str = source) -> str | None:
            return resolve_link(source, target, names)
        html, title = markdown_to_html(texts[source], resolve)
        pages.append(DocPage(source, names[source], title or names[source], html))
    return pages


def resolve_link(source: str, target: str, names: dict[str, str]) -> str | None:
    """The href a link of `source` to `target` gets in the site, or None for no link."""
    path, _, fragment = target.partition("#")
    if not path:
        return "#" + fragment if fragment else None
    if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", path) or path.startswith(("/", "\\")):
        return None  # a URL or an absolute path: nothing the site holds
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if resolved not in names:
        return None
    return names[resolved] + ("#" + fragment if fragment else "")


# --- blocks -------------------------------------------------------------------------

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
BULLET = re.compile(r"^(\s*)([-*+])(\s+)(.*)$")
ORDERED = re.compile(r"^(\s*)(\d{1,9})([.)])(\s+)(.*)$")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _list_marker(line: str):
    """(indent, content column, ordered, start) of a list item's first line, or None."""
    m = BULLET.match(line)
    if m and m.group(4).strip():
        return len(m.group(1)), len(m.group(1)) + 1 + len(m.group(3)), False, None
    m = ORDERED.match(line)
    if m and m.group(5).strip():
        return len(m.group(1)), len(m.group(1)) + len(m.group(2)) + 1 + len(m.group(4)), True, int(m.group(2))
    return None


def _is_table_start(lines: list[str], i: int) -> bool:
    return (lines[i].lstrip().startswith("|") and i + 1 < len(lines) and "-" in lines[i + 1]
            and bool(TABLE_SEPARATOR.match(lines[i + 1])))


def _interrupts_paragraph(lines: list[str], i: int) -> bool:
    line = lines[i]
    if FENCE.match(line) or HEADING.match(line) or _is_table_start(lines, i):
        return True
    marker = _list_marker(line)
    return marker is not None and (not marker[2] or marker[3] == 1)


class _Renderer:
    def __init__(self, resolve: Callable[[str], str | None]):
        self.resolve = resolve
        self.ids: dict[str, int] = {}
        self.title: str | None = None

    def blocks(self, lines: list[str]) -> list[Markup]:
        out: list[Markup] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            fence = FENCE.match(line)
            if fence:
                i = self.code_block(lines, i, fence, out)
                continue
            heading = HEADING.match(line)
            if heading:
                out.append(self.heading(len(heading.group(1)), heading.group(2)))
                i += 1
                continue
            if _is_table_start(lines, i):
                i = self.table(lines, i, out)
                continue
            if _list_marker(line):
                i = self.list(lines, i, out)
                continue
            paragraph = [line.strip()]
            i += 1
            while i < len(lines) and lines[i].strip() and not _interrupts_paragraph(lines, i):
                paragraph.append(lines[i].strip())
                i += 1
            out.append(Markup("<p>{}</p>").format(self.inline("\n".join(paragraph))))
        return out

    def code_block(self, lines: list[str], i: int, fence: re.Match, out: list[Markup]) -> int:
        indent, marker, language = len(fence.group(1)), fence.group(2), fence.group(3)
        body = []
        i += 1
        while i < len(lines):
            closing = FENCE.match(lines[i])
            if closing and closing.group(2).startswith(marker[0]) and len(closing.group(2)) >= len(marker) \
                    and not closing.group(3):
                i += 1
                break
            line = lines[i]
            body.append(line[min(indent, _indent(line)):])
            i += 1
        attribute = Markup(' class="language-{}"').format(language) if language else Markup("")
        code = "\n".join(body) + ("\n" if body else "")
        out.append(Markup("<pre><code{}>{}</code></pre>").format(attribute, code))
        return i

    def heading(self, level: int, text: str) -> Markup:
        slug = re.sub(r"[^\w\- ]", "", _plain(text).lower()).replace(" ", "-")
        seen = self.ids.get(slug, 0)
        self.ids[slug] = seen + 1
        anchor = slug if seen == 0 else f"{slug}-{seen}"
        if self.title is None:
            self.title = _plain(text)
        return Markup('<h{0} id="{1}">{2}</h{0}>').format(level, anchor, self.inline(text))

    def table(self, lines: list[str], i: int, out: list[Markup]) -> int:
        header = _cells(lines[i])
        aligns = [("right" if c.endswith(":") and not c.startswith(":") else "center" if c.startswith(":") and
                   c.endswith(":") else "") for c in _cells(lines[i + 1])]
        i += 2
        rows = []
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            rows.append(_cells(lines[i]))
            i += 1

        def cell(tag: str, column: int, text: str) -> Markup:
            align = aligns[column] if column < len(aligns) else ""
            style = Markup(' style="text-align: {}"').format(align) if align else Markup("")
            return Markup("<{0}{1}>{2}</{0}>").format(tag, style, self.inline(text))

        html = Markup("<table>\n<tr>{}</tr>\n").format(Markup("").join(cell("th", c, t) for c, t in enumerate(header)))
        for row in rows:
            row = (row + [""] * len(header))[:len(header)]
            html += Markup("<tr>{}</tr>\n").format(Markup("").join(cell("td", c, t) for c, t in enumerate(row)))
        out.append(html + Markup("</table>"))
        return i

    def list(self, lines: list[str], i: int, out: list[Markup]) -> int:
        indent, _, ordered, start = _list_marker(lines[i])
        items: list[list[str]] = []
        loose = False
        while i < len(lines):
            marker = _list_marker(lines[i])
            if marker is None or marker[0] != indent or marker[2] != ordered:
                break
            content = marker[1]
            item = [" " * content + lines[i][content:]]
            i += 1
            while i < len(lines):
                line = lines[i]
                if not line.strip():
                    # A blank line continues the item only if an indented line follows it.
                    j = i
                    while j < len(lines) and not lines[j].strip():
                        j += 1
                    if j < len(lines) and _indent(lines[j]) >= content:
                        item.extend(lines[i:j])
                        i = j
                        continue
                    break
                if _indent(line) < content:
                    break
                item.append(line)
                i += 1
            items.append([l[content:] if _indent(l) >= content else l.strip() for l in item])
            # A blank line between items makes the list loose.
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j > i and j < len(lines) and (m := _list_marker(lines[j])) and m[0] == indent and m[2] == ordered:
                loose = True
                i = j
            elif j > i:
                break
        rendered = []
        for item in items:
            parts = self.blocks(item)
            if not loose:
                parts = [Markup(p[3:-4]) if p.startswith("<p>") and p.endswith("</p>") else p for p in parts]
            rendered.append(Markup("<li>{}</li>").format(Markup("\n").join(parts)))
        tag = "ol" if ordered else "ul"
        first = Markup(' start="{}"').format(start) if ordered and start != 1 else Markup("")
        out.append(Markup("<{0}{1}>\n{2}\n</{0}>").format(tag, first, Markup("\n").join(rendered)))
        return i

    # --- inline ---------------------------------------------------------------------

    def inline(self, text: str) -> Markup:
        out: list[Markup] = []
        plain: list[str] = []

        def flush() -> None:
            if plain:
                out.append(escape("".join(plain)))
                plain.clear()

        i = 0
        while i < len(text):
            c = text[i]
            if c == "\\" and i + 1 < len(text) and text[i + 1] in "\\`*_{}[]()#+-.!|<>~\"'":
                plain.append(text[i + 1])
                i += 2
                continue
            if c == "`":
                run = len(text[i:]) - len(text[i:].lstrip("`"))
                close = text.find("`" * run, i + run)
                while close != -1 and close + run < len(text) and text[close + run] == "`":
                    close = text.find("`" * run, close + run + 1)
                if close != -1:
                    code = text[i + run:close].replace("\n", " ")
                    if len(code) > 2 and code.startswith(" ") and code.endswith(" ") and code.strip():
                        code = code[1:-1]
                    flush()
                    out.append(Markup("<code>{}</code>").format(code))
                    i = close + run
                    continue
                plain.append(text[i:i + run])
                i += run
                continue
            if c == "[":
                link = _link_at(text, i)
                if link:
                    label, target, end = link
                    flush()
                    href = self.resolve(target)
                    inner = self.inline(label)
                    out.append(Markup('<a href="{}">{}</a>').format(href, inner) if href else inner)
                    i = end
                    continue
            if c == "*":
                strong = text.startswith("**", i)
                mark = "**" if strong else "*"
                after = i + len(mark)
                opens = after < len(text) and not text[after].isspace() and text[after] != "*"
                close = _closing(text, after, mark) if opens else -1
                if close != -1:
                    flush()
                    tag = "strong" if strong else "em"
                    out.append(Markup("<{0}>{1}</{0}>").format(tag, self.inline(text[after:close])))
                    i = close + len(mark)
                    continue
                plain.append(mark)
                i = after
                continue
            plain.append(c)
            i += 1
        flush()
        return Markup("").join(out)


def _closing(text: str, start: int, mark: str) -> int:
    """Where the emphasis opened before `start` closes, skipping code spans; -1 if it does not."""
    i = start
    while i < len(text):
        if text[i] == "`":
            close = text.find("`", i + 1)
            if close == -1:
                return -1
            i = close + 1
            continue
        if text.startswith(mark, i) and not text[i - 1].isspace() and i > start and \
                (len(mark) == 2 or not text.startswith("**", i)):
            return i
        i += 1
    return -1


def _link_at(text: str, i: int):
    """(label, target, end) of a `[label](target)` starting at text[i], else None."""
    depth, j = 0, i
    while j < len(text):
        if text[j] == "\\":
            j += 2
            continue
        if text[j] == "`":
            close = text.find("`", j + 1)
            j = close + 1 if close != -1 else j + 1
            continue
        if text[j] == "[":
            depth += 1
        elif text[j] == "]":
            depth -= 1
            if depth == 0:
                break
        j += 1
    else:
        return None
    m = re.match(r"\(([^\s()]*)\)", text[j + 1:])
    if not m:
        return None
    return text[i + 1:j], m.group(1), j + 1 + m.end()


def _cells(row: str) -> list[str]:
    """A table row's cells; `\\|` is a pipe inside a cell."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    cells, current, i = [], [], 0
    while i < len(row):
        if row.startswith("\\|", i):
            current.append("|")
            i += 2
            continue
        if row[i] == "|":
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(row[i])
        i += 1
    cells.append("".join(current).strip())
    return cells


def _plain(text: str) -> str:
    """A heading's text without its inline markup (for its title and anchor)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[`*]", "", text).strip()


def markdown_to_html(text: str, resolve: Callable[[str], str | None] = lambda target: None) -> tuple[Markup, str | None]:
    """(the HTML body, the first heading's text) of a Markdown text."""
    renderer = _Renderer(resolve)
    body = Markup("\n").join(renderer.blocks(text.expandtabs(4).split("\n")))
    return body, renderer.title
