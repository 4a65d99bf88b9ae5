"""What spec text may become in emitted C++: comments that stay comments, and names
that are names (the spec is untrusted input: test_spec_injection covers whole specs)."""
from __future__ import annotations

from codegen import cpp_text


def test_a_comment_keeps_printable_ascii_and_escapes_the_rest():
    assert cpp_text.comment("from specs/mlu.yaml:12 ~ add(x) {y}") == "from specs/mlu.yaml:12 ~ add(x) {y}"
    assert cpp_text.comment("line\nbreak") == "line\\nbreak"
    assert cpp_text.comment("ends in a backslash \\") == "ends in a backslash \\x5c"
    assert cpp_text.comment("caf\u00e9 \u2028") == "caf\\xe9 \\u2028"
    assert cpp_text.comment("\x7f") == "\\x7f"


def test_qualified_names_may_start_at_the_global_namespace():
    for name in ("describe", "mlu_glue::describe", "::std::max", "::describe"):
        assert cpp_text.is_qualified_name(name), name
    for text in ("", "::", "a::", "a:::b", "a b", "1abc", "mlu_glue::describe()"):
        assert not cpp_text.is_qualified_name(text), text
