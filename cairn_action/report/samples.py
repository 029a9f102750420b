"""A case asked more than once: its first sample carries every metric, all its samples carry the evidence.

The aggregates of a report (recall, F1, answer rate, ...) read each case's first sample, so a report is
one run of the system whatever the repeats; the per-case `n_samples` / `n_right` say how often the case
was right over all its samples, which is what the gate weighs a change on.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.golden.models import GoldenCase
from cairn_action.report.models import ExtraSamples, SampleOutcome
from cairn_action.run.models import CaseRecord
from cairn_action.score.outcome import CaseOutcome, is_right, score_case
from cairn_action.squad import normalize_answer

_ABSTAINED = "\0abstained"


@dataclass(frozen=True)
class Evidence:
    """The per-case fields of the report that summarise every sample of a case."""

    n_samples: int
    n_right: int | None
    agreement: float | None
    judge_agreement: float | None
    samples: list[SampleOutcome]


def first_samples(records: Sequence[CaseRecord]) -> tuple[list[CaseRecord], dict[str, list[CaseRecord]]]:
    """Sample 0 of every case, and the later samples of each case (in sample order)."""
    first = [r for r in records if r.sample == 0]
    later: dict[str, list[CaseRecord]] = {}
    for record in sorted((r for r in records if r.sample > 0), key=lambda r: r.sample):
        later.setdefault(record.case_id, []).append(record)
    return first, later


def _answer_key(outcome: CaseOutcome, record: CaseRecord) -> str:
    if outcome.status == "abstained":
        return _ABSTAINED
    return normalize_answer(record.answer_text or "")


def evidence(
    first: CaseOutcome,
    first_record: CaseRecord,
    later: Sequence[CaseRecord],
    case: GoldenCase,
    *,
    threshold: float | None,
) -> Evidence:
    """Score the later samples under the same threshold as the first and count the right ones."""
    scored = [(first, first_record)] + [(score_case(r, case, threshold=threshold), r) for r in later]
    usable = [(o, r) for o, r in scored if is_right(o) is not None]
    if first.status == "stale":
        return Evidence(n_samples=1, n_right=None, agreement=None, judge_agreement=None, samples=[])
    n_right = sum(1 for o, _ in usable if is_right(o))
    answers = Counter(_answer_key(o, r) for o, r in usable)
    agreement = max(answers.values()) / len(usable) if usable else None
    paid = paid_by_sample(first_record, later)
    samples = [
        SampleOutcome(
            sample=r.sample,
            status=o.status,
            right=is_right(o),
            confidence=o.confidence,
            answer_text=r.answer_text,
            tokens=tokens,
            cost_usd=cost,
        )
        for (o, r), (tokens, cost) in zip(scored[1:], paid, strict=True)
    ]
    return Evidence(
        n_samples=len(usable),
        n_right=n_right,
        agreement=agreement,
        judge_agreement=judge_agreement([r for _, r in usable]),
        samples=samples,
    )


def judge_agreement(records: Sequence[CaseRecord]) -> float | None:
    """Of the judged samples whose normalised answer another judged sample gave too, the share whose
    verdict is that answer's majority verdict; None when no answer was judged twice."""
    verdicts: dict[str, list[bool]] = {}
    for r in records:
        if r.judge is not None and r.judge.correct is not None and r.answer_text is not None:
            verdicts.setdefault(normalize_answer(r.answer_text), []).append(r.judge.correct)
    repeated = [v for v in verdicts.values() if len(v) > 1]
    if not repeated:
        return None
    agreeing = sum(max(v.count(True), v.count(False)) for v in repeated)
    return agreeing / sum(len(v) for v in repeated)


def paid_by_sample(first: CaseRecord, later: Sequence[CaseRecord]) -> list[tuple[int, float | None]]:
    """(tokens, cost) each later sample added to the run's bill.

    A judge call served from Cairn's cache is not counted again (a deterministic judge's grade is
    addressed by case and answer; a sampling judge's also by the sample, so each sample is its own, paid,
    draw: run/graded.py). A record without call details (older artifacts) counts its own totals.
    """
    del first  # the first sample's calls are in the run's first-pass totals
    paid: list[tuple[int, float | None]] = []
    for record in later:
        if not record.calls:
            paid.append((record.usage.total, record.cost_usd))
            continue
        calls = [c for c in record.calls if c.role != "judge" or not c.cached]
        costs = [c.cost_usd for c in calls]
        cost = None if any(c is None for c in costs) else math.fsum(c for c in costs if c is not None)
        paid.append((sum(c.usage.total for c in calls), cost))
    return paid


def extra_samples_note(later: dict[str, list[CaseRecord]]) -> ExtraSamples:
    """What the samples beyond the first cost."""
    records = [r for rs in later.values() for r in rs]
    calls = [c for r in records for c in r.calls if not c.cached]
    costs = [c.cost_usd for c in calls]
    return ExtraSamples(
        samples=len(records),
        cases=len(later),
        calls=len(calls),
        cost_usd=None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 10),
    )
