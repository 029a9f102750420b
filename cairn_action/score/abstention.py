"""Abstention metrics (docs/reference/report.md#metrics, `abstention`): read the first three together.

A high answer rate with a low error among answered is the result worth having; either alone can be
bought at the other's expense. Errored cases stay in the denominators (they neither answered nor
abstained); stale cases are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.score.outcome import CaseOutcome


@dataclass(frozen=True, kw_only=True)
class AbstentionSummary:
    alpha: float
    threshold: float | None
    answer_rate: float | None
    """Answered over all scored cases."""
    error_rate_answered: float | None
    """Wrong over answered; an answered unanswerable case is wrong by definition."""
    guarantee_met: bool | None
    """error_rate_answered <= alpha; None when nothing was answered."""
    unanswerable_abstained_rate: float | None
    answerable_answered_rate: float | None
    n_answered: int
    n_wrong: int


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def summarise_abstention(
    outcomes: Sequence[CaseOutcome], *, alpha: float, threshold: float | None
) -> AbstentionSummary:
    """The `abstention` block from scored outcomes under the threshold that produced them."""
    scored = [o for o in outcomes if o.scored]
    answered = [o for o in scored if o.answered]
    wrong = sum(1 for o in answered if o.correct is not True)
    unanswerable = [o for o in scored if not o.answerable]
    answerable = [o for o in scored if o.answerable]
    error_rate = _share(wrong, len(answered))
    return AbstentionSummary(
        alpha=alpha,
        threshold=threshold,
        answer_rate=_share(len(answered), len(scored)),
        error_rate_answered=error_rate,
        guarantee_met=None if error_rate is None else error_rate <= alpha,
        unanswerable_abstained_rate=_share(
            sum(1 for o in unanswerable if o.status == "abstained"), len(unanswerable)
        ),
        answerable_answered_rate=_share(sum(1 for o in answerable if o.answered), len(answerable)),
        n_answered=len(answered),
        n_wrong=wrong,
    )
