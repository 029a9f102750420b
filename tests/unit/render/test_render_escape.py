"""Untrusted text becomes inert markdown: one line, no mention, no link, no HTML, no cell break."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from cairn_action.render.escape import ZWJ, escape_text, safe_token, truncate

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _inline_types(text: str) -> set[str]:
    """The inline token types `text` produces when it follows other text in a paragraph."""
    (_, inline, _) = MD.parse(f"x {text}")
    return {child.type for child in inline.children or []}


def test_escape__mention__zero_width_joiner_after_at() -> None:
    assert escape_text("ping @octocat and @org/team") == f"ping @{ZWJ}octocat and @{ZWJ}org/team"


def test_escape__issue_reference__zero_width_joiner_after_hash() -> None:
    assert escape_text("see #12") == f"see #{ZWJ}12"


@pytest.mark.parametrize(
    "url", ["https://evil.example/x", "HTTP://evil.example", "www.evil.example", "_https://e.x"]
)
def test_escape__urls__scheme_or_www_broken(url: str) -> None:
    escaped = escape_text(url)
    assert "://" not in escaped and "www." not in escaped.lower()
    assert ZWJ in escaped


def test_escape__html__entities_so_no_tag_or_comment_opens() -> None:
    escaped = escape_text('</details><!-- hidden --><img src=x onerror="alert(1)">&amp;')
    assert "<" not in escaped and ">" not in escaped
    assert escaped.startswith("&lt;/details&gt;&lt;")
    assert "&amp;amp;" in escaped
    assert "html_inline" not in _inline_types(escaped)


def test_escape__markdown_syntax__rendered_as_literal_text() -> None:
    text = "**bold** _em_ `code` [link](http://x) ![img](y) ~~gone~~ $x$ a|b \\"
    escaped = escape_text(text)
    assert _inline_types(escaped) == {"text"}
    assert MD.renderInline(f"x {escaped}").replace(ZWJ, "") == "x " + text.replace('"', "&quot;")


def test_escape__pipe__escaped_for_table_cells() -> None:
    assert escape_text("a|b") == "a\\|b"
    rendered = MD.render(f"| h |\n|---|\n| {escape_text('a|b|c')} |\n")
    assert "<td>a|b|c</td>" in rendered


def test_escape__line_breaks_and_controls__one_line() -> None:
    assert (
        escape_text("line one\r\n\n# heading\tthree\u2028four\x00five")
        == f"line one #{ZWJ} heading three four five"
    )


def test_escape__bidi_overrides_and_foreign_joiners__removed() -> None:
    assert escape_text(f"abc\u202edcba\u2066x{ZWJ}y") == "abcdcbaxy"


def test_escape__lone_surrogate__replacement_character() -> None:
    assert escape_text("ok\ud800") == "ok\ufffd"


def test_escape__long_text__cut_before_escaping_with_ellipsis() -> None:
    escaped = escape_text("a" * 1000, limit=10)
    assert escaped == "a" * 9 + "…"


def test_escape__none_or_blank__empty_placeholder() -> None:
    assert escape_text(None, empty="—") == "—"
    assert escape_text(" \n ", empty="—") == "—"


def test_truncate__short_text__unchanged() -> None:
    assert truncate("abc", 3) == "abc"
    assert truncate("abcd", 3) == "ab…"
    assert truncate("abcd", 0) == ""


def test_safe_token__only_name_characters() -> None:
    assert safe_token("default --> <script>") == "default--script"
    assert safe_token("@@") == "unnamed"


def test_escape__metric_name_with_at__no_joiner_so_ctrl_f_finds_it() -> None:
    # `recall@5` is no mention (a letter precedes the @) and no e-mail address (no dot follows it).
    assert escape_text("recall@5 fell; nDCG@10 and recall@10.") == "recall@5 fell; nDCG@10 and recall@10."


@pytest.mark.parametrize("text", ["@alice", "x @bob", "(@org/team)", "a@b.com", "recall@5.2", "é@x", "_@x"])
def test_escape__at_that_could_mention_or_link__keeps_the_joiner(text: str) -> None:
    assert "@" + ZWJ in escape_text(text)
