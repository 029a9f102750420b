"""Fitting the abstention threshold with a finite-sample guarantee (metrics.md §3.5).

Fixed-sequence testing with exact binomial p-values: walk the distinct calibration confidences from the
highest down, starting at the first threshold that answers at least k_min cases (the smallest count that
could ever pass), and accept each threshold whose p-value P(Binomial(n_j, alpha) <= e_j) is at most delta;
stop at the first that fails. The last accepted threshold t satisfies, with probability at least
1 - delta over the draw of the calibration set, "error rate among answered <= alpha" for the rule
"answer iff confidence >= t" (assuming calibration and deployment cases are exchangeable and higher
confidence is never less reliable). Nothing accepted means the guarantee is not achievable here.

A case without a usable confidence (the model abstained, errored, or reported none) is never answered
by any threshold; it counts in n but never in an answered set.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

# scipy.stats is imported where it is used: importing it costs more than a whole `cairn eval` from a warm
# index cache, and only calibrating (and advising) needs it.

CalibrationStatus = Literal["certified", "not_achievable"]

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

    @property
    def coverage(self) -> float:
        return self.answered / self.n if self.n else 0.0


def fit_threshold(
    confidences: Sequence[float | None], wrong: Sequence[bool], *, alpha: float, delta: float
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
    base = dict(alpha=alpha, delta=delta, k_min=need, n=len(confidences), n_with_confidence=len(pairs))
    not_achievable = dict(status="not_achievable", threshold=None, answered=0, errors=0, upper_bound=None)

    if not pairs:
        reason = "no calibration case has a confidence a threshold could act on (all abstained or errored)"
        return ThresholdFit(**base, **not_achievable, path=(), reason=reason)
    if len(pairs) < need:
        reason = (
            f"calibration set too small for alpha={alpha:g}, delta={delta:g}: certifying needs at least "
            f"{need} answered calibration cases even with no error, and only {len(pairs)} of "
            f"{len(confidences)} have a confidence"
        )
        return ThresholdFit(**base, **not_achievable, path=(), reason=reason)

    # Walk the distinct confidences downward; answered/errors accumulate over ties.
    pairs.sort(key=lambda p: -p[0])
    path: list[ThresholdTest] = []
    answered = errors = 0
    i = 0
    while i < len(pairs):
        u = pairs[i][0]
        while i < len(pairs) and pairs[i][0] == u:
            answered += 1
            errors += int(pairs[i][1])
            i += 1
        if answered < need:
            continue  # not testable yet: the start depends on confidences only, never on labels
        p = p_value(errors, answered, alpha)
        accepted = p <= delta
        path.append(
            ThresholdTest(
                threshold=u,
                answered=answered,
                errors=errors,
                p_value=p,
                upper_bound=upper_bound(errors, answered, delta),
                accepted=accepted,
            )
        )
        if not accepted:
            break

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
