"""The paired statistics of a comparison (docs/concepts/statistics.md#paired), and what the sample is too
small to claim.

Correctness pairs are every shared, scored case (right or not); token F1 pairs are the answerable ones.
The sizes come from the curation guide's table: a paired regression claim needs 50 to 100 cases, a
per-tag claim 50 per tag.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from cairn_action.config import GateConfig
from cairn_action.gate.models import Statistics, TagDelta
from cairn_action.gate.outcome import tally, verdict
from cairn_action.gate.stats import (
    BOOTSTRAP_RESAMPLES,
    cases_needed,
    mantel_haenszel_drop,
    mcnemar,
    minimum_detectable_drop,
    paired_interval,
    scipy_version,
    wilcoxon_drop,
)
from cairn_action.report.models import PerCase

PAIRED_CLAIM_MIN = 50
PAIRED_CLAIM_COMFORTABLE = 100
SUBGROUP_CLAIM_MIN = 50
DETECT_DROP = 0.10
"""The correctness drop the golden slice should be able to catch when the policy names none: the issue's
benchmark drop (10 points, to be caught >= 80 % of the time)."""


def detect_drop_of(policy: GateConfig) -> float:
    """The correctness drop the policy cares about: its `max_drop` on judge_score or exact_match (a share
    of answers, like correctness), else DETECT_DROP."""
    named = [policy.max_drop[m] for m in ("judge_score", "exact_match") if m in policy.max_drop]
    return min(named) if named else DETECT_DROP


def _f1(case: PerCase) -> float:
    return case.token_f1 if case.status == "answered" and case.token_f1 is not None else 0.0


def paired_statistics(
    pairs: Sequence[tuple[PerCase, PerCase]],
    tags: Sequence[TagDelta],
    *,
    detect_drop: float = DETECT_DROP,
    control_cases: Collection[str] = (),
) -> Statistics:
    """McNemar on right/wrong, Wilcoxon and a bootstrap on token F1, power, and what n cannot claim; with
    `control_cases` (the cases the base control re-asked: the baseline side of those pairs is the base
    system asked now, the candidate side this PR's fresh samples), the fresh pairing over them alone."""
    right_before = [1.0 if verdict(b) else 0.0 for b, _ in pairs]
    right_after = [1.0 if verdict(a) else 0.0 for _, a in pairs]
    b = sum(1 for x, y in zip(right_before, right_after, strict=True) if x > y)
    c = sum(1 for x, y in zip(right_before, right_after, strict=True) if y > x)
    test = mcnemar(b, c)
    accuracy = paired_interval(right_before, right_after)
    # Token F1 is defined against an expected answer, so over answerable cases; an answerable case that
    # abstained or failed scores 0, as an empty prediction does under the SQuAD definition.
    answerable = [(x, y) for x, y in pairs if x.answerable]
    f1_before = [_f1(x) for x, _ in answerable]
    f1_after = [_f1(y) for _, y in answerable]
    wilcoxon = wilcoxon_drop(f1_before, f1_after)
    f1 = paired_interval(f1_before, f1_after)
    n = len(pairs)
    tables = [(tally(x).right, tally(x).n, tally(y).right, tally(y).n) for x, y in pairs]
    stratified = mantel_haenszel_drop(tables)
    # The fresh pairing: the same test over the changed cases alone. The unchanged cases' samples add
    # strata whose noise dilutes a drop concentrated on a few cases (the held-out harness caught a 10-point
    # drop 65 % of the time over every case, benchmarks/README.md round 6), and on the changed cases both
    # sides were asked at the same time, so drift since the baseline cancels.
    paired = [t for t, (x, _) in zip(tables, pairs, strict=True) if x.case_id in control_cases]
    pairing = mantel_haenszel_drop(paired) if paired else None
    mdd = minimum_detectable_drop(n, (b + c) / n) if n else None
    interval = accuracy or f1
    bootstrap = (
        f"{interval.method} bootstrap over cases, {BOOTSTRAP_RESAMPLES} resamples, "
        f"seed {interval.seed}, {interval.confidence:.0%} interval"
        if interval
        else "no bootstrap (no paired cases)"
    )
    return Statistics(
        n_paired=n,
        b=b,
        c=c,
        accuracy_delta=accuracy.mean if accuracy else None,
        accuracy_low=accuracy.low if accuracy else None,
        accuracy_high=accuracy.high if accuracy else None,
        mcnemar_p_one_sided=test.p_one_sided,
        mcnemar_p_two_sided=test.p_two_sided,
        n_f1=len(answerable),
        f1_delta=f1.mean if f1 else None,
        f1_low=f1.low if f1 else None,
        f1_high=f1.high if f1 else None,
        wilcoxon_p_one_sided=wilcoxon.p_one_sided,
        wilcoxon_method=wilcoxon.method,
        bootstrap=bootstrap,
        scipy_version=scipy_version(),
        min_detectable_drop=mdd,
        sample_notes=_sample_notes(n, tags) + _underpowered(n, (b + c) / n if n else 0.0, mdd, detect_drop),
        samples_p_one_sided=stratified.p_one_sided,
        samples_right_before=stratified.right_before,
        samples_before=stratified.n_before,
        samples_right_after=stratified.right_after,
        samples_after=stratified.n_after,
        pairing_p_one_sided=pairing.p_one_sided if pairing else None,
        pairing_cases=len(paired),
        pairing_right_before=pairing.right_before if pairing else 0,
        pairing_before=pairing.n_before if pairing else 0,
        pairing_right_after=pairing.right_after if pairing else 0,
        pairing_after=pairing.n_after if pairing else 0,
    )


def _underpowered(n: int, discordance: float, mdd: float | None, drop: float) -> list[str]:
    """The "underpowered" note when the slice cannot catch the policy's drop with 80 % power (issue 23)."""
    if not n or (mdd is not None and mdd <= drop):
        return []
    needed = cases_needed(discordance, drop)
    can = f"a drop of {mdd * 100:.0f} points" if mdd is not None else "no drop"
    more = f"about {needed} cases" if needed is not None else f"more than {20_000} cases"
    return [
        f"underpowered: {n} cases can detect {can} with 80% power (exact McNemar on the verdicts, "
        f"{max(discordance, 0.1):.0%} discordance); a drop of {drop * 100:.0f} points needs {more}"
    ]


def _sample_notes(n: int, tags: Sequence[TagDelta]) -> list[str]:
    notes = []
    if n < PAIRED_CLAIM_MIN:
        notes.append(
            f"{n} paired cases is below the {PAIRED_CLAIM_MIN} to {PAIRED_CLAIM_COMFORTABLE} a regression "
            "claim needs: a pass here is not evidence that nothing got worse"
        )
    elif n < PAIRED_CLAIM_COMFORTABLE:
        notes.append(
            f"{n} paired cases is at the low end of the {PAIRED_CLAIM_MIN} to {PAIRED_CLAIM_COMFORTABLE} a "
            "regression claim needs: only large drops can show as significant"
        )
    small = [t.tag for t in tags if t.n < SUBGROUP_CLAIM_MIN]
    if small:
        notes.append(
            f"per-tag deltas are descriptive: {len(small)} of {len(tags)} tags have fewer than "
            f"{SUBGROUP_CLAIM_MIN} cases, too few for a per-tag claim"
        )
    return notes
