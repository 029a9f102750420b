"""One case in two reports: was it right, and how did it change.

A case is *right* when it was answered correctly (answerable) or abstained (unanswerable). That single
definition drives broke / fixed, the McNemar counts and the per-tag correctness, so the tables and the
statistics line can never disagree.
"""

from __future__ import annotations

from cairn_action.gate.models import CaseSide, Outcome, RetrievalChange, Transition
from cairn_action.report.models import PerCase


def is_right(case: PerCase) -> bool | None:
    """Answered correctly when answerable, abstained when not; None for stale cases (not scored)."""
    if case.status == "stale":
        return None
    if case.status == "abstained":
        return not case.answerable
    if case.status == "error":
        return False
    return case.answerable and case.correct is True


def side(case: PerCase) -> CaseSide:
    """The case as one report saw it, for the comparison."""
    return CaseSide(
        status=case.status,
        right=is_right(case),
        answer_text=case.answer_text,
        confidence=case.confidence,
        correct=case.correct,
        token_f1=case.token_f1,
        support_rank=case.retrieved_support_rank,
        cited=list(case.cited),
    )


def within(rank: int | None, k: int) -> bool:
    return rank is not None and rank <= k


def outcome(before: PerCase, after: PerCase, right_before: bool, right_after: bool) -> Outcome:
    """broke, fixed, changed (still wrong, but answered differently) or unchanged."""
    if right_before and not right_after:
        return "broke"
    if right_after and not right_before:
        return "fixed"
    if not right_before and (before.status != after.status or before.answer_text != after.answer_text):
        return "changed"
    return "unchanged"


def transition(before: PerCase, after: PerCase) -> Transition | None:
    """Whether the case went from answering to abstaining, or the reverse."""
    if before.status == "answered" and after.status == "abstained":
        return "newly_abstained"
    if before.status == "abstained" and after.status == "answered":
        return "newly_answered"
    return None


def retrieval_change(before: PerCase, after: PerCase, k: int) -> RetrievalChange | None:
    """`lost` when the supporting chunk left the top k, `gained` when it entered it."""
    if not (before.support_located and after.support_located):
        return None
    was, now = within(before.retrieved_support_rank, k), within(after.retrieved_support_rank, k)
    if was and not now:
        return "lost"
    if now and not was:
        return "gained"
    return None
