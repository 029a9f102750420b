"""BM25 over a chunk store (bm25s, Lucene variant) with Cairn's tokenizer.

Each chunk is indexed as its heading path, the header row of the table it continues (if any) and its
text, so a chunk in the middle of a section still matches the section's subject. The ranking is fully
deterministic: equal BM25 scores are ordered by chunk id, and the later of two equal scores is lowered
by the smallest float32 step, so scores are strictly decreasing in rank order even in single precision
and any tool that rebuilds the ranking from scores alone gets Cairn's order back (trec_eval sorts by
score and reads it into a C float: one float64 step collapsed there, issue 23).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.retrieval.base import Hit
from cairn_action.retrieval.tokenizer import tokenize

INDEX_TEXT_VERSION = "heading-header-text-1"
"""What `index_text` joins, in which order: part of the index cache's key."""


def index_text(chunk: Chunk) -> str:
    """What BM25 sees of a chunk: context first, then the text itself."""
    return "\n".join(part for part in (chunk.heading, chunk.table_header, chunk.text) if part)


def top_positions(
    store: ChunkStore, scores: np.ndarray, depth: int, *, candidates: np.ndarray | None = None
) -> list[tuple[int, float]]:
    """The `depth` best (position, score) of `scores` among `candidates` (default: every chunk), best
    first, ties by chunk id. Only the chunks scoring at least the depth-th best (ties included) are
    sorted in Python, so a query costs no Python loop over the store."""
    if candidates is None:
        candidates = np.arange(len(scores))
    if len(candidates) > depth:
        floor = np.partition(scores[candidates], len(candidates) - depth)[len(candidates) - depth]
        candidates = candidates[scores[candidates] >= floor]
    values = scores[candidates].tolist()
    ranked = sorted(
        zip(candidates.tolist(), values, strict=True), key=lambda item: (-item[1], store.chunk_id(item[0]))
    )
    return ranked[:depth]


def strictly_decreasing(scores: list[float]) -> list[float]:
    """`scores` (non-increasing) with each tie nudged just below its predecessor, by one float32 step: the
    result is strictly decreasing as float64 and still after rounding to float32."""
    result: list[float] = []
    for score in scores:
        if result and (score >= result[-1] or np.float32(score) >= np.float32(result[-1])):
            below = np.nextafter(np.float32(result[-1]), np.float32(-math.inf))
            score = float(below)
        result.append(score)
    return result


@dataclass(frozen=True)
class LexicalIndex:
    """A built BM25 index: bm25s's sparse score matrix (CSC over the vocabulary) and the vocabulary.

    What the index cache stores; `vocabulary[i]` is the token of column i."""

    vocabulary: tuple[str, ...]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int


class _Vocabulary(dict[str, int]):
    """Token -> id, a new token taking the next id (so `map(vocabulary.__getitem__, tokens)` stays in C)."""

    def __missing__(self, token: str) -> int:
        token_id = self[token] = len(self)
        return token_id


def build_lexical_index(store: ChunkStore, *, k1: float, b: float) -> LexicalIndex:
    """Tokenize every chunk once and build the BM25 matrix from token ids (bm25s then builds no vocabulary
    of its own: before, it and the retriever each built one). Chunks with identical indexed text (a
    document copied into several folders) are tokenized once."""
    vocabulary = _Vocabulary()
    seen: dict[str, list[int]] = {}
    corpus_ids = []
    for chunk in store.chunks:
        text = index_text(chunk)
        ids = seen.get(text)
        if ids is None:
            tokens = tokenize(text) or [""]  # an empty chunk still has a length of one
            ids = seen[text] = list(map(vocabulary.__getitem__, tokens))
        corpus_ids.append(ids)
    if not corpus_ids:
        empty = np.zeros(0)
        return LexicalIndex((), empty, empty.astype(np.int32), np.zeros(1, dtype=np.int32), 0)
    import bm25s  # only to build: a cached index is scored here without it (and its scipy import)

    bm25 = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
    bm25.index((corpus_ids, dict(vocabulary)), create_empty_token=False, show_progress=False)
    scores = bm25.scores
    return LexicalIndex(
        vocabulary=tuple(vocabulary),
        data=scores["data"],
        indices=scores["indices"],
        indptr=scores["indptr"],
        num_docs=int(scores["num_docs"]),
    )


class BM25Retriever:
    """Lexical retrieval over every chunk of a store; only chunks sharing a query term are returned."""

    mode = "bm25"

    def __init__(
        self, store: ChunkStore, *, k1: float = 1.2, b: float = 0.75, index: LexicalIndex | None = None
    ) -> None:
        """`index`: one built earlier for this store with these k1 and b (from the index cache)."""
        self.store = store
        self.k1 = k1
        self.b = b
        self._chunks = store.chunks
        self.index = index if index is not None else build_lexical_index(store, k1=k1, b=b)
        self._vocabulary = {token: i for i, token in enumerate(self.index.vocabulary)}

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every chunk of the store for `query`, in store order."""
        ids = [self._vocabulary[t] for t in tokenize(query) if t in self._vocabulary]
        scores = np.zeros(len(self._chunks), dtype=np.float64)
        index = self.index
        for token_id in ids:  # query order, repeats included: the sums are bm25s's own, bit for bit
            start, end = index.indptr[token_id], index.indptr[token_id + 1]
            np.add.at(scores, index.indices[start:end], index.data[start:end])
        return scores

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        """The `depth` best chunks for `query`, best first; ties ordered by chunk id."""
        if depth <= 0:
            return []
        raw = self.scores(query)
        ranked = top_positions(self.store, raw, depth, candidates=np.flatnonzero(raw > 0))
        scores = strictly_decreasing([score for _, score in ranked])
        return [
            Hit(chunk=self._chunks[i], rank=rank, score=score)
            for rank, ((i, _), score) in enumerate(zip(ranked, scores, strict=True), start=1)
        ]
