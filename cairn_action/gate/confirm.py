"""Which cases to ask again before the gate decides: those whose verdict differs from the baseline's.

One sample of a system that is not deterministic is a coin toss for every borderline case; re-asking
only the cases that changed makes the cost proportional to the change, not to the golden set. Pure: the
caller runs the re-asks (`cairn eval --baseline`).
"""

from __future__ import annotations

from collections.abc import Mapping

from cairn_action.gate.compare import refusals
from cairn_action.gate.outcome import rule_samples, verdict
from cairn_action.report.models import Report


def confirmation_plan(
    baseline: Report, provisional: Report, *, extra: int, asked: Mapping[str, int]
) -> dict[str, int]:
    """Case id -> total asks wanted, for every shared case whose verdict differs from the baseline's.

    `asked` is how many times each case has been asked so far; `extra` the baseline policy's
    `confirm_samples`. Incomparable reports (another corpus, golden set or split) confirm nothing: the
    gate will refuse them anyway. A case's baseline verdict rests on its first 3 samples, as the gate's
    per-case rules read it (outcome.rule_samples).
    """
    if extra <= 0 or refusals(baseline, provisional):
        return {}
    before = {c.case_id: c for c in rule_samples(baseline).per_case}
    plan = {}
    for after in provisional.per_case:
        base = before.get(after.case_id)
        if base is None or base.status in ("stale", "error") or after.status in ("stale", "error"):
            continue
        if verdict(after) != verdict(base):
            plan[after.case_id] = asked.get(after.case_id, 1) + extra
    return plan


def flaky_plan(baseline: Report, confirmed: Report, plan: Mapping[str, int], *, extra: int) -> dict[str, int]:
    """Case id -> total asks wanted, for each confirmed case whose verdict still differs from the
    baseline's and whose candidate samples disagree among themselves (some right, some wrong): such a
    case is known flaky, and `extra` + 1 more samples decide whether it was lost or is a coin flip.

    Why: with 3 baseline and 5 candidate samples, a case right half the time reads "right in 3 of 3, now
    right in 1 of 5" (Fisher p .071) one PR in 40; 10 candidate samples tell it from a lost case (a
    numpy simulation of the rules, benchmarks/README.md: false alarms under the mixed model 4.4 % -> 3.2 %,
    two lost safety cases caught 96 % at p .05)."""
    if extra <= 0:
        return {}
    before = {c.case_id: c for c in rule_samples(baseline).per_case}
    more = {}
    for after in confirmed.per_case:
        base = before.get(after.case_id)
        if after.case_id not in plan or base is None or after.n_right is None:
            continue
        split = 0 < after.n_right < after.n_samples
        if split and verdict(after) != verdict(base):
            more[after.case_id] = plan[after.case_id] + extra + 1
    return more


def unconfirmed(
    baseline: Report, provisional: Report, *, extra: int, samples: Mapping[str, int]
) -> dict[str, int]:
    """Case id -> samples recorded, for each case the confirmation plan names that has fewer than
    `1 + extra` samples on record (`samples`: distinct samples per case in the run artifact).

    The trusted side's check on the evaluation child, which runs the pull request's code: skipping the
    re-asks leaves a broken case with one sample, and one sample never makes a loss credible (p >= 1/4
    against 3 right baseline samples), so a run that skipped them would pass every critical loss.
    `provisional` is the report of the first pass alone (sample 0 of each case)."""
    plan = confirmation_plan(baseline, provisional, extra=extra, asked={})
    return {case: samples.get(case, 0) for case in plan if samples.get(case, 0) < 1 + extra}
