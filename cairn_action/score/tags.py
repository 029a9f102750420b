"""Stratified reporting: per tag and per difficulty (the curation guide asks for both).

Keys are the tag itself (`numeric`, `unanswerable`) and `difficulty:<level>` for difficulties, sorted.
Correct rate counts the right behaviour over every scored case of the group: an answered, correct
answer for an answerable case, an abstention for an unanswerable one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.golden.models import GoldenCase
from cairn_action.score.outcome import CaseOutcome
from cairn_action.score.retrieval import recall_at_k

DIFFICULTY_PREFIX = "difficulty:"


@dataclass(frozen=True, kw_only=True)
class GroupStats:
    n: int
    answer_rate: float | None
    correct_rate: float | None
    recall_at_5: float | None
    """Over the group's cases with located support; None when there are none."""


def behaved_correctly(outcome: CaseOutcome) -> bool:
    """Answered right when answerable, abstained when not."""
    if outcome.answerable:
        return outcome.answered and outcome.correct is True
    return outcome.status == "abstained"


def group_stats(outcomes: Sequence[CaseOutcome]) -> GroupStats:
    scored = [o for o in outcomes if o.scored]
    n = len(scored)
    located = [o for o in scored if o.support_located]
    return GroupStats(
        n=n,
        answer_rate=sum(1 for o in scored if o.answered) / n if n else None,
        correct_rate=sum(1 for o in scored if behaved_correctly(o)) / n if n else None,
        recall_at_5=(
            sum(recall_at_k(o.retrieved_support_rank, 5) for o in located) / len(located) if located else None
        ),
    )


def group_keys(case: GoldenCase) -> list[str]:
    """The groups a case belongs to: each of its tags, and its difficulty when set."""
    keys = list(dict.fromkeys(case.tags))
    if case.difficulty:
        keys.append(f"{DIFFICULTY_PREFIX}{case.difficulty}")
    return keys


def by_tag(outcomes: Sequence[CaseOutcome], cases: dict[str, GoldenCase]) -> dict[str, GroupStats]:
    """Stats per tag and per difficulty over scored cases, keys sorted."""
    groups: dict[str, list[CaseOutcome]] = {}
    for outcome in outcomes:
        if not outcome.scored:
            continue
        for key in group_keys(cases[outcome.case_id]):
            groups.setdefault(key, []).append(outcome)
    return {key: group_stats(groups[key]) for key in sorted(groups)}
