"""Fitting the abstention threshold with a finite-sample guarantee
(docs/concepts/abstention.md#fixed-sequence).

Fixed-sequence testing with exact binomial p-values: walk the distinct calibration confidences from the
highest down, starting at the first threshold that answers at least `start` cases, and accept each
threshold whose p-value P(Binomial(n_j, alpha) <= e_j) is at most delta; stop at the first that fails.
The last accepted threshold t satisfies, with probability at least
1 - delta over the draw of the calibration set, "error rate among answered <= alpha" for the rule
"answer iff confidence >= t" (assuming calibration and deployment cases are exchangeable and higher
confidence is never less reliable). Nothing accepted means the guarantee is not achievable here.

A case without a usable confidence (the model abstained, errored, or reported none) is never answered
by any threshold; it counts in n but never in an answered set.

The start. Any start chosen from the confidences alone (never the labels) keeps the guarantee
(docs/concepts/abstention.md#fixed-sequence: the validity argument only needs the order and the start to be
fixed before the labels are read).
Starting at k_min, the smallest count that can pass with zero errors, means one wrong answer among the
k_min most confident abstains on everything. Starting later, at the smallest count that can pass with one
error (k_min1), survives one early error but needs more confident cases. `auto` (the default) starts at
k_min1 when at least AUTO_FACTOR x k_min1 calibration cases have a confidence, else at k_min: a label-free
rule. Simulated (docs/concepts/abstention.md#fixed-sequence, S1-S3, 400 draws a cell, n_cal 48 / 100 / 400):
never fewer answers than the
k_min start, up to 5-6 points more at n_cal >= 100 for alpha 0.2 and at 400 for alpha 0.1, violations
at most 6.2% against delta 0.1 (see tests/unit/score/test_calibration.py and benchmarks/README.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

# scipy.stats is imported where it is used: importing it costs more than a whole `cairn eval` from a warm
# index cache, and only calibrating (and advising) needs it.

CalibrationStatus = Literal["certified", "not_achievable"]
StartRule = Literal["auto", "zero_error", "one_error"]
Procedure = Literal["fixed-sequence", "split"]
"""`cairn calibrate --procedure`: fixed-sequence testing at delta (the default), or `fit_split`."""
AUTO_FACTOR = 3
"""`auto` starts at the one-error count when at least this many times that count have a confidence."""

ALPHA_GRID: tuple[float, ...] = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
"""Targets tried when advising a larger alpha."""


def p_value(errors: int, answered: int, alpha: float) -> float:
    """Exact binomial p-value of H0 "risk > alpha": P(Binomial(answered, alpha) <= errors)."""
    from scipy.stats import binom

    return float(binom.cdf(errors, answered, alpha))


def upper_bound(errors: int, answered: int, delta: float) -> float:
    """One-sided (1 - delta) Clopper-Pearson upper bound on the error rate; p_value <= delta iff <= alpha."""
    if errors >= answered:
        return 1.0
    from scipy.stats import beta as beta_dist

    return float(beta_dist.ppf(1.0 - delta, errors + 1, answered - errors))


def k_min(alpha: float, delta: float) -> int:
    """Fewest answered cases that can pass with zero errors: the smallest k with (1 - alpha)^k <= delta."""
    k = max(1, math.ceil(math.log(delta) / math.log1p(-alpha)))
    # The logarithms can land a hair either side of an integer; settle it with the test itself.
    while k > 1 and p_value(0, k - 1, alpha) <= delta:
        k -= 1
    while p_value(0, k, alpha) > delta:
        k += 1
    return k


def k_min_with(alpha: float, delta: float, errors: int) -> int:
    """Fewest answered cases that can pass with `errors` errors: the smallest n with
    P(Binomial(n, alpha) <= errors) <= delta."""
    if errors == 0:
        return k_min(alpha, delta)
    n = errors + 1
    while p_value(errors, n, alpha) > delta:
        n += 1
    return n


def start_count(rule: StartRule, n_with_confidence: int, *, alpha: float, delta: float) -> tuple[int, str]:
    """Where the fixed sequence starts (an answered count) and which rule chose it; confidences only."""
    zero, one = k_min(alpha, delta), k_min_with(alpha, delta, 1)
    if rule == "one_error" or (rule == "auto" and n_with_confidence >= AUTO_FACTOR * one):
        return one, "one_error"
    return zero, "zero_error"


@dataclass(frozen=True, kw_only=True)
class ThresholdTest:
    """One step of the fixed sequence."""

    threshold: float
    answered: int
    """Calibration cases with confidence >= threshold (ties included)."""
    errors: int
    p_value: float
    upper_bound: float
    accepted: bool


@dataclass(frozen=True, kw_only=True)
class ThresholdFit:
    """The outcome of calibration: a certified threshold, or why there is none."""

    status: CalibrationStatus
    threshold: float | None
    """Answer iff confidence >= threshold; None when not achievable (abstain on everything)."""
    alpha: float
    delta: float
    k_min: int
    n: int
    """Calibration cases, including those no threshold can answer."""
    n_with_confidence: int
    answered: int
    """Calibration cases the threshold answers (0 when not achievable)."""
    errors: int
    upper_bound: float | None
    path: tuple[ThresholdTest, ...]
    reason: str
    start: int = 0
    """The answered count at which testing began (chosen from confidences alone)."""
    start_rule: str = "zero_error"

    @property
    def coverage(self) -> float:
        return self.answered / self.n if self.n else 0.0


def fit_split(
    confidences: Sequence[float | None], wrong: Sequence[bool], *, alpha: float, delta: float
) -> ThresholdFit:
    """Fixed-sequence testing and Bonferroni, each at delta / 2, and the certified threshold that answers
    more (issue 23, item 9). The union bound keeps the guarantee: each procedure certifies a violating
    threshold with probability at most delta / 2, so the one chosen does with probability at most delta.

    Fixed-sequence stalls at the first threshold that fails, so over-confident top scores (metrics.md S3)
    stop it at once; Bonferroni tests every distinct confidence at (delta / 2) / m and takes the lowest
    threshold that passes, whatever failed above it."""
    half = delta / 2
    sequence = fit_threshold(confidences, wrong, alpha=alpha, delta=half)
    pairs = sorted(
        ((c, w) for c, w in zip(confidences, wrong, strict=True) if c is not None), key=lambda p: -p[0]
    )
    if not pairs:
        return sequence
    from scipy.stats import beta as beta_dist
    from scipy.stats import binom

    conf = np.array([c for c, _ in pairs])
    cum_errors = np.cumsum([int(w) for _, w in pairs])
    ends = np.nonzero(np.append(conf[1:] != conf[:-1], True))[0]
    answered_at, errors_at = ends + 1, cum_errors[ends]
    level = half / len(ends)
    passing = np.nonzero(binom.cdf(errors_at, answered_at, alpha) <= level)[0]
    if not len(passing) or int(answered_at[passing[-1]]) <= sequence.answered:
        return replace(
            sequence, delta=delta, reason=f"{sequence.reason} (fixed sequence at delta/2 = {half:g})"
        )
    j = int(passing[-1])
    answered, errors = int(answered_at[j]), int(errors_at[j])
    bound = 1.0 if errors >= answered else float(beta_dist.ppf(1.0 - level, errors + 1, answered - errors))
    reason = (
        f"answering {answered} of {len(confidences)} calibration cases with {errors} wrong: Bonferroni over "
        f"{len(ends)} thresholds at delta/2 = {half:g} (fixed sequence at delta/2 answered "
        f"{sequence.answered}): error among answered <= alpha={alpha:g} with probability >= {1 - delta:g}"
    )
    return replace(
        sequence,
        status="certified",
        delta=delta,
        threshold=float(conf[ends[j]]),
        answered=answered,
        errors=errors,
        upper_bound=bound,
        reason=reason,
    )


def fit_threshold(
    confidences: Sequence[float | None],
    wrong: Sequence[bool],
    *,
    alpha: float,
    delta: float,
    start: StartRule = "auto",
) -> ThresholdFit:
    """Fit the threshold on calibration cases: `confidences[i]` (None = never answered), `wrong[i]`."""
    if len(confidences) != len(wrong):
        raise ValueError("confidences and wrong must have the same length")
    if not (0.0 < alpha < 1.0 and 0.0 < delta < 1.0):
        raise ValueError(f"alpha and delta must be in (0, 1), got {alpha}, {delta}")
    pairs = [(c, w) for c, w in zip(confidences, wrong, strict=True) if c is not None]
    if any(math.isnan(c) for c, _ in pairs):
        raise ValueError("a confidence is NaN")
    need = k_min(alpha, delta)
    begin, rule = start_count(start, len(pairs), alpha=alpha, delta=delta)
    base = dict(
        alpha=alpha,
        delta=delta,
        k_min=need,
        n=len(confidences),
        n_with_confidence=len(pairs),
        start=begin,
        start_rule=rule,
    )
    not_achievable = dict(status="not_achievable", threshold=None, answered=0, errors=0, upper_bound=None)

    if not pairs:
        reason = "no calibration case has a confidence a threshold could act on (all abstained or errored)"
        return ThresholdFit(**base, **not_achievable, path=(), reason=reason)
    if len(pairs) < begin:
        reason = (
            f"calibration set too small for alpha={alpha:g}, delta={delta:g}: certifying needs at least "
            f"{begin} answered calibration cases{' even with no error' if rule == 'zero_error' else ''}, "
            f"and only {len(pairs)} of "
            f"{len(confidences)} have a confidence"
        )
        return ThresholdFit(**base, **not_achievable, path=(), reason=reason)

    # Walk the distinct confidences downward; answered/errors accumulate over ties. The p-values and
    # bounds of the whole walk are computed at once (one scipy call each), then cut at the first failure.
    pairs.sort(key=lambda p: -p[0])
    conf = np.array([c for c, _ in pairs])
    cum_errors = np.cumsum([int(w) for _, w in pairs])
    last_of_tie = np.append(conf[1:] != conf[:-1], True)  # the last index of each distinct confidence
    ends = np.nonzero(last_of_tie)[0]
    ends = ends[ends + 1 >= begin]  # not testable yet: the start depends on confidences only
    answered_at, errors_at = ends + 1, cum_errors[ends]
    from scipy.stats import beta as beta_dist
    from scipy.stats import binom

    p_values = binom.cdf(errors_at, answered_at, alpha)
    failed = np.nonzero(p_values > delta)[0]
    stop = int(failed[0]) + 1 if len(failed) else len(ends)
    bounds = np.where(
        errors_at[:stop] >= answered_at[:stop],
        1.0,
        beta_dist.ppf(
            1.0 - delta, errors_at[:stop] + 1, np.maximum(answered_at[:stop] - errors_at[:stop], 1)
        ),
    )
    path = [
        ThresholdTest(
            threshold=float(conf[ends[j]]),
            answered=int(answered_at[j]),
            errors=int(errors_at[j]),
            p_value=float(p_values[j]),
            upper_bound=float(bounds[j]),
            accepted=bool(p_values[j] <= delta),
        )
        for j in range(stop)
    ]

    passed = [t for t in path if t.accepted]
    if not passed:
        first = path[0]
        reason = (
            f"errors among the {first.answered} most confident calibration cases: {first.errors} wrong, "
            f"upper bound {first.upper_bound:.3f} > alpha={alpha:g} at delta={delta:g}"
        )
        return ThresholdFit(**base, **not_achievable, path=tuple(path), reason=reason)
    last = passed[-1]
    reason = (
        f"answering {last.answered} of {len(confidences)} calibration cases with {last.errors} wrong: "
        f"error among answered <= {last.upper_bound:.3f} <= alpha={alpha:g} with probability "
        f">= {1 - delta:g}"
    )
    return ThresholdFit(
        **base,
        status="certified",
        threshold=last.threshold,
        answered=last.answered,
        errors=last.errors,
        upper_bound=last.upper_bound,
        path=tuple(path),
        reason=reason,
    )


def answered_cases_needed(
    error_rate: float, *, alpha: float, delta: float, limit: int = 100_000
) -> int | None:
    """Fewest answered calibration cases that pass at a steady `error_rate`; None if it never would."""
    if error_rate >= alpha:
        return None
    from scipy.stats import binom

    # One vectorised binomial call over every candidate size, rather than one call per size.
    sizes = np.arange(k_min(alpha, delta), limit + 1)
    passing = np.nonzero(binom.cdf(np.floor(error_rate * sizes), sizes, alpha) <= delta)[0]
    return int(sizes[passing[0]]) if len(passing) else None


def advise(
    fit: ThresholdFit,
    confidences: Sequence[float | None],
    wrong: Sequence[bool],
    *,
    fraction: float | None = None,
) -> list[str]:
    """What would make a not-achievable calibration achievable: more cases, a larger alpha."""
    if fit.status == "certified":
        return []
    advice: list[str] = []
    answered_share = fit.n_with_confidence / fit.n if fit.n else 0.0
    if fit.path:
        rate = fit.path[0].errors / fit.path[0].answered
    else:
        flags = [w for c, w in zip(confidences, wrong, strict=True) if c is not None]
        rate = sum(flags) / len(flags) if flags else 1.0
    needed = answered_cases_needed(rate, alpha=fit.alpha, delta=fit.delta)
    if rate >= fit.alpha:
        advice.append(
            f"more cases alone will not help: the most confident answers are wrong {rate:.0%} of the "
            f"time, at or above alpha={fit.alpha:g}; improve the answerer or its confidence"
        )
    elif needed is None:
        advice.append(
            f"more cases alone is impractical: at the error rate seen ({rate:.1%}), so close to "
            f"alpha={fit.alpha:g}, over 100,000 answered calibration cases would be needed"
        )
    elif answered_share > 0:
        cal_cases = math.ceil(needed / answered_share)
        line = (
            f"more calibration cases: at the error rate seen ({rate:.0%}) about {needed} answered "
            f"calibration cases are needed, i.e. about {cal_cases} calibration cases"
        )
        if fraction:
            line += f" (a golden set of about {math.ceil(cal_cases / fraction)} at fraction {fraction:g})"
        advice.append(line)
    larger = [
        a
        for a in ALPHA_GRID
        if a > fit.alpha and fit_threshold(confidences, wrong, alpha=a, delta=fit.delta).status == "certified"
    ]
    if larger:
        advice.append(
            f"a larger alpha: alpha={larger[0]:g} would certify a threshold on this slice; set it in the "
            "config before calibrating, because changing alpha until calibration passes voids the guarantee"
        )
    return advice
