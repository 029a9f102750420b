"""Why a case went wrong, in one short phrase, from the evidence its report row holds: where the support
ranked against the chunks the answerer saw, the threshold that withheld an answer, the judge's verdict.

Shared by the pull-request comment (through the gate's comparison) and `cairn show`, so both say the same
thing. Nothing is guessed: without evidence for a cause the phrase names only what happened.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.golden.support import CHANGED_MESSAGE, UNCONFIRMED_MESSAGE
from cairn_action.report.models import PerCase, Report


@dataclass(frozen=True, kw_only=True)
class Setting:
    """What a report's run did that a reason can point at."""

    top_k: int
    """Chunks the answerer saw."""
    depth: int
    """Chunks retrieval ranked (recall is measured to this depth)."""
    threshold: float | None
    """The calibrated confidence threshold in force; None when uncalibrated."""
    judge: str


def setting_of(report: Report) -> Setting:
    return Setting(
        top_k=report.notes.top_k,
        depth=report.notes.retrieval_depth,
        threshold=report.abstention.threshold if report.notes.calibrated else None,
        judge=report.notes.judge,
    )


def _chunks(n: int) -> str:
    return f"{n} chunk{'' if n == 1 else 's'}"


def support_phrase(case: PerCase, setting: Setting) -> str:
    """Where the support ranked against what the answerer saw; "" for an unanswerable case."""
    rank = case.retrieved_support_rank
    if not case.answerable:
        return ""
    if not case.support_located:
        return "support not located in the corpus"
    if rank is None:
        return f"support not in the top {setting.depth} retrieved"
    if rank > setting.top_k:
        return f"support ranked {rank}, the answerer saw only {_chunks(setting.top_k)}"
    return f"support seen (rank {rank} of top {setting.top_k})"


def wrong_reason(case: PerCase, setting: Setting) -> str:
    """One short phrase for a case that is wrong, stale or an error; "" for a right one."""
    if case.status == "error":
        return f"error: {case.error or 'no message'}"
    if case.status == "stale":
        if case.error in (CHANGED_MESSAGE, UNCONFIRMED_MESSAGE):
            return case.error.removesuffix(" (left out of every score)")
        return "stale: a support quote is not in its document"
    threshold, confidence = setting.threshold, case.confidence
    if not case.answerable:
        if case.status == "abstained":
            return ""
        if threshold is not None and confidence is not None:
            return f"confidence {confidence:.2f} cleared the threshold {threshold:.2f}"
        return "the model did not abstain (uncalibrated)"
    support = support_phrase(case, setting)
    if case.status == "abstained":
        if case.abstained_by_threshold and threshold is not None and confidence is not None:
            return f"withheld: confidence {confidence:.2f} below the threshold {threshold:.2f}"
        return f"the model abstained; {support}"
    if case.correct:
        return ""
    if case.failed_checks:
        return f"failed check: {'; '.join(case.failed_checks)}"
    seen = case.retrieved_support_rank is not None and case.retrieved_support_rank <= setting.top_k
    return f"{setting.judge} judge said wrong; {support}" if seen else support
