"""The passage a label rests on, and its digest: how a case notices that its document changed.

A quote can survive an edit that changes its meaning ("within 14 days" kept, "unless frozen" added
after it), so a support records the digest of the *passage around* its quote when it was labelled: the
paragraph (blank line to blank line) holding the quote, read as rendered (`quotes.visible`), so that
re-wrapping a line or adding emphasis does not make a case stale but changing a word does. Document-
level support digests its section (or the whole document).

Sections are markdown headings, named by their text or their slug (`## Section 4` is `section-4`), the
way `doc.md#section-4` names one in the curation guide's `contexts`.
"""

from __future__ import annotations

import hashlib
import re

from cairn_action.golden.quotes import visible

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def slug(text: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces as hyphens."""
    kept = re.sub(r"[^\w\- ]", "", visible(text).text.lower())
    return kept.strip().replace(" ", "-")


def section_span(text: str, name: str) -> tuple[int, int] | None:
    """(start, end) of the section named `name`: from its heading to the next heading of the same or a
    higher level; None when no heading matches.

    A heading matches by its text or its slug; failing that, the one heading whose slug starts with
    `name-` (`#section-4` for `## Section 4: Refunds`); failing that, `section-N` is the N-th heading of
    the document's second level (`##`), as exporters that number sections write it."""
    headings = list(_HEADING.finditer(text))
    wanted = name.strip().lower()
    chosen = next(
        (h for h in headings if wanted in (visible(h.group(2)).text.lower(), slug(h.group(2)))), None
    )
    if chosen is None:
        prefixed = [h for h in headings if slug(h.group(2)).startswith(wanted + "-")]
        chosen = prefixed[0] if len(prefixed) == 1 else None
    numbered = re.fullmatch(r"section-(\d+)", wanted)
    if chosen is None and numbered:
        second = [h for h in headings if len(h.group(1)) == 2]
        n = int(numbered.group(1))
        chosen = second[n - 1] if 1 <= n <= len(second) else None
    if chosen is None:
        return None
    level = len(chosen.group(1))
    end = next(
        (h.start() for h in headings if h.start() > chosen.start() and len(h.group(1)) <= level), len(text)
    )
    return chosen.start(), end


def section_names(text: str) -> list[str]:
    """The slugs of a document's headings, in order: the names a `#section` can use."""
    return [slug(h.group(2)) for h in _HEADING.finditer(text)]


def passage_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The paragraph(s) holding [start, end): widened to the blank lines (or the text's ends) around it.
    A quote in a markdown table's rows is held by those rows alone: a table is one "paragraph", and an
    edit to another row (another role, another price) does not touch what this label rests on."""
    rows = _table_rows(text, start, end)
    if rows is not None:
        return rows
    return _paragraph(text, start, end)


def _paragraph(text: str, start: int, end: int) -> tuple[int, int]:
    before = [m.end() for m in _BLANK_LINE.finditer(text, 0, start)]
    after = _BLANK_LINE.search(text, end)
    return (before[-1] if before else 0), (after.start() if after else len(text))


def _table_rows(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The whole lines holding [start, end) when every one of them is a table row (`| ... |`)."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", max(end - 1, start))
    last = len(text) if last < 0 else last
    lines = text[first:last].split("\n")
    if all(line.lstrip().startswith("|") for line in lines):
        return first, last
    return None


def digest(text: str) -> str:
    """`sha256:` and 16 hex digits of the text as rendered (markup and whitespace runs aside)."""
    return "sha256:" + hashlib.sha256(visible(text).text.encode("utf-8")).hexdigest()[:16]


def passage_digest(text: str, start: int, end: int, *, whole: bool) -> str:
    """The digest a support records: of the span itself when `whole` (a section or document), else of
    the paragraph(s) around it."""
    if not whole:
        start, end = passage_span(text, start, end)
    return digest(text[start:end])


def digest_holds(recorded: str, text: str, start: int, end: int, *, whole: bool) -> bool:
    """Whether a recorded digest still describes the passage: today's passage, or (for a quote in a table,
    recorded before a table row was its own passage) the whole table as it was digested then."""
    if passage_digest(text, start, end, whole=whole) == recorded:
        return True
    return (
        not whole
        and _table_rows(text, start, end) is not None
        and digest(text[slice(*_paragraph(text, start, end))]) == recorded
    )
