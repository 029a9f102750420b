"""Dense retrieval (cosine similarity of sentence embeddings) and hybrid retrieval (BM25 and dense, fused).

Fusion is reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each retriever ranks its
`candidates` best chunks, and a chunk's fused score is the sum over the rankings it appears in of
1 / (k + rank). k = 60 is the paper's constant and the usual default: it keeps one retriever's top rank
from outweighing agreement lower down. RRF needs no score calibration between BM25 (unbounded) and
cosine (-1..1), which is why it is the default and the only fusion offered.

Both are deterministic: equal scores are ordered by chunk id, and the scores handed on are strictly
decreasing in rank order (as BM25's are), so any tool that re-sorts by score gets Cairn's order back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cairn_action.index.chunks import ChunkStore
from cairn_action.retrieval.base import Hit, Retriever
from cairn_action.retrieval.lexical import strictly_decreasing

RRF_K = 60
"""Reciprocal rank fusion's k (`retrieval.rrf_k`)."""
CANDIDATES = 100
"""Chunks each retriever ranks before fusion (`retrieval.candidates`)."""


def _ordered(store: ChunkStore, scores: dict[int, float] | np.ndarray, depth: int) -> list[Hit]:
    """The `depth` best chunk positions by score, ties by chunk id, as hits with strictly decreasing
    scores."""
    chunks = store.chunks
    items = scores.items() if isinstance(scores, dict) else enumerate(scores.tolist())
    ranked = sorted(items, key=lambda item: (-item[1], chunks[item[0]].chunk_id))[:depth]
    values = strictly_decreasing([score for _, score in ranked])
    return [
        Hit(chunk=chunks[i], rank=rank, score=value)
        for rank, ((i, _), value) in enumerate(zip(ranked, values, strict=True), start=1)
    ]


class DenseRetriever:
    """Cosine similarity of the query's embedding and every chunk's (rows of `vectors`, L2-normalised)."""

    mode = "dense"

    def __init__(
        self, store: ChunkStore, vectors: np.ndarray, embed_query: Callable[[str], np.ndarray]
    ) -> None:
        if len(vectors) != len(store.chunks):
            raise ValueError(f"{len(vectors)} vectors for {len(store.chunks)} chunks")
        self.store = store
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.embed_query = embed_query

    def similarities(self, query: str) -> np.ndarray:
        if not len(self.vectors):
            return np.zeros(0, dtype=np.float32)
        return self.vectors @ np.asarray(self.embed_query(query), dtype=np.float32)

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        if depth <= 0 or not len(self.vectors):
            return []
        sims = self.similarities(query).astype(np.float64)
        if len(sims) > depth:  # every chunk at least as similar as the depth-th best, ties included
            floor = np.partition(sims, len(sims) - depth)[len(sims) - depth]
            keep = np.flatnonzero(sims >= floor)
            return _ordered(self.store, {int(i): float(sims[i]) for i in keep}, depth)
        return _ordered(self.store, sims, depth)


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hit]], k: int = RRF_K) -> dict[str, float]:
    """chunk id -> the sum of 1 / (k + rank) over the rankings that hold the chunk."""
    fused: dict[str, float] = {}
    for ranking in rankings:
        for hit in ranking:
            fused[hit.chunk.chunk_id] = fused.get(hit.chunk.chunk_id, 0.0) + 1.0 / (k + hit.rank)
    return fused


class HybridRetriever:
    """BM25 and dense rankings of `candidates` chunks each, fused by reciprocal rank fusion."""

    mode = "hybrid"

    def __init__(
        self,
        store: ChunkStore,
        retrievers: Sequence[Retriever],
        *,
        k: int = RRF_K,
        candidates: int = CANDIDATES,
    ) -> None:
        self.store = store
        self.retrievers = tuple(retrievers)
        self.k = k
        self.candidates = candidates
        self._position = {c.chunk_id: i for i, c in enumerate(store.chunks)}

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        if depth <= 0:
            return []
        width = max(depth, self.candidates)
        fused = reciprocal_rank_fusion([r.retrieve(query, width) for r in self.retrievers], self.k)
        return _ordered(self.store, {self._position[cid]: score for cid, score in fused.items()}, depth)
