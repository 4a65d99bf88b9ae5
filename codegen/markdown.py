"""Text made safe for the Markdown pages (support_matrix.md): spec text is
data, and must neither break a table (a `|` or a line break ends a cell or a
row) nor become markup (HTML tags, links, emphasis) in a rendered page.

render.py escapes every value its Markdown template prints with text(),
except what code() already made a code span: the Markdown counterpart of
Jinja's HTML autoescaping.
"""
from __future__ import annotations

import re

_LINE_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x85\u2028\u2029]")
# Characters with a meaning in (GitHub-flavoured) Markdown inside a paragraph or a cell.
_PUNCTUATION = re.compile(r"([\\`*_\[\]|~#!])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


class Markdown(str):
    """Text that is already Markdown: printed as it is."""


def text(value: object) -> Markdown:
    """value shown literally in a paragraph or a table cell, on one line."""
    one_line = _LINE_BREAKS.sub(" ", str(value))
    escaped = _PUNCTUATION.sub(r"\\\1", one_line)
    return Markdown("".join(_HTML.get(char, char) for char in escaped))


def code(value: object) -> Markdown:
    """value as an inline code span that holds any text, in a table cell too."""
    content = _LINE_BREAKS.sub(" ", str(value)).replace("|", "\\|")  # GFM splits cells before code spans
    fence = "`" * (max((len(run) for run in re.findall(r"`+", content)), default=0) + 1)
    if content.startswith("`") or content.endswith("`"):
        content = f" {content} "
    return Markdown(f"{fence}{content}{fence}")


def html_comment(value: object) -> Markdown:
    """value inside <!-- -->, on one line: no `-->` can end the comment early."""
    one_line = _LINE_BREAKS.sub(" ", str(value))
    return Markdown("".join(_HTML.get(char, char) for char in one_line))


def finalize(value: object) -> object:
    """Jinja's finalize for Markdown templates: everything not yet Markdown is text."""
    return value if isinstance(value, Markdown) else text(value)
