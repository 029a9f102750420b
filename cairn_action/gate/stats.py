"""Paired statistics for two reports over the same cases (docs/concepts/statistics.md#paired).

Correctness: a one-sided exact McNemar test on the discordant pairs (the p-values `scipy.stats.binomtest`
gives, computed as exact sums in gate/exact.py, which also holds the power calculation's binomial tails).
Token F1: a one-sided Wilcoxon signed-rank test with its `method` chosen here, not left to scipy's
`auto` (whose behaviour has changed between releases), and a seeded paired bootstrap interval of the
mean difference as the effect size. Power: the smallest drop the McNemar test detects at this sample
size, computed exactly rather than quoted from a table.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import scipy

from cairn_action.gate.exact import binom_pmf, binom_sf, binomtest_half, normal_sf

BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_SEED = 20240501
BOOTSTRAP_CONFIDENCE = 0.95
# Differences are rounded to the metrics' resolution so float noise cannot break ties
# (docs/concepts/statistics.md#wilcoxon).
DIFF_DECIMALS = 6
# 2**13 = 8192 sign patterns fit in the permutation budget, so up to 13 non-zero differences the
# "permutation" test enumerates every pattern and is exact even with ties.
_PERMUTATION_MAX_N = 13
_EXACT_MAX_N = 50


@dataclass(frozen=True, kw_only=True)
class McNemar:
    """Exact McNemar on the discordant pairs: b went right to wrong, c wrong to right."""

    b: int
    c: int
    p_one_sided: float
    """P(Binomial(b + c, 1/2) >= b): evidence that the candidate is worse."""
    p_two_sided: float


@dataclass(frozen=True, kw_only=True)
class Wilcoxon:
    """One-sided signed-rank test that candidate minus baseline is shifted below zero."""

    n: int
    n_nonzero: int
    p_one_sided: float | None
    """None when every difference is zero: there is nothing to test."""
    method: str
    """`exact`, `permutation (exhaustive)`, `asymptotic` or `none`."""


@dataclass(frozen=True, kw_only=True)
class Interval:
    """A paired bootstrap interval of a mean difference (candidate minus baseline)."""

    mean: float
    low: float
    high: float
    method: str
    n_resamples: int
    seed: int
    confidence: float


def scipy_version() -> str:
    return scipy.__version__


def mcnemar(b: int, c: int) -> McNemar:
    """Exact McNemar test: only discordant pairs carry information; b = c = 0 gives p = 1."""
    m = b + c
    if m == 0:
        return McNemar(b=b, c=c, p_one_sided=1.0, p_two_sided=1.0)
    one, two = binomtest_half(b, m)  # scipy.stats.binomtest(b, m, 0.5), without importing it
    return McNemar(b=b, c=c, p_one_sided=one, p_two_sided=two)


def _rounded_differences(baseline: list[float], candidate: list[float]) -> np.ndarray:
    if len(baseline) != len(candidate):
        raise ValueError("paired samples must have the same length")
    diff = np.asarray(candidate, dtype=float) - np.asarray(baseline, dtype=float)
    return np.round(diff, DIFF_DECIMALS)


def wilcoxon_drop(baseline: list[float], candidate: list[float], *, seed: int = BOOTSTRAP_SEED) -> Wilcoxon:
    """Signed-rank test of candidate < baseline, zeros dropped first (`zero_method="wilcox"`), method pinned.

    The zeros are removed before scipy sees the sample, so `exact` is valid whenever the remaining
    differences have no ties (scipy's caveat); with ties, an exhaustive sign-flip permutation up to 13
    differences, and the normal approximation beyond.
    """
    d = _rounded_differences(baseline, candidate)
    nonzero = d[d != 0]
    n_nonzero = int(nonzero.size)
    if n_nonzero == 0:
        return Wilcoxon(n=int(d.size), n_nonzero=0, p_one_sided=None, method="none")
    from scipy import stats  # here: importing it costs ~1 s, and unchanged answers never get here

    has_ties = np.unique(np.abs(nonzero)).size < n_nonzero
    method: str | stats.PermutationMethod
    if not has_ties and n_nonzero <= _EXACT_MAX_N:
        method, name = "exact", "exact"
    elif n_nonzero <= _PERMUTATION_MAX_N:
        rng = np.random.Generator(np.random.PCG64(seed))
        method, name = stats.PermutationMethod(n_resamples=9999, rng=rng), "exhaustive permutation"
    else:
        method, name = "asymptotic", "asymptotic"
    result = stats.wilcoxon(nonzero, zero_method="wilcox", alternative="less", method=method)
    return Wilcoxon(n=int(d.size), n_nonzero=n_nonzero, p_one_sided=float(result.pvalue), method=name)


def paired_interval(
    baseline: list[float],
    candidate: list[float],
    *,
    seed: int = BOOTSTRAP_SEED,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = BOOTSTRAP_CONFIDENCE,
) -> Interval | None:
    """Percentile bootstrap interval of mean(candidate - baseline), resampling cases; None when empty.

    Percentile rather than BCa: BCa is undefined (and warns) on the many-ties samples that unchanged
    answers produce, and the interval is reported as an effect size, not used as the gate.
    """
    d = _rounded_differences(baseline, candidate)
    if d.size == 0:
        return None
    mean = float(d.mean())
    if np.all(d == d[0]):
        # Every resample has the same mean; scipy would warn about degenerate data.
        return Interval(
            mean=mean,
            low=mean,
            high=mean,
            method="percentile",
            n_resamples=0,
            seed=seed,
            confidence=confidence,
        )
    from scipy import stats  # here: importing it costs ~1 s, and unchanged answers never get here

    rng = np.random.Generator(np.random.PCG64(seed))
    res = stats.bootstrap(
        (d,), np.mean, n_resamples=n_resamples, confidence_level=confidence, method="percentile", rng=rng
    )
    return Interval(
        mean=mean,
        low=float(res.confidence_interval.low),
        high=float(res.confidence_interval.high),
        method="percentile",
        n_resamples=n_resamples,
        seed=seed,
        confidence=confidence,
    )


@cache
def _critical_b(n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """For each number of discordant pairs m in 1..n that can reject: the smallest rejecting b.

    b's one-sided p-value is P(Bin(m, 1/2) >= b) = sf(b - 1), falling as b grows; the normal approximation
    gives the boundary up to a few steps, which the corrections settle.
    """
    ms = np.arange(1, n + 1)
    z = statistics.NormalDist().inv_cdf(1 - alpha)
    b = np.ceil(ms / 2 + z * np.sqrt(ms) / 2).astype(np.int64)
    while True:
        lower = np.where(binom_sf(b - 2, ms, 0.5) < alpha, b - 1, b)
        moved = np.where(binom_sf(lower - 1, ms, 0.5) >= alpha, lower + 1, lower)
        if np.array_equal(moved, b):
            break
        b = moved
    can_reject = b <= ms
    return ms[can_reject], b[can_reject]


def mcnemar_power(n: int, discordance: float, drop: float, *, alpha: float = 0.05) -> float:
    """Exact power of the one-sided McNemar test under the trinomial model of
    docs/concepts/statistics.md#power.

    Each case is discordant with probability `discordance`; a discordant case went right to wrong with
    probability (discordance + drop) / (2 * discordance).
    """
    if not 0 < drop <= discordance <= 1:
        raise ValueError("need 0 < drop <= discordance <= 1")
    ms, b_star = _critical_b(n, alpha)
    if ms.size == 0:
        return 0.0
    p_b = (discordance + drop) / (2 * discordance)
    return float(np.sum(binom_pmf(ms, n, discordance) * binom_sf(b_star - 1, ms, p_b)))


def minimum_detectable_drop(
    n: int, discordance: float, *, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest accuracy drop (a share, in whole points) the test catches with `power`; None if none.

    `discordance` is the share of cases whose correctness differs between the two runs; it is clipped to
    at least 0.1 because an unchanged pair of runs says nothing about how noisy the system is.
    """
    if n <= 0:
        return None
    psi = min(max(discordance, 0.10), 1.0)
    for points in range(1, math.floor(psi * 100) + 1):
        drop = points / 100
        if mcnemar_power(n, psi, drop, alpha=alpha) >= power:
            return drop
    return None


def cases_needed(
    discordance: float, drop: float, *, alpha: float = 0.05, power: float = 0.8, limit: int = 20_000
) -> int | None:
    """About how many paired cases the one-sided McNemar test needs to catch `drop` with `power` at this
    `discordance` (clipped to at least 0.1, as in minimum_detectable_drop); None beyond `limit` or when
    the drop exceeds the discordance. Power is not monotone in n (the test is discrete), hence "about":
    the bisection finds a size at which it is reached, after doubling past one."""
    psi = min(max(discordance, 0.10), 1.0)
    if not 0 < drop <= psi:
        return None
    low, high = 1, 32
    while mcnemar_power(high, psi, drop, alpha=alpha) < power:
        low, high = high, high * 2
        if high > limit:
            return None
    while low + 1 < high:
        middle = (low + high) // 2
        if mcnemar_power(middle, psi, drop, alpha=alpha) >= power:
            high = middle
        else:
            low = middle
    return high


def holm_adjusted(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order: rejecting every hypothesis whose adjusted
    p is at most `level` keeps the family-wise error rate at most `level`, whatever the dependence.

    Sorted ascending, the i-th (0-based) of m becomes max over j <= i of min(1, (m - j) p_(j))."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Stratified:
    """The Mantel-Haenszel test over the samples, stratified by case (one 2 x 2 table a case)."""

    right_before: int
    n_before: int
    right_after: int
    n_after: int
    strata: int
    """Cases whose table carries information (both outcomes seen, more than one sample in all)."""
    p_one_sided: float


def _stratified(tables: Sequence[tuple[int, int, int, int]], strata: int, p: float) -> Stratified:
    return Stratified(
        right_before=sum(t[0] for t in tables),
        n_before=sum(t[1] for t in tables),
        right_after=sum(t[2] for t in tables),
        n_after=sum(t[3] for t in tables),
        strata=strata,
        p_one_sided=p,
    )


def mantel_haenszel_drop(tables: Sequence[tuple[int, int, int, int]]) -> Stratified:
    """One-sided Cochran-Mantel-Haenszel test that the candidate is right less often than the baseline,
    over per-case tables (baseline right, baseline samples, candidate right, candidate samples), with the
    0.5 continuity correction and the normal approximation.

    Why not McNemar on verdicts alone: a verdict throws its samples away, and McNemar needs 5 broke and
    none fixed to reach p < 0.05, so a 10-point drop on 5 cases was caught 64 % of the time at a 5 %
    per-case disagreement (numpy simulation of the rules, benchmarks/README.md). Stratifying by case
    weighs each case on its own samples (a case right half the time adds variance, not evidence)."""
    observed = expected = variance = 0.0
    strata = 0
    for right_b, n_b, right_a, n_a in tables:
        total, right = n_b + n_a, right_b + right_a
        if total < 2 or right in (0, total) or n_b == 0 or n_a == 0:
            continue
        strata += 1
        observed += right_b
        expected += n_b * right / total
        variance += n_b * n_a * right * (total - right) / (total * total * (total - 1))
    if variance == 0.0:
        p = 1.0
    else:
        z = (observed - expected - 0.5) / math.sqrt(variance)
        p = normal_sf(z)
    return _stratified(tables, strata, p)


WEIGHT_UNITS = 12
"""`weighted_drop` rounds each weight to a multiple of 1 / WEIGHT_UNITS, so the statistic's law is a vector
over whole units, convolved exactly (n / m is exact in these units for up to 4 samples a side)."""


def rarity_weight(samples: int, wrong: int) -> float:
    """A case's weight in `weighted_drop`: its samples over its wrong answers, both sides counted (n / m,
    the inverse of the case's observed failure rate). A drift that turns right answers wrong with a small
    probability multiplies the failure odds of a case that is almost always right (a rate of .01 becoming
    .10) and hardly moves a coin flip's (.5 becoming .55): the locally most powerful weight is about 1 / q,
    and n / m estimates it from the margins the test conditions on, so the test stays exact."""
    return samples / wrong


def weighted_drop(
    tables: Sequence[tuple[int, int, int, int]], *, weight: Callable[[int, int], float] = rarity_weight
) -> Stratified:
    """An exact one-sided test that the after side is wrong more often than the before side, over per-case
    tables (right before, samples before, right after, samples after), weighted towards the cases that are
    almost always right (`rarity_weight`).

    Conditional on each case's margins (its samples on both sides, its wrong answers in all), the number of
    after-side wrong answers is hypergeometric under "nothing changed" (every sample of a case is a draw of
    the same coin), independently across cases. The statistic is the weighted sum of after-side wrong
    answers and the p-value its exact upper tail, convolved case by case. Mantel-Haenszel weighs every
    case alike, so the coin-flip cases (a wrong answer in half their samples, whatever the day) carry most of
    its variance and almost none of a drift's signal (benchmarks/README.md). A case whose samples all agree
    carries no information and drops out."""
    law = np.ones(1)
    observed = 0
    strata = 0
    for right_b, n_b, right_a, n_a in tables:
        total = n_b + n_a
        wrong = total - right_b - right_a
        if total < 2 or wrong in (0, total) or n_b == 0 or n_a == 0:
            continue
        strata += 1
        units = max(1, round(weight(total, wrong) * WEIGHT_UNITS))
        observed += units * (n_a - right_a)
        ways = math.comb(total, n_a)
        step = np.zeros(units * min(wrong, n_a) + 1)
        for k in range(max(0, n_a - (total - wrong)), min(wrong, n_a) + 1):
            step[units * k] = math.comb(wrong, k) * math.comb(total - wrong, n_a - k) / ways
        law = np.convolve(law, step)
    p = min(1.0, float(law[observed:].sum()))
    return _stratified(tables, strata, p)
