"""Retrieval metrics with one relevant item per case (docs/concepts/statistics.md#retrieval).

Each case has at most one "relevant item": its evidence-complete rank `r`, the smallest k whose top-k
chunks cover every support quote (None when that never happened within the retrieval depth). The
means run over every case whose support was located in the chunk store; a case whose support never
surfaced scores 0 and stays in the denominator, the way trec_eval averages with `-c`.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

RECALL_KS: tuple[int, ...] = (1, 3, 5, 10)
NDCG_CUTOFF = 10


def recall_at_k(rank: int | None, k: int) -> float:
    """1 when the relevant item ranked within the top k (1-based rank), else 0."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    """1 / rank, or 0 when the relevant item never surfaced (no cutoff beyond the retrieval depth)."""
    return 1.0 / rank if rank is not None else 0.0


def ndcg_at_k(rank: int | None, k: int = NDCG_CUTOFF) -> float:
    """Binary-gain nDCG with one relevant item: 1 / log2(rank + 1) within the cutoff (IDCG = 1), else 0."""
    if rank is None or rank > k:
        return 0.0
    return 1.0 / math.log2(rank + 1)


def first_relevant_rank(ranking: Iterable[Hashable], relevant: Iterable[Hashable]) -> int | None:
    """1-based rank of the first relevant id in `ranking`, duplicates removed keeping the first
    occurrence (trec_eval refuses duplicates); None when no relevant id appears."""
    wanted = set(relevant)
    seen: set[Hashable] = set()
    rank = 0
    for item in ranking:
        if item in seen:
            continue
        seen.add(item)
        rank += 1
        if item in wanted:
            return rank
    return None


@dataclass(frozen=True, kw_only=True)
class RetrievalSummary:
    """Means over the cases with located support; all None when there are none."""

    recall_at_k: dict[str, float | None]
    ndcg_at_10: float | None
    mrr: float | None
    n_with_support: int
    n_never_retrieved: int
    """Cases with located support whose evidence never surfaced within the depth (they score 0)."""


def summarise_retrieval(ranks: Sequence[int | None]) -> RetrievalSummary:
    """Aggregate the evidence-complete ranks of the cases whose support was located.

    Pass one entry per such case, None for a case whose evidence never surfaced: it counts as 0.
    """
    n = len(ranks)
    if n == 0:
        return RetrievalSummary(
            recall_at_k={str(k): None for k in RECALL_KS},
            ndcg_at_10=None,
            mrr=None,
            n_with_support=0,
            n_never_retrieved=0,
        )
    return RetrievalSummary(
        recall_at_k={str(k): math.fsum(recall_at_k(r, k) for r in ranks) / n for k in RECALL_KS},
        ndcg_at_10=math.fsum(ndcg_at_k(r) for r in ranks) / n,
        mrr=math.fsum(reciprocal_rank(r) for r in ranks) / n,
        n_with_support=n,
        n_never_retrieved=sum(1 for r in ranks if r is None),
    )
