"""One case, scored: a run record read against its golden case and the threshold in force.

Every aggregate in a report is a function of these outcomes alone, and each outcome becomes one
`per_case` row, so a report's numbers can always be recomputed from its own rows.

Statuses: a case the model answered is abstained when a calibrated threshold is in force and its
confidence is below it (or missing). Errored cases stay in every denominator (an item the system did not
answer still counts); stale cases, whose support quote no longer matches its document, are left out of
every score and counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.golden.answer_checks import failed_checks
from cairn_action.golden.models import GoldenCase
from cairn_action.run.models import CaseRecord, CaseStatus
from cairn_action.squad import exact_match, metric_max_over_ground_truths, token_f1


@dataclass(frozen=True, kw_only=True)
class CaseOutcome:
    """The scored view of one case."""

    case_id: str
    answerable: bool
    status: CaseStatus
    """After the threshold: answered, abstained, error or stale."""
    abstained_by_threshold: bool
    """The model answered but the calibrated threshold withheld the answer."""
    confidence: float | None
    correct: bool | None
    """None unless answered. An answered unanswerable case is wrong; an answered, unjudged one too."""
    unjudged: bool
    """Answered and answerable, but the judge gave no verdict (counted wrong, and counted)."""
    exact_match: bool | None
    token_f1: float | None
    judge_score: float | None
    n_claims: int
    n_claims_verified: int
    support_located: bool
    retrieved_support_rank: int | None
    latency_ms: float
    cost_usd: float | None
    tokens: int
    prefix_checks: int = 0
    """Provider calls of this case that had a previous call in the same stream to compare with."""
    prefix_matches: int = 0
    """... and whose stable prompt prefix matched that previous call's."""
    failed_checks: tuple[str, ...] = ()
    """The case's deterministic checks the answer failed (answered cases): each makes it wrong."""

    @property
    def scored(self) -> bool:
        return self.status != "stale"

    @property
    def answered(self) -> bool:
        return self.status == "answered"

    @property
    def citation_validity(self) -> float | None:
        return self.n_claims_verified / self.n_claims if self.n_claims else None


def is_right(outcome: CaseOutcome) -> bool | None:
    """Right: answered correctly when answerable, abstained when not. None when it is no evidence
    (stale, or an error: a provider failure says nothing about the answer)."""
    if outcome.status in ("stale", "error"):
        return None
    if outcome.status == "abstained":
        return not outcome.answerable
    return outcome.answerable and outcome.correct is True


def cited_docs(record: CaseRecord) -> list[str]:
    """The documents the answer cites (its citations and its claims' citations), by retrieved chunk."""
    docs = {c.chunk_id: c.doc for c in record.retrieved}
    ids = [c.chunk_id for c in record.citations] + [
        i for claim in record.claims for i in claim.cited_chunk_ids
    ]
    return [docs[i] for i in ids if i in docs]


def record_failed_checks(record: CaseRecord, case: GoldenCase) -> list[str]:
    """The case's checks this record's answer fails (none without an answer)."""
    if record.answer_text is None:
        return []
    return failed_checks(case, record.answer_text, cited_docs(record))


def is_wrong_if_answered(record: CaseRecord, case: GoldenCase) -> bool:
    """Whether this case's answer counts as wrong: always for an unanswerable case, else unless the
    judge said correct (an answer with no verdict cannot count as right) and every check holds."""
    if not case.answerable:
        return True
    if record_failed_checks(record, case):
        return True
    return not (record.judge is not None and record.judge.correct is True)


def apply_threshold(record: CaseRecord, threshold: float | None) -> tuple[CaseStatus, bool]:
    """The status after the threshold, and whether the threshold withheld an answer."""
    if record.status != "answered" or threshold is None:
        return record.status, False
    if record.confidence is None or record.confidence < threshold:
        return "abstained", True
    return "answered", False


def score_case(record: CaseRecord, case: GoldenCase, *, threshold: float | None) -> CaseOutcome:
    """Score one record against its golden case under `threshold` (None: the model's own abstain flag)."""
    status, withheld = apply_threshold(record, threshold)
    answered = status == "answered"
    graded = answered and case.answerable
    answer = record.answer_text or ""
    golds = case.golds or [""]  # SQuAD's max over gold answers: the expected answer and its variants
    verdict = record.judge
    claims = record.claims if answered else []
    return CaseOutcome(
        case_id=case.id,
        answerable=case.answerable,
        status=status,
        abstained_by_threshold=withheld,
        confidence=record.confidence,
        correct=(not is_wrong_if_answered(record, case)) if answered else None,
        unjudged=graded and (verdict is None or verdict.correct is None),
        exact_match=metric_max_over_ground_truths(exact_match, answer, golds) if graded else None,
        token_f1=float(metric_max_over_ground_truths(token_f1, answer, golds)) if graded else None,
        judge_score=verdict.score if answered and verdict is not None else None,
        n_claims=len(claims),
        n_claims_verified=sum(1 for c in claims if c.verified),
        support_located=record.support_located,
        retrieved_support_rank=record.retrieved_support_rank,
        latency_ms=record.latency_ms,
        cost_usd=record.cost_usd,
        tokens=record.usage.total,
        failed_checks=tuple(record_failed_checks(record, case)) if answered and case.answerable else (),
    )


def calibration_inputs(
    records: Sequence[CaseRecord], cases: dict[str, GoldenCase]
) -> tuple[list[float | None], list[bool]]:
    """(confidence, wrong) per scored calibration case, from the model's own answers.

    A case the model did not answer, or answered without a confidence, gets None: no threshold can
    make it answer. Stale cases are left out, as everywhere.
    """
    confidences: list[float | None] = []
    wrong: list[bool] = []
    for record in records:
        if record.status == "stale":
            continue
        case = cases[record.case_id]
        usable = record.status == "answered" and record.confidence is not None
        confidences.append(record.confidence if usable else None)
        wrong.append(is_wrong_if_answered(record, case))
    return confidences, wrong
