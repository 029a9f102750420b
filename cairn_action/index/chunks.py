"""Documents → chunks with character offsets → a store.

(Interface fixed here; the chunking algorithm is implemented in `build_store`.)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    """A slice of one document. `text == document.text[start:end]`."""

    chunk_id: str
    """Deterministic: derived from the document path and the offsets."""
    doc: str
    """Corpus-relative POSIX path of the document."""
    start: int
    end: int
    text: str
    heading: str = ""
    """The markdown heading path the chunk sits under (context for retrieval; not part of `text`)."""
