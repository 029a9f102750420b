"""An independent recomputation of every aggregate of a report from its per_case rows and the golden set.

Written from the report reference (docs/reference/report.md), not from `cairn_action.score`, so a bug there
cannot hide itself.
Used by the unit test on the committed fixture and by the integration test after a real `cairn eval`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from cairn_action.golden.models import GoldenSet
from cairn_action.report.models import PerCase, Report
from cairn_action.squad import exact_match, token_f1


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _approx(value: float | None) -> object:
    return None if value is None else pytest.approx(value, rel=1e-9, abs=1e-12)


def _behaved(row: PerCase) -> bool:
    """Answered right when answerable, abstained when not."""
    if row.answerable:
        return row.status == "answered" and row.correct is True
    return row.status == "abstained"


def assert_aggregates_recompute(report: Report, golden: GoldenSet) -> None:
    """Fail unless every number in `report` follows from its per_case rows and `golden`."""
    cases = golden.by_id()
    rows = report.per_case
    assert len({r.case_id for r in rows}) == len(rows), "a case appears twice"
    for row in rows:
        case = cases[row.case_id]
        assert row.answerable == case.answerable, row.case_id
        assert row.expected_answer == case.expected_answer and row.tags == case.tags, row.case_id
        if row.status == "answered" and case.answerable:
            assert row.exact_match == exact_match(row.answer_text or "", case.expected_answer or ""), (
                row.case_id
            )
            assert row.token_f1 == _approx(token_f1(row.answer_text or "", case.expected_answer or "")), (
                row.case_id
            )
        else:
            assert row.exact_match is None and row.token_f1 is None, row.case_id
        if row.status == "answered" and not case.answerable:
            assert row.correct is False, row.case_id
        if row.status != "answered":
            assert row.correct is None, row.case_id

    scored = [r for r in rows if r.status != "stale"]
    assert report.n_cases == len(scored)

    located = [r for r in scored if r.support_located]
    ranks = [r.retrieved_support_rank for r in located]
    ret = report.retrieval
    assert ret.n_with_support == len(located)
    for k in ("1", "3", "5", "10"):
        expect = _mean([1.0 if x is not None and x <= int(k) else 0.0 for x in ranks])
        assert ret.recall_at_k[k] == _approx(expect), f"recall@{k}"
    assert ret.mrr == _approx(_mean([1 / x if x is not None else 0.0 for x in ranks]))
    assert ret.ndcg_at_10 == _approx(
        _mean([1 / math.log2(x + 1) if x is not None and x <= 10 else 0.0 for x in ranks])
    )

    graded = [r for r in scored if r.status == "answered" and r.answerable]
    ans = report.answer
    assert ans.exact_match == _approx(_mean([1.0 if r.exact_match else 0.0 for r in graded]))
    assert ans.token_f1 == _approx(_mean([r.token_f1 or 0.0 for r in graded]))
    assert ans.judge_score == _approx(_mean([r.judge_score for r in graded if r.judge_score is not None]))
    claims = sum(r.n_claims for r in graded)
    assert ans.citation_validity == _approx(
        sum(r.n_claims_verified for r in graded) / claims if claims else None
    )
    with_claims = [r for r in graded if r.n_claims]
    assert ans.faithfulness == _approx(
        _mean([1.0 if r.n_claims_verified == r.n_claims else 0.0 for r in with_claims])
    )
    for r in graded:
        assert r.citation_validity == _approx(r.n_claims_verified / r.n_claims if r.n_claims else None)

    answered = [r for r in scored if r.status == "answered"]
    unanswerable = [r for r in scored if not r.answerable]
    answerable = [r for r in scored if r.answerable]
    ab = report.abstention
    assert ab.answer_rate == _approx(len(answered) / len(scored) if scored else None)
    error = sum(1 for r in answered if r.correct is not True) / len(answered) if answered else None
    assert ab.error_rate_answered == _approx(error)
    assert ab.guarantee_met == (None if error is None else error <= ab.alpha)
    assert ab.unanswerable_abstained_rate == _approx(
        sum(1 for r in unanswerable if r.status == "abstained") / len(unanswerable) if unanswerable else None
    )
    assert ab.answerable_answered_rate == _approx(
        sum(1 for r in answerable if r.status == "answered") / len(answerable) if answerable else None
    )
    if ab.threshold is not None:
        for r in answered:
            assert r.confidence is not None and r.confidence >= ab.threshold, r.case_id

    op = report.operational
    costs = [r.cost_usd for r in scored]
    first = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    paid = costs + [s.cost_usd for r in scored for s in r.samples]
    total = None if any(c is None for c in paid) else sum(c for c in paid if c is not None)
    assert op.cost_usd_total == _approx(total)  # every sample's calls
    assert op.cost_per_question_usd == _approx(first / len(scored) if first is not None and scored else None)
    latencies = [r.latency_ms for r in scored]
    for q, got in ((50, op.latency_p50_ms), (95, op.latency_p95_ms)):
        assert got == _approx(float(np.percentile(latencies, q)) if latencies else None), f"p{q}"
    assert op.tokens_total == sum(r.tokens + sum(s.tokens for s in r.samples) for r in scored)
    checks = sum(r.prefix_checks for r in scored)
    assert op.cache_hit_rate == _approx(sum(r.prefix_matches for r in scored) / checks if checks else None)

    groups: dict[str, list] = {}
    for r in scored:
        case = cases[r.case_id]
        keys = list(dict.fromkeys(case.tags)) + ([f"difficulty:{case.difficulty}"] if case.difficulty else [])
        for key in keys:
            groups.setdefault(key, []).append(r)
    assert list(report.by_tag) == sorted(groups)
    for key, members in groups.items():
        stats = report.by_tag[key]
        assert stats.n == len(members), key
        assert stats.answer_rate == _approx(
            sum(1 for r in members if r.status == "answered") / len(members)
        ), key
        right = sum(1 for r in members if _behaved(r))
        assert stats.correct_rate == _approx(right / len(members)), key
        with_support = [r for r in members if r.support_located]
        r5 = _mean(
            [
                1.0 if r.retrieved_support_rank is not None and r.retrieved_support_rank <= 5 else 0.0
                for r in with_support
            ]
        )
        assert stats.recall_at_5 == _approx(r5), key

    counts = report.notes.counts
    for status in ("answered", "abstained", "error", "stale"):
        assert counts[status] == sum(1 for r in rows if r.status == status), status
    assert counts["abstained_by_threshold"] == sum(1 for r in rows if r.abstained_by_threshold)
