"""Finding the verbatim passage that supports an answer: `cairn golden quote`.

The golden set reference says "write the answer first, then find the quote". This does the finding: every
sentence (or list item, table row, heading) of the corpus is a candidate, read as rendered (markdown
through `golden.quotes.visible`: emphasis and link targets gone; other text as it is; whitespace runs as one
space), so the text it offers is the text a labeller would copy from the page, and `cairn golden check`
accepts it: each offered
quote is located in its document by `locate_quote`'s own rule (`QuoteLocator`), before it is shown.

Ranking, best first:
1. the sentence contains the answer: its SQuAD-normalised tokens (exact match's normalisation) hold the
   answer's as a contiguous run, so "14 days" is found in "within 14 days" but not in "140 days";
2. then by BM25 (bm25s, the lexical retriever's own scoring) of the question and the answer against the
   sentences, so that of two sentences holding "14 days" the one about the question comes first;
3. then by how many of the answer's lexical tokens (stemmed, numbers kept whole) the sentence has.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.golden.quotes import QuoteLocator, visible
from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.index.corpus import Corpus, Document
from cairn_action.index.readers import has_markdown
from cairn_action.retrieval.lexical import BM25Retriever
from cairn_action.retrieval.tokenizer import tokenize
from cairn_action.squad import normalize_answer

# A sentence ends at . ! or ? before whitespace and a capital, digit, quote or bracket; a line is always a
# unit of its own (markdown list items and table rows are lines; headings are left out).
_BOUNDARY = re.compile(r"(?<=[.!?])[ \t]+(?=[A-Z0-9\"'(\[*_`])")
# What the rendered page does not show at a line's start: heading hashes, list bullets and numbers, quotes.
_LINE_MARKUP = re.compile(r"^\s*(?:>\s*|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)*")
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]*-[\s:|-]*$")
"""A table's header rule (`| --- | :-: |`): no text to quote."""
_CELL = re.compile(r"[^|]+")
MIN_CHARS = 12
MAX_CHARS = 600


@dataclass(frozen=True)
class QuoteCandidate:
    """A passage offered as a support quote."""

    doc: str
    """How the golden set names the document: its basename when unique, else its corpus-relative path."""
    path: str
    line: int
    """1-based line of the passage's start in the document."""
    quote: str
    """The rendered text, ready to paste into support[].quote."""
    contains_answer: bool
    answer_tokens: float
    """Share of the answer's lexical tokens the passage holds."""
    score: float
    """BM25 of the question and answer against the passage."""

    def support(self) -> dict[str, str]:
        return {"doc": self.doc, "quote": self.quote}


def _contains(haystack: list[str], needle: list[str]) -> bool:
    width = len(needle)
    return bool(needle) and any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


def _table_row(line: str, offset: int) -> list[tuple[int, int]]:
    """A table row as rendered: each cell's sentences (a cell's text, without the pipes around it), and
    the row's cells together when the row has a fact no cell holds alone (`Team | $1,850`)."""
    if _TABLE_RULE.match(line):
        return []
    inner_start = line.index("|") + 1
    inner_end = line.rstrip().rstrip("|").rstrip()
    spans: list[tuple[int, int]] = []
    for cell in _CELL.finditer(line, inner_start, len(inner_end)):
        cursor = cell.start()
        for cut in [*(m for m in _BOUNDARY.finditer(line, cell.start(), cell.end())), None]:
            stop = cell.end() if cut is None else cut.start()
            text = line[cursor:stop].strip()
            if len(text) >= MIN_CHARS:
                first = cursor + (len(line[cursor:stop]) - len(line[cursor:stop].lstrip()))
                spans.append((offset + first, offset + first + len(text)))
            cursor = stop if cut is None else cut.end()
    whole = line[inner_start : len(inner_end)]
    first = inner_start + len(whole) - len(whole.lstrip())
    row = (offset + first, offset + len(inner_end))
    if row[1] - row[0] >= MIN_CHARS and row not in spans:
        spans.append(row)
    return spans


def passages(document: Document) -> list[tuple[int, int]]:
    """Raw (start, end) spans of the document's sentences, one line at most each."""
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in document.text.split("\n"):
        if line.lstrip().startswith("#"):  # a heading names a topic; it is never the quote for a fact
            offset += len(line) + 1
            continue
        if line.lstrip().startswith("|"):  # a table row: its cells, never the pipes between them
            spans += _table_row(line, offset)
            offset += len(line) + 1
            continue
        markup = _LINE_MARKUP.match(line)
        begin = markup.end() if markup else 0
        cursor = begin
        for cut in [*(m for m in _BOUNDARY.finditer(line, begin)), None]:
            stop = len(line) if cut is None else cut.start()
            text = line[cursor:stop].strip()
            if len(text) >= MIN_CHARS:
                first = cursor + (len(line[cursor:stop]) - len(line[cursor:stop].lstrip()))
                spans.append((offset + first, offset + first + len(text)))
            cursor = stop if cut is None else cut.end()
        offset += len(line) + 1
    return spans


def document_names(corpus: Corpus) -> dict[str, str]:
    """Path -> the name a golden set uses for it: the basename when no other document shares it."""
    counts: dict[str, int] = {}
    for doc in corpus.documents:
        counts[doc.basename] = counts.get(doc.basename, 0) + 1
    return {d.path: d.basename if counts[d.basename] == 1 else d.path for d in corpus.documents}


class QuoteIndex:
    """Every candidate passage of a corpus, tokenised and indexed once (an import asks it per row)."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._names = document_names(corpus)
        self._lines: list[int] = []
        self._normalised: list[list[str]] = []
        self._lexical: list[set[str]] = []
        chunks: list[Chunk] = []
        for document in corpus.documents:
            locator = QuoteLocator(document.text)
            markdown = has_markdown(document.path)
            for start, end in passages(document):
                raw = document.text[start:end]
                # What the page shows: markdown without its markup; any other text as it is (one space
                # for a run of whitespace), underscores and asterisks included.
                quote = (visible(raw).text if markdown else " ".join(raw.split()))[:MAX_CHARS]
                if len(quote) < MIN_CHARS or locator.locate(quote) is None:
                    continue  # only what `cairn golden check` will accept is offered
                chunks.append(Chunk(f"{document.path}:{start}", document.path, start, end, quote))
                self._lines.append(document.text.count("\n", 0, start) + 1)
                self._normalised.append(normalize_answer(quote).split())
                self._lexical.append(set(tokenize(quote)))
        self._chunks = chunks
        self._bm25 = BM25Retriever(ChunkStore(tuple(chunks))) if chunks else None

    def find(
        self, answer: str, *, question: str = "", documents: Sequence[Document] | None = None, top: int = 5
    ) -> list[QuoteCandidate]:
        """The `top` passages of `documents` (default: the whole corpus) best supporting `answer`."""
        if self._bm25 is None:
            return []
        bm25 = self._bm25.scores(f"{question} {answer}")
        wanted = normalize_answer(answer).split()
        wanted_lexical = set(tokenize(answer))
        paths = None if documents is None else {d.path for d in documents}
        ranked: list[QuoteCandidate] = []
        for i, chunk in enumerate(self._chunks):
            if paths is not None and chunk.doc not in paths:
                continue
            contains = _contains(self._normalised[i], wanted)
            share = len(wanted_lexical & self._lexical[i]) / len(wanted_lexical) if wanted_lexical else 0.0
            if not contains and share == 0 and bm25[i] <= 0:
                continue
            ranked.append(
                QuoteCandidate(
                    doc=self._names[chunk.doc],
                    path=chunk.doc,
                    line=self._lines[i],
                    quote=chunk.text,
                    contains_answer=contains,
                    answer_tokens=share,
                    score=float(bm25[i]),
                )
            )
        ranked.sort(key=lambda c: (not c.contains_answer, -c.score, -c.answer_tokens, c.path, c.line))
        # The same sentence twice in one document is one quote (`check` locates its first occurrence).
        seen: set[tuple[str, str]] = set()
        unique = []
        for candidate in ranked:
            if (candidate.path, candidate.quote) not in seen:
                seen.add((candidate.path, candidate.quote))
                unique.append(candidate)
        return unique[:top]


def find_quotes(
    corpus: Corpus,
    answer: str,
    *,
    question: str = "",
    documents: Sequence[Document] | None = None,
    top: int = 5,
) -> list[QuoteCandidate]:
    """The `top` passages best supporting `answer` (one search: `QuoteIndex` for several)."""
    return QuoteIndex(corpus).find(answer, question=question, documents=documents, top=top)
