"""Dense retrieval (cosine similarity of sentence embeddings) and hybrid retrieval (BM25 and dense, fused).

Fusion: each retriever ranks its `candidates` best chunks, then (`retrieval.fusion`)

- `convex` (the default): a chunk's fused score is `bm25_weight` times its BM25 score plus
  `1 - bm25_weight` times its dense score, each min-max normalised over that retriever's candidates (0
  where a retriever did not rank it): the convex combination Bruch, Gai and Ingber found more accurate
  than RRF in and out of domain (ACM TOIS 2023, "An Analysis of Fusion Functions for Hybrid Retrieval").
  It degrades gracefully when one retriever has nothing to say: on the paraphrased handbook dev set,
  where BM25 finds 6 % of quotes at 5, equal-weight RRF cut dense's recall@5 from 0.58 to 0.18, convex
  at 0.3 kept 0.52 (benchmarks/README.md);
- `rrf`: reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009), the sum over the rankings
  of 1 / (k + rank), k = 60 by default. It needs no score normalisation at all, and is what to choose
  when the two retrievers are about equally good.

A chunk's dense score is, by default, the mean of two cosines: the query's with the chunk's own vector,
and the query's with the chunk's best sentence (`SentenceUnits`, `retrieval.sentence_weight`; see
index/sentences.py for why). 0 keeps chunk vectors alone and embeds no sentence.

Both are deterministic: equal scores are ordered by chunk id, and the scores handed on are strictly
decreasing in rank order (as BM25's are), so any tool that re-sorts by score gets Cairn's order back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from cairn_action.index.chunks import ChunkStore
from cairn_action.retrieval.base import Hit, Retriever
from cairn_action.retrieval.lexical import strictly_decreasing, top_positions

RRF_K = 60
"""Reciprocal rank fusion's k (`retrieval.rrf_k`)."""
CANDIDATES = 100
"""Chunks each retriever ranks before fusion (`retrieval.candidates`)."""
BM25_WEIGHT = 0.3
"""BM25's share of a `convex` fused score (`retrieval.bm25_weight`); dense has the rest."""
SENTENCE_WEIGHT = 0.5
"""The best sentence's share of a chunk's dense score (`retrieval.sentence_weight`)."""


@dataclass(frozen=True)
class SentenceUnits:
    """The sentence vectors of a store's chunks: row i belongs to chunk position `owner[i]`, rows grouped
    by owner in ascending order (what `np.maximum.reduceat` needs)."""

    vectors: np.ndarray
    owner: np.ndarray

    def __post_init__(self) -> None:
        if len(self.vectors) != len(self.owner):
            raise ValueError(f"{len(self.vectors)} sentence vectors for {len(self.owner)} owners")
        if len(self.owner) and np.any(np.diff(self.owner) < 0):
            raise ValueError("sentence rows must be grouped by owning chunk, in chunk order")

    def best(self, query: np.ndarray, fallback: np.ndarray) -> np.ndarray:
        """Per chunk, the cosine of its most similar sentence; `fallback` (its own) where it has none."""
        best = fallback.copy()
        if len(self.owner):
            starts = np.flatnonzero(np.r_[True, self.owner[1:] != self.owner[:-1]])
            best[self.owner[starts]] = np.maximum.reduceat(self.vectors @ query, starts)
        return best


def _ordered(store: ChunkStore, scores: dict[int, float] | np.ndarray, depth: int) -> list[Hit]:
    """The `depth` best chunk positions by score, ties by chunk id, as hits with strictly decreasing
    scores."""
    chunks = store.chunks
    if isinstance(scores, dict):
        ranked = sorted(scores.items(), key=lambda item: (-item[1], store.chunk_id(item[0])))[:depth]
    else:
        ranked = top_positions(store, scores, depth)
    values = strictly_decreasing([score for _, score in ranked])
    return [
        Hit(chunk=chunks[i], rank=rank, score=value)
        for rank, ((i, _), value) in enumerate(zip(ranked, values, strict=True), start=1)
    ]


class DenseRetriever:
    """Cosine similarity of the query's embedding and every chunk's (rows of `vectors`, L2-normalised)."""

    mode = "dense"

    def __init__(
        self,
        store: ChunkStore,
        vectors: np.ndarray,
        embed_query: Callable[[str], np.ndarray],
        *,
        sentences: SentenceUnits | None = None,
        sentence_weight: float = SENTENCE_WEIGHT,
    ) -> None:
        if len(vectors) != len(store.chunks):
            raise ValueError(f"{len(vectors)} vectors for {len(store.chunks)} chunks")
        self.store = store
        self.vectors = np.asarray(vectors, dtype=np.float32)
        self.embed_query = embed_query
        self.sentences = sentences if sentence_weight > 0 else None
        self.sentence_weight = sentence_weight

    def similarities(self, query: str) -> np.ndarray:
        if not len(self.vectors):
            return np.zeros(0, dtype=np.float32)
        q = np.asarray(self.embed_query(query), dtype=np.float32)
        own = self.vectors @ q
        if self.sentences is None:
            return own
        w = np.float32(self.sentence_weight)
        return (np.float32(1) - w) * own + w * self.sentences.best(q, own)

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


def convex_fusion(rankings: Sequence[Sequence[Hit]], weights: Sequence[float]) -> dict[str, float]:
    """chunk id -> the sum over rankings of weight x the chunk's score min-max normalised within that
    ranking (the best 1, the last 0; a ranking whose scores are all equal gives each of its chunks 1)."""
    fused: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if not ranking:
            continue
        low = min(hit.score for hit in ranking)
        span = max(hit.score for hit in ranking) - low
        for hit in ranking:
            value = (hit.score - low) / span if span > 0 else 1.0
            fused[hit.chunk.chunk_id] = fused.get(hit.chunk.chunk_id, 0.0) + weight * value
    return fused


class HybridRetriever:
    """BM25 and dense rankings of `candidates` chunks each, fused (`convex` or `rrf`, module docstring).
    `retrievers` are BM25 first, then dense: `bm25_weight` is the first one's share."""

    mode = "hybrid"

    def __init__(
        self,
        store: ChunkStore,
        retrievers: Sequence[Retriever],
        *,
        fusion: str = "convex",
        k: int = RRF_K,
        bm25_weight: float = BM25_WEIGHT,
        candidates: int = CANDIDATES,
    ) -> None:
        if fusion not in ("convex", "rrf"):
            raise ValueError(f"unknown fusion {fusion!r}")
        self.store = store
        self.retrievers = tuple(retrievers)
        self.fusion = fusion
        self.k = k
        self.weights = (bm25_weight, 1.0 - bm25_weight)
        self.candidates = candidates

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        if depth <= 0:
            return []
        width = max(depth, self.candidates)
        rankings = [r.retrieve(query, width) for r in self.retrievers]
        if self.fusion == "rrf":
            fused = reciprocal_rank_fusion(rankings, self.k)
        else:
            fused = convex_fusion(rankings, self.weights)
        position = self.store.position
        return _ordered(self.store, {position(cid): score for cid, score in fused.items()}, depth)
