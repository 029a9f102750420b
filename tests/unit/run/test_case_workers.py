"""How many threads a run's cases get (run/evaluation.py `case_workers`): one for a deterministic system
over BM25, whose work holds the GIL throughout; `run.max_concurrency` for anything that waits."""

from __future__ import annotations

import pytest
from run_fakes import make_header

from cairn_action.run.evaluation import case_workers


def test_case_workers__stub_and_lexical_judge_over_bm25__one_thread() -> None:
    assert case_workers(make_header(deterministic=True, retrieval_mode="bm25"), 4) == 1


@pytest.mark.parametrize(
    "changes",
    [
        {"deterministic": False, "retrieval_mode": "bm25"},  # a model answers or judges: it waits
        {"deterministic": True, "retrieval_mode": "dense"},  # the query encoder releases the GIL
        {"deterministic": True, "retrieval_mode": "hybrid"},
        {"deterministic": True, "retrieval_mode": "target"},
        {"deterministic": True, "retrieval_mode": "bm25", "query_rewriting": True},  # a model call
        {"deterministic": True, "retrieval_mode": "bm25", "reranker": True},
    ],
)
def test_case_workers__anything_that_waits__max_concurrency(changes: dict[str, object]) -> None:
    assert case_workers(make_header(**changes), 4) == 4
    assert case_workers(make_header(**changes), 1) == 1
