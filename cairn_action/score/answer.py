"""Answer metrics over answered, answerable cases (docs/reference/report.md#metrics, `answer`).

Exact match and token F1 are SQuAD v1.1's, unchanged (`cairn_action.squad`). Citation validity is a
ratio of sums (verified claims over all claims), so an answer with ten claims weighs ten times one with
one; faithfulness is the share of answers whose every claim verified. Both are None when no answered
case was split into claims (verification did not run), rather than a misleading 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.score.outcome import CaseOutcome


@dataclass(frozen=True, kw_only=True)
class AnswerSummary:
    exact_match: float | None
    token_f1: float | None
    judge_score: float | None
    """Mean 0..1 grade of a grading judge; None when no grade ran."""
    citation_validity: float | None
    faithfulness: float | None
    n_graded: int
    """Answered, answerable cases: the denominator of exact match and token F1."""


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def summarise_answers(outcomes: Sequence[CaseOutcome]) -> AnswerSummary:
    """The `answer` block from scored outcomes (stale and unanswered cases are ignored here)."""
    graded = [o for o in outcomes if o.scored and o.answered and o.answerable]
    with_claims = [o for o in graded if o.n_claims]
    total_claims = sum(o.n_claims for o in with_claims)
    return AnswerSummary(
        exact_match=_mean([1.0 if o.exact_match else 0.0 for o in graded]),
        token_f1=_mean([o.token_f1 or 0.0 for o in graded]),
        judge_score=_mean([o.judge_score for o in graded if o.judge_score is not None]),
        citation_validity=(
            sum(o.n_claims_verified for o in with_claims) / total_claims if total_claims else None
        ),
        faithfulness=_mean([1.0 if o.n_claims_verified == o.n_claims else 0.0 for o in with_claims]),
        n_graded=len(graded),
    )
