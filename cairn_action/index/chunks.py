"""Documents → chunks with character offsets → a store.

A document is cut into pieces that never split a sentence or a table row: markdown headings, table rows
and list items (one per line), and sentences of running text. Pieces are packed greedily up to `size`
characters; the cut prefers a section start, then a paragraph break, then any piece end, as long as the
chunk keeps at least half its target length. The next chunk repeats the trailing pieces of the previous
one that fit in `overlap` characters, except across a section start, where continuity has no value.

Offsets always refer to the raw document text (`chunk.text == document.text[start:end]`); the heading
path and, for a chunk that starts inside a table, the table's header row are kept beside the text as
retrieval context, never inside it.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, overload

if TYPE_CHECKING:  # numpy is imported by the methods that need it: this module is on every command's path
    import numpy as np

from cairn_action.index.corpus import Corpus, Document

CHUNKER_VERSION = "paragraph-sentence-1"

# A sentence ends at . ! or ? (optionally closed by a quote or bracket) followed by whitespace and an
# upper-case letter, digit, quote or bracket. Decimal points ("2.5") and abbreviations followed by a
# lower-case word ("e.g. the") therefore do not end sentences.
_SENTENCE_END = re.compile(r"""[.!?]["')\]]?\s+(?=[A-Z0-9"'(\[£$€*])""")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LINE_ITEM = re.compile(r"^\s*(\||[-*+]\s|\d+[.)]\s)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_ITEM_STARTS = frozenset("|-*+0123456789")
"""First characters (after indentation) a `_LINE_ITEM` line can have: a cheap test before the regex."""

_SECTION, _PARAGRAPH, _LINE = 3, 2, 1


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
    table_header: str = ""
    """The header row of the table the chunk starts inside, when it starts below that row; else ""."""

    @property
    def context(self) -> str:
        """Heading path and table header: what a reader of the chunk alone would be missing."""
        return "\n".join(part for part in (self.heading, self.table_header) if part)


class Piece(NamedTuple):
    """A unit the chunker never splits: a heading, a table row, a list item or a sentence.

    A named tuple rather than a frozen dataclass: a corpus has ~10 pieces per chunk, and building them
    was a visible part of indexing."""

    start: int
    end: int
    heading: str
    """The heading path in force at the piece (for a heading line, the path it opens)."""
    table_header: str
    """The header row of the table this row belongs to; "" outside tables."""
    is_heading: bool
    is_row: bool
    """A table row (including the header and rule rows)."""
    boundary: int
    """Strength of the break before the piece: section (3) > paragraph (2) > line or sentence (1)."""


def make_chunk_id(doc: str, start: int, end: int) -> str:
    """`<doc path>#<start>-<end>`: readable in reports and stable across runs and machines."""
    return f"{doc}#{start}-{end}"


def sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The sentences of `text[start:end]` as (start, end) offsets into `text`, trailing spaces excluded."""
    spans = []
    pos = start
    for match in _SENTENCE_END.finditer(text, start, end):
        cut = match.start() + len(match.group().rstrip())
        spans.append((pos, cut))
        pos = match.end()
    if pos < end:
        spans.append((pos, end))
    return spans


def _hard_split(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """Cut an over-long piece at whitespace near `size`, so no chunk is ever more than `size` long."""
    spans = []
    while end - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        cut = cut if cut > start else start + size
        spans.append((start, cut))
        start = cut
        while start < end and text[start].isspace():
            start += 1
    if start < end:
        spans.append((start, end))
    return spans


def split_pieces(text: str, size: int) -> list[Piece]:
    """The unsplittable pieces of a markdown text, in order, none longer than `size` (headings aside)."""
    pieces: list[Piece] = []
    path: list[tuple[int, str]] = []  # (level, title)
    context = ""  # " > ".join of the path's titles, rebuilt only when a heading changes the path
    header_row = ""
    boundary = _SECTION
    pos = 0
    for line in text.splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        stripped = line.strip()
        if not stripped:
            boundary = max(boundary, _PARAGRAPH)
            header_row = ""
            continue
        begin = line_start + (len(line) - len(line.lstrip()))
        finish = line_start + len(line.rstrip())
        first = stripped[0]
        heading = _HEADING.match(stripped) if first == "#" else None
        if heading:
            level = len(heading.group(1))
            path = [(lv, t) for lv, t in path if lv < level] + [(level, heading.group(2))]
            context = " > ".join(t for _, t in path)
            pieces.append(Piece(begin, finish, context, "", True, False, _SECTION))
            boundary = _PARAGRAPH
            header_row = ""
            continue
        if first in _ITEM_STARTS and _LINE_ITEM.match(line):
            is_row = first == "|"
            if is_row and _TABLE_RULE.match(stripped) and pieces and not header_row:
                header_row = text[pieces[-1].start : pieces[-1].end]
            row_header = header_row if is_row else ""
            if finish - begin <= size:
                pieces.append(Piece(begin, finish, context, row_header, False, is_row, boundary))
            else:
                spans = _hard_split(text, begin, finish, size)
                for i, (s, e) in enumerate(spans):
                    piece = Piece(s, e, context, row_header, False, is_row, boundary if i == 0 else _LINE)
                    pieces.append(piece)
            boundary = _LINE
            continue
        for s, e in sentence_spans(text, begin, finish):
            if e - s <= size:
                pieces.append(Piece(s, e, context, "", False, False, boundary))
                boundary = _LINE
                continue
            for i, (hs, he) in enumerate(_hard_split(text, s, e, size)):
                pieces.append(Piece(hs, he, context, "", False, False, boundary if i == 0 else _LINE))
                boundary = _LINE
    return pieces


def _choose_end(pieces: list[Piece], first: int, size: int) -> int:
    """Index one past the last piece of the chunk starting at `first`."""
    start = pieces[first].start
    last = first
    while last + 1 < len(pieces) and pieces[last + 1].end - start <= size:
        last += 1
    if last + 1 >= len(pieces):
        return len(pieces)
    # Prefer the strongest break that still leaves the chunk at least half full; never end on a heading.
    best, best_strength = last + 1, -1
    for cut in range(last + 1, first, -1):
        if pieces[cut - 1].end - start < size // 2:
            break
        strength = pieces[cut].boundary if not pieces[cut - 1].is_heading else -1
        if strength > best_strength:
            best, best_strength = cut, strength
    while best - 1 > first and pieces[best - 1].is_heading:
        best -= 1
    return best


def _next_start(pieces: list[Piece], first: int, end: int, overlap: int) -> int:
    if end >= len(pieces) or pieces[end].boundary == _SECTION or overlap == 0:
        return end
    nxt = end
    while nxt - 1 > first and pieces[end - 1].end - pieces[nxt - 1].start <= overlap:
        nxt -= 1
    return nxt


def chunk_spans(text: str, size: int, overlap: int) -> list[tuple[int, int, str, str]]:
    """(start, end, heading path, table header) of each chunk of a document's `text`."""
    pieces = split_pieces(text, size)
    spans = []
    first = 0
    while first < len(pieces):
        end = _choose_end(pieces, first, size)
        head = pieces[first]
        parent = head.heading.rpartition(" > ")[0] if head.is_heading else head.heading
        spans.append((head.start, pieces[end - 1].end, parent, head.table_header))
        first = _next_start(pieces, first, end, overlap)
    return spans


def _chunks_of(document: Document, spans: list[tuple[int, int, str, str]]) -> list[Chunk]:
    path, text = document.path, document.text
    return [
        Chunk(
            chunk_id=make_chunk_id(path, start, stop),
            doc=path,
            start=start,
            end=stop,
            text=text[start:stop],
            heading=heading,
            table_header=table_header,
        )
        for start, stop, heading, table_header in spans
    ]


def chunk_document(document: Document, size: int, overlap: int) -> list[Chunk]:
    """Cut one document into chunks of about `size` characters sharing about `overlap` characters."""
    return _chunks_of(document, chunk_spans(document.text, size, overlap))


class ChunkTable(Sequence[Chunk]):
    """Chunks kept as arrays (document, offsets, heading, table header), each `Chunk` built when first
    asked for, its text sliced from its document then (a document's text is read lazily too).

    What the index cache hands out: a warm run over 107,040 chunks builds the few it retrieves, instead
    of every chunk and its text (half a second at ten times the handbook). `doc` is nondecreasing
    (chunks in document order), so a document's chunks are one contiguous range."""

    def __init__(
        self,
        documents: Sequence[Document],
        doc: np.ndarray,
        start: np.ndarray,
        end: np.ndarray,
        heading: np.ndarray,
        table_header: np.ndarray,
        contexts: Sequence[str],
    ) -> None:
        import numpy as np

        n = len(doc)
        if not len(start) == len(end) == len(heading) == len(table_header) == n:
            raise ValueError("chunk arrays of different lengths")
        if n and (int(doc.min()) < 0 or int(doc.max()) >= len(documents) or np.any(np.diff(doc) < 0)):
            raise ValueError("chunk documents out of order or out of range")
        for refs in (heading, table_header):
            if n and (int(refs.min()) < 0 or int(refs.max()) >= len(contexts)):
                raise ValueError("chunk contexts out of range")
        self._documents = documents
        self._doc, self._start, self._end = doc, start, end
        self._heading, self._table_header, self._contexts = heading, table_header, contexts
        self._built: dict[int, Chunk] = {}
        self._doc_index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._doc)

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> list[Chunk]: ...
    def __getitem__(self, index: int | slice) -> Chunk | list[Chunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("chunk index out of range")
        chunk = self._built.get(i)
        if chunk is None:
            document = self._documents[int(self._doc[i])]
            start, end = int(self._start[i]), int(self._end[i])
            chunk = self._built[i] = Chunk(
                chunk_id=make_chunk_id(document.path, start, end),
                doc=document.path,
                start=start,
                end=end,
                text=document.text[start:end],
                heading=self._contexts[int(self._heading[i])],
                table_header=self._contexts[int(self._table_header[i])],
            )
        return chunk

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def chunk_id(self, i: int) -> str:
        """The id of chunk `i`, without building it (its text unread)."""
        return make_chunk_id(self._documents[int(self._doc[i])].path, int(self._start[i]), int(self._end[i]))

    def doc_range(self, doc_path: str) -> tuple[int, int]:
        """Positions [lo, hi) of `doc_path`'s chunks (empty for a document without any)."""
        import numpy as np

        if self._doc_index is None:
            self._doc_index = {d.path: i for i, d in enumerate(self._documents)}
        d = self._doc_index.get(doc_path)
        if d is None:
            return 0, 0
        lo, hi = np.searchsorted(self._doc, [d, d + 1])
        return int(lo), int(hi)

    def spans(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        return self._start[lo:hi], self._end[lo:hi]


@dataclass(frozen=True)
class ChunkStore:
    """Every chunk of a corpus, in document order, with lookups by id and by character span.

    `chunks` is a tuple, or a `ChunkTable` (from the index cache), whose lookups build only the chunks
    they return."""

    chunks: Sequence[Chunk]
    size: int = 0
    """The chunking parameters the store was built with (0 when built by hand, e.g. in a test)."""
    overlap: int = 0
    _by_id: dict[str, Chunk] = field(init=False, repr=False, compare=False)
    _position: dict[str, int] = field(init=False, repr=False, compare=False)
    _by_doc: dict[str, tuple[list[int], list[Chunk]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.chunks, ChunkTable):
            return
        by_doc: dict[str, list[Chunk]] = {}
        for chunk in self.chunks:
            by_doc.setdefault(chunk.doc, []).append(chunk)
        object.__setattr__(self, "_by_id", {c.chunk_id: c for c in self.chunks})
        object.__setattr__(self, "_position", {c.chunk_id: i for i, c in enumerate(self.chunks)})
        sorted_docs = {}
        for doc, items in by_doc.items():
            items.sort(key=lambda c: (c.start, c.end))
            sorted_docs[doc] = ([c.start for c in items], items)
        object.__setattr__(self, "_by_doc", sorted_docs)

    def get(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id, or None."""
        if not isinstance(self.chunks, ChunkTable):
            return self._by_id.get(chunk_id)
        position = self._table_position(self.chunks, chunk_id)
        return None if position is None else self.chunks[position]

    def position(self, chunk_id: str) -> int:
        """The position in `chunks` of the chunk with this id (KeyError if there is none)."""
        if isinstance(self.chunks, ChunkTable):
            found = self._table_position(self.chunks, chunk_id)
        else:
            found = self._position.get(chunk_id)
        if found is None:
            raise KeyError(chunk_id)
        return found

    @staticmethod
    def _table_position(table: ChunkTable, chunk_id: str) -> int | None:
        import numpy as np

        doc, _, span = chunk_id.rpartition("#")
        start, _, end = span.partition("-")
        if not (start.isdigit() and end.isdigit()):
            return None
        lo, hi = table.doc_range(doc)
        starts, ends = table.spans(lo, hi)
        found = np.flatnonzero((starts == int(start)) & (ends == int(end)))
        return lo + int(found[0]) if len(found) else None

    def overlapping(self, doc_path: str, start: int, end: int) -> list[Chunk]:
        """Chunks of `doc_path` sharing at least one character with [start, end), in document order."""
        table = self.chunks
        if isinstance(table, ChunkTable):
            import numpy as np

            lo, hi = table.doc_range(doc_path)
            starts, ends = table.spans(lo, hi)
            hits = np.flatnonzero((starts < end) & (ends > start))
            order = np.lexsort((ends[hits], starts[hits]))
            return [table[lo + int(i)] for i in hits[order]]
        starts, items = self._by_doc.get(doc_path, ([], []))
        upto = bisect.bisect_left(starts, end)
        return [c for c in items[:upto] if c.end > start]

    def chunk_id(self, position: int) -> str:
        """The id of the chunk at `position` (for a `ChunkTable`, without building the chunk)."""
        table = self.chunks
        return table.chunk_id(position) if isinstance(table, ChunkTable) else table[position].chunk_id

    @cached_property
    def fingerprint(self) -> str:
        """sha256 of the chunker version, its parameters and every chunk: a cache key for the index."""
        digest = hashlib.sha256()
        params = {"chunker": CHUNKER_VERSION, "size": self.size, "overlap": self.overlap}
        digest.update(json.dumps(params, sort_keys=True).encode())
        for c in self.chunks:
            record = [c.chunk_id, c.doc, c.start, c.end, c.heading, c.table_header, c.text]
            digest.update(b"\n" + json.dumps(record, ensure_ascii=True).encode())
        return digest.hexdigest()


def build_store(corpus: Corpus, size: int, overlap: int) -> ChunkStore:
    """Chunk every document of `corpus` (documents in path order, chunks in document order).

    Documents with identical text (copies in several folders, a page kept under two names) are cut
    once: the cut depends on the text alone, only the chunk ids carry the path."""
    if overlap >= size:
        raise ValueError(f"overlap ({overlap}) must be smaller than size ({size})")
    chunks: list[Chunk] = []
    cuts: dict[str, list[tuple[int, int, str, str]]] = {}
    for document in corpus.documents:
        spans = cuts.get(document.text)
        if spans is None:
            spans = cuts[document.text] = chunk_spans(document.text, size, overlap)
        chunks.extend(_chunks_of(document, spans))
    return ChunkStore(chunks=tuple(chunks), size=size, overlap=overlap)
