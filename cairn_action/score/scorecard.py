"""Scoring a run: every record against its golden case, then every aggregate from the outcomes.

Pure: no I/O, no clock, no provider. The caller chooses which records (the split) and the threshold.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cairn_action.golden.models import GoldenCase
from cairn_action.run.models import CaseRecord
from cairn_action.score.abstention import AbstentionSummary, summarise_abstention
from cairn_action.score.answer import AnswerSummary, summarise_answers
from cairn_action.score.operational import OperationalSummary, prefix_cache_counts, summarise_operational
from cairn_action.score.outcome import CaseOutcome, score_case
from cairn_action.score.retrieval import RetrievalSummary, summarise_retrieval
from cairn_action.score.tags import GroupStats, by_tag


@dataclass(frozen=True, kw_only=True)
class Scorecard:
    """Everything a report's metrics need, outcomes first."""

    outcomes: tuple[CaseOutcome, ...]
    """In golden-set order."""
    retrieval: RetrievalSummary
    answer: AnswerSummary
    abstention: AbstentionSummary
    operational: OperationalSummary
    by_tag: dict[str, GroupStats]
    counts: dict[str, int]
    """answered, abstained, error, stale, abstained_by_threshold, answered_unjudged, never_retrieved."""

    @property
    def n_scored(self) -> int:
        return sum(1 for o in self.outcomes if o.scored)


def score_records(
    records: Sequence[CaseRecord],
    cases: Mapping[str, GoldenCase],
    *,
    alpha: float,
    threshold: float | None,
) -> Scorecard:
    """Score `records` (one per case, any order) against `cases` under `threshold`.

    Every record's case id must be in `cases`; the report builder checks that and says which is not.
    """
    order = {case_id: i for i, case_id in enumerate(cases)}
    ordered = sorted(records, key=lambda r: order[r.case_id])
    prefix = prefix_cache_counts(ordered)
    outcomes = tuple(
        dataclasses.replace(
            score_case(r, cases[r.case_id], threshold=threshold),
            prefix_checks=prefix[r.case_id][0],
            prefix_matches=prefix[r.case_id][1],
        )
        for r in ordered
    )
    located = [o.retrieved_support_rank for o in outcomes if o.scored and o.support_located]
    retrieval = summarise_retrieval(located)
    statuses = Counter(o.status for o in outcomes)
    counts = {
        "answered": statuses["answered"],
        "abstained": statuses["abstained"],
        "error": statuses["error"],
        "stale": statuses["stale"],
        "abstained_by_threshold": sum(1 for o in outcomes if o.abstained_by_threshold),
        "answered_unjudged": sum(1 for o in outcomes if o.scored and o.unjudged),
        "never_retrieved": retrieval.n_never_retrieved,
    }
    return Scorecard(
        outcomes=outcomes,
        retrieval=retrieval,
        answer=summarise_answers(outcomes),
        abstention=summarise_abstention(outcomes, alpha=alpha, threshold=threshold),
        operational=summarise_operational(outcomes),
        by_tag=by_tag(outcomes, dict(cases)),
        counts=counts,
    )
