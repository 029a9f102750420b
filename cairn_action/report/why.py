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
    target: bool = False
    """The user's own system retrieved and answered: what its answerer saw is only what it reported
    (`PerCase.context_size`), never the config's top_k."""


def setting_of(report: Report) -> Setting:
    return Setting(
        target=report.notes.retrieval_mode == "target",
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
    if setting.target:
        return _target_support(case, rank)
    if rank > setting.top_k:
        return f"support ranked {rank}, the answerer saw only {_chunks(setting.top_k)}"
    return f"support seen (rank {rank} of top {setting.top_k})"


def _passages(n: int) -> str:
    return f"{n} passage{'' if n == 1 else 's'}"


def _target_support(case: PerCase, rank: int) -> str:
    """Where the support ranked among a target's passages, against the ones its answerer said it used."""
    n = case.context_size
    if n is None:
        return f"support ranked {rank} of the target's passages (it did not say which its answerer used)"
    if case.support_in_context:
        return f"support seen (in the {_passages(n)} the answerer used)"
    return f"support ranked {rank}, not among the {_passages(n)} the answerer used"


def seen_by_answerer(case: PerCase, setting: Setting) -> bool:
    """The answerer was given the support (as far as the evidence says)."""
    if setting.target:
        return case.support_in_context is True
    return case.retrieved_support_rank is not None and case.retrieved_support_rank <= setting.top_k


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
    seen = seen_by_answerer(case, setting)
    return f"{setting.judge} judge said wrong; {support}" if seen else support
