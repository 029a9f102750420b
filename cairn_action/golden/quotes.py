"""Finding a support quote in a markdown document as a reader sees it.

A labeller copies a quote from the rendered page: `a minimum of 30 days` where the file says
`a **minimum of 30 days**`, `see the expenses page` where it says `see the [expenses page](./x.md)`, one
line where the file wraps it in two. So a quote is matched on the document's *visible text*: markdown
emphasis markers (`*`, `_`, `~`, backticks) dropped, a link or image replaced by its text, any run of
whitespace read as one space. The span returned is still in the raw text (what chunks and retrieval
see), from the first to the last visible character the quote covers.

When a quote is nowhere, `nearest_span` gives the passage that is most like it, to show the labeller
what the document says now.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

# A link or image: `[text](target)` or `![alt](target)`, or a reference link `[text][ref]`: its text is
# what is visible.
_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\](?:\([^()\s]*(?:\s+\"[^\"]*\")?\)|\[[^\[\]]*\])")
_MARKERS = frozenset("*_~`")
_NEAREST_MAX = 240  # characters of raw text shown as the nearest span


@dataclass(frozen=True)
class Visible:
    """A text's visible characters, and for each the offset of the raw character it came from."""

    text: str
    offsets: tuple[int, ...]


def visible(raw: str) -> Visible:
    """`raw` as read on the rendered page (module docstring), with offsets back into `raw`."""
    chars: list[str] = []
    offsets: list[int] = []
    links = {m.start(): m for m in _LINK.finditer(raw)}
    i = 0
    while i < len(raw):
        link = links.get(i)
        if link is not None:  # only the link's text is visible; its target is not
            _emit(raw, link.start(1), link.end(1), chars, offsets)
            i = link.end()
            continue
        _emit(raw, i, i + 1, chars, offsets)
        i += 1
    while chars and chars[-1] == " ":
        chars.pop()
        offsets.pop()
    return Visible("".join(chars), tuple(offsets))


def _emit(raw: str, start: int, end: int, chars: list[str], offsets: list[int]) -> None:
    for j in range(start, end):
        ch = raw[j]
        if ch in _MARKERS:
            continue
        if ch.isspace():
            if not chars or chars[-1] == " ":
                continue  # leading whitespace, or a run already read as one space
            ch = " "
        chars.append(ch)
        offsets.append(j)


def locate_quote(quote: str, raw: str) -> tuple[int, int] | None:
    """(start, end) of `quote` in `raw`: verbatim first, else on the visible text; None if neither."""
    return QuoteLocator(raw).locate(quote)


class QuoteLocator:
    """`locate_quote` for many quotes in one text: the visible text is computed once, when first needed."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self._seen: Visible | None = None

    def locate(self, quote: str) -> tuple[int, int] | None:
        start = self.raw.find(quote)
        if start >= 0:
            return start, start + len(quote)
        wanted = visible(quote).text
        if not wanted:
            return None
        if self._seen is None:
            self._seen = visible(self.raw)
        seen = self._seen
        at = seen.text.find(wanted)
        if at < 0:
            return None
        return seen.offsets[at], seen.offsets[at + len(wanted) - 1] + 1


def nearest_span(quote: str, raw: str) -> tuple[int, int] | None:
    """The raw span whose visible text is most like `quote`'s (a quote-sized window around the longest
    run they share), or None when they share nothing worth showing."""
    wanted = visible(quote).text
    seen = visible(raw)
    if not wanted or not seen.text:
        return None
    matcher = difflib.SequenceMatcher(None, seen.text, wanted, autojunk=False)
    block = matcher.find_longest_match(0, len(seen.text), 0, len(wanted))
    if block.size < min(8, len(wanted)):
        return None
    first = max(0, block.a - block.b)
    last = min(len(seen.text), first + len(wanted)) - 1
    start, end = seen.offsets[first], seen.offsets[last] + 1
    return start, min(end, start + _NEAREST_MAX)
