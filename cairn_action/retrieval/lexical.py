"""BM25 over a chunk store (bm25s, Lucene variant) with Cairn's tokenizer.

Each chunk is indexed as its heading path, the header row of the table it continues (if any) and its
text, so a chunk in the middle of a section still matches the section's subject. The ranking is fully
deterministic: equal BM25 scores are ordered by chunk id, and the later of two equal scores is lowered
by the smallest float steps, so scores are strictly decreasing in rank order and any tool that rebuilds
the ranking from scores alone (trec_eval sorts by score) gets Cairn's order back.
"""

from __future__ import annotations

import math

import bm25s
import numpy as np

from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.retrieval.base import Hit
from cairn_action.retrieval.tokenizer import tokenize


def index_text(chunk: Chunk) -> str:
    """What BM25 sees of a chunk: context first, then the text itself."""
    return "\n".join(part for part in (chunk.heading, chunk.table_header, chunk.text) if part)


def strictly_decreasing(scores: list[float]) -> list[float]:
    """`scores` (non-increasing) with each tie nudged just below its predecessor."""
    result: list[float] = []
    for score in scores:
        if result and score >= result[-1]:
            score = math.nextafter(result[-1], -math.inf)
        result.append(score)
    return result


class BM25Retriever:
    """Lexical retrieval over every chunk of a store; only chunks sharing a query term are returned."""

    mode = "bm25"

    def __init__(self, store: ChunkStore, *, k1: float = 1.2, b: float = 0.75) -> None:
        self.store = store
        self.k1 = k1
        self.b = b
        self._chunks = store.chunks
        corpus_tokens = [tokenize(index_text(c)) or [""] for c in self._chunks]
        self._vocabulary = {token for tokens in corpus_tokens for token in tokens}
        self._bm25 = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float64")
        if self._chunks:
            self._bm25.index(corpus_tokens, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every chunk of the store for `query`, in store order."""
        tokens = [t for t in tokenize(query) if t in self._vocabulary]
        if not tokens or not self._chunks:
            return np.zeros(len(self._chunks), dtype=np.float64)
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float64)

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        """The `depth` best chunks for `query`, best first; ties ordered by chunk id."""
        if depth <= 0:
            return []
        raw = self.scores(query)
        candidates = [(float(raw[i]), c.chunk_id, i) for i, c in enumerate(self._chunks) if raw[i] > 0]
        candidates.sort(key=lambda item: (-item[0], item[1]))
        top = candidates[:depth]
        scores = strictly_decreasing([score for score, _, _ in top])
        return [
            Hit(chunk=self._chunks[i], rank=rank, score=score)
            for rank, ((_, _, i), score) in enumerate(zip(top, scores, strict=True), start=1)
        ]
