"""A chunk's sentences: the finer units dense retrieval also embeds.

A support quote is usually one sentence or one list item, while a chunk is some 800 characters of
several. A chunk's single embedding averages them, so a question about one sentence ranks the chunk
below others that are about the question's topic as a whole; the paraphrased handbook dev set shows
it (the right document's other chunk retrieved, not the quoted one). Scoring a chunk also by its best
sentence fixes much of that (benchmarks/README.md, "sentence units").

The split is deliberately plain and deterministic: at line breaks (markdown's list items, table rows
and headings are lines) and after `.`, `!` or `?` followed by whitespace and something that can start
a sentence. Pieces shorter than `MIN_CHARS` (`**Q:**`, a lone bullet) are joined to the next, so no
vector is spent on a fragment. `SENTENCES_VERSION` names this rule; the vectors themselves are cached by
text, so changing the rule only embeds the pieces it newly produces.
"""

from __future__ import annotations

import re

SENTENCES_VERSION = "lines-sentences-20-1"
MIN_CHARS = 20
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[A-Z*\[(\"'`0-9])|\n+")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, in order, stripped; pieces under MIN_CHARS joined to the next."""
    out: list[str] = []
    pending = ""
    for piece in _BOUNDARY.split(text):
        piece = piece.strip()
        if not piece:
            continue
        pending = f"{pending} {piece}" if pending else piece
        if len(pending) >= MIN_CHARS:
            out.append(pending)
            pending = ""
    if pending:
        if out:
            out[-1] = f"{out[-1]} {pending}"
        else:
            out.append(pending)
    return out
