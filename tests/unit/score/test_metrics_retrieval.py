"""Retrieval metrics with one relevant item: docs/concepts/statistics.md#retrieval vectors and
trec_eval-style averaging."""

from __future__ import annotations

import math

import pytest

from cairn_action.score.retrieval import (
    first_relevant_rank,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank,
    summarise_retrieval,
)

# rank -> (RR, recall@1, recall@5, recall@10, nDCG@10), computed with pytrec_eval and ranx
# (docs/concepts/statistics.md#retrieval).
VECTORS = [
    (1, 1.0, 1, 1, 1, 1.0),
    (2, 0.5, 0, 1, 1, 0.630930),
    (3, 0.333333, 0, 1, 1, 0.5),
    (5, 0.2, 0, 1, 1, 0.386853),
    (10, 0.1, 0, 0, 1, 0.289065),
    (11, 0.090909, 0, 0, 0, 0.0),
    (None, 0.0, 0, 0, 0, 0.0),
]


@pytest.mark.parametrize(("rank", "rr", "r1", "r5", "r10", "ndcg"), VECTORS)
def test_single_query_metrics__match_trec_eval_vectors(
    rank: int | None, rr: float, r1: int, r5: int, r10: int, ndcg: float
) -> None:
    assert reciprocal_rank(rank) == pytest.approx(rr, abs=1e-6)
    assert recall_at_k(rank, 1) == r1
    assert recall_at_k(rank, 5) == r5
    assert recall_at_k(rank, 10) == r10
    assert ndcg_at_k(rank, 10) == pytest.approx(ndcg, abs=1e-6)


def test_first_relevant_rank__duplicates_removed_keeping_first_occurrence() -> None:
    # trec_eval refuses duplicate doc ids; the second "c2" must not push "c7" down a place.
    assert first_relevant_rank(["c1", "c2", "c2", "c7"], {"c7"}) == 3
    assert first_relevant_rank(["c1", "c2"], {"c9"}) is None
    assert first_relevant_rank(["c3", "c8", "c1", "c2", "c7"], {"c7", "c8"}) == 2  # OR: either suffices


def test_summary__never_retrieved_case_counts_zero_and_stays_in_denominator() -> None:
    # Three queries as trec_eval -c would average them: ranks 1, 4 and never.
    summary = summarise_retrieval([1, 4, None])
    assert summary.n_with_support == 3
    assert summary.n_never_retrieved == 1
    assert summary.recall_at_k == {"1": 1 / 3, "3": 1 / 3, "5": 2 / 3, "10": 2 / 3}
    assert summary.mrr == pytest.approx((1 + 0.25 + 0) / 3)
    assert summary.ndcg_at_10 == pytest.approx((1 + 1 / math.log2(5)) / 3)


def test_summary__no_located_support__all_none_not_zero() -> None:
    summary = summarise_retrieval([])
    assert summary.n_with_support == 0
    assert summary.mrr is None and summary.ndcg_at_10 is None
    assert summary.recall_at_k == {"1": None, "3": None, "5": None, "10": None}


def test_summary__recall_keys_in_reference_order() -> None:
    assert list(summarise_retrieval([2]).recall_at_k) == ["1", "3", "5", "10"]
