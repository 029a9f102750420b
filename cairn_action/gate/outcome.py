"""One case in two reports: was it right, and how did it change.

A sample is *right* when it was answered correctly (answerable) or abstained (unanswerable). A case's
*verdict* is the majority of its samples (the first sample breaks a tie), and that single definition
drives broke / fixed, the McNemar counts and the per-tag correctness, so the tables and the statistics
line can never disagree. With one sample per case, the verdict is that sample.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from cairn_action.gate.exact import fisher_greater
from cairn_action.gate.models import CaseSide, Outcome, RetrievalChange, Transition
from cairn_action.report.models import PerCase, Report, SampleOutcome
from cairn_action.report.why import Setting, wrong_reason


@dataclass(frozen=True)
class Tally:
    """How often a case was right over its usable samples."""

    right: int
    n: int


def tally(case: PerCase) -> Tally:
    """The case's samples; a report written before samples existed has its first one only."""
    if case.n_right is None:
        first = is_right(case)
        return Tally(right=int(bool(first)), n=0 if case.status in ("error", "stale") else 1)
    return Tally(right=case.n_right, n=case.n_samples)


def verdict(case: PerCase) -> bool | None:
    """Right on most samples; None for stale cases. An errored case with no usable sample is wrong (the
    gate reports it as incomplete, never as broke)."""
    first = is_right(case)
    if first is None:
        return None
    counts = tally(case)
    if counts.n == 0 or 2 * counts.right == counts.n:
        return first
    return 2 * counts.right > counts.n


RULE_SAMPLES = 3
"""The baseline samples of a case the per-case rules and the confirmation plan read: its first ones, at
most this many. More baseline samples sharpen the shift test (gate/control.py reads them all), but read by
Fisher they make a coin-flip case look stable: "right in 10 of 10, now 1 of 5" is p .004 for a case right
80 % of the time, and honest pull requests failed 15 % without a control (benchmarks/README.md)."""


def _first(row: PerCase) -> list[bool]:
    """The case's first ask as a usable sample: none when it errored or is stale."""
    return [] if row.status in ("error", "stale") else [bool(is_right(row))]


def _later(row: PerCase) -> list[SampleOutcome]:
    """The case's usable later samples, in the order asked."""
    return [s for s in sorted(row.samples, key=lambda s: s.sample) if s.right is not None]


def usable_samples(row: PerCase) -> list[bool]:
    """Right or wrong, each usable sample of the case in the order asked: the first ask, then the later
    ones (what `rule_samples` takes the first `k` of)."""
    return _first(row) + [bool(s.right) for s in _later(row)]


def rule_samples(baseline: Report, k: int = RULE_SAMPLES) -> Report:
    """The baseline with each case counted on its first `k` usable samples (the first ask, then the later
    ones in the order asked): what the per-case rules and the confirmation plan read. A case with at most
    `k` usable samples is left as it is, so a baseline of `k` samples reads exactly as before."""
    rows = []
    for row in baseline.per_case:
        if row.n_right is not None and row.n_samples > k:
            first = _first(row)
            kept = _later(row)[: k - len(first)]
            usable = first + [bool(s.right) for s in kept]
            update = {"n_samples": len(usable), "n_right": sum(map(bool, usable)), "samples": kept}
            row = row.model_copy(update=update)
        rows.append(row)
    return baseline.model_copy(update={"per_case": rows})


@cache
def loss_p_value(before: Tally, after: Tally) -> float:
    """One-sided Fisher exact p-value that the candidate is right less often than the baseline.

    Fisher's test conditions on how many samples were right in all, so it holds whatever the case's
    success rate is; with 3 baseline and 5 candidate samples its smallest values are 1/56 (3 of 3
    against 0 of 5) and 4/56 (3 of 3 against 1 of 5), and with one baseline sample it is never below 1/6.
    """
    table = [[before.right, before.n - before.right], [after.right, after.n - after.right]]
    return fisher_greater(table)  # scipy.stats.fisher_exact(table, alternative="greater"), without scipy


def is_right(case: PerCase) -> bool | None:
    """Answered correctly when answerable, abstained when not; None for stale cases (not scored)."""
    if case.status == "stale":
        return None
    if case.status == "abstained":
        return not case.answerable
    if case.status == "error":
        return False
    return case.answerable and case.correct is True


def side(case: PerCase, setting: Setting) -> CaseSide:
    """The case as one report saw it, for the comparison; `setting`: that report's top_k, threshold..."""
    counts = tally(case)
    return CaseSide(
        why=wrong_reason(case, setting),
        status=case.status,
        right=verdict(case),
        first_right=is_right(case),
        n_samples=counts.n,
        n_right=counts.right,
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
    """broke, fixed, changed (still wrong, but answered differently), flaky or unchanged, on verdicts."""
    if right_before and not right_after:
        return "broke"
    if right_after and not right_before:
        return "fixed"
    if is_right(after) != right_before and tally(after).n > 1:
        return "flaky"  # the first sample alone would have called it a change; the others did not
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
