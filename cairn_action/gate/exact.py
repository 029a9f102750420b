"""The gate's binomial, hypergeometric and normal tails without `scipy.stats`.

Importing `scipy.stats` costs about 1 s of CPU (400 modules), more than the rest of the Action's imports, and
every Action run that reached the gate paid it for a McNemar p-value, a Fisher test, a normal tail and the
power table. These are closed forms: exact rational sums where the counts are small (McNemar, Fisher), the
continued fraction of the regularised incomplete beta function for the power calculation (vectorised over
every number of discordant pairs). tests/unit/gate/test_gate_exact.py checks each against scipy's own.
The Wilcoxon test and the bootstrap interval still come from scipy, imported when a sample needs them.
"""

from __future__ import annotations

import math

import numpy as np

_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)
_TINY = 1e-300
_EPS = 1e-15
_MAX_ITERATIONS = 100_000


def half_upper_tail(b: int, m: int) -> float:
    """P(Binomial(m, 1/2) >= b), the exact sum of C(m, k) over k >= b divided by 2**m, rounded once."""
    if b <= 0:
        return 1.0
    if b > m:
        return 0.0
    term = math.comb(m, b)
    total = 0
    for k in range(b, m + 1):
        total += term
        term = term * (m - k) // (k + 1)
    return total / (1 << m)


def binomtest_half(k: int, n: int) -> tuple[float, float]:
    """scipy.stats.binomtest(k, n, 0.5)'s one-sided ("greater") and two-sided p-values, n > 0. At p = 1/2
    the law is symmetric, so scipy's two-sided set (outcomes no likelier than k) is both tails beyond
    min(k, n - k)."""
    one = half_upper_tail(k, n)
    if 2 * k == n:
        return one, 1.0
    low = min(k, n - k)
    return one, min(1.0, 2 * half_upper_tail(n - low, n))


def fisher_greater(table: list[list[int]]) -> float:
    """scipy.stats.fisher_exact(table, alternative="greater").pvalue for a 2 x 2 table of counts: the
    hypergeometric probability that the top-left cell is at least as large, given the margins."""
    (a, b), (c, d) = table
    row, column, total = a + b, a + c, a + b + c + d
    ways = math.comb(total, column)
    hits = sum(math.comb(row, k) * math.comb(total - row, column - k) for k in range(a, min(row, column) + 1))
    return min(1.0, hits / ways)


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z (scipy.stats.norm.sf), through erfc: accurate in both tails."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def _beta_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction of I_x(a, b) (modified Lentz), element-wise; converges fast for
    x < (a + 1) / (a + b + 2), where the callers use it."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    for m in range(1, _MAX_ITERATIONS):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        step = d * c
        h *= step
        if np.all(np.abs(step - 1.0) < _EPS):
            return h
    raise ArithmeticError("the incomplete beta continued fraction did not converge")


def _log_beta_front(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    lg = _LGAMMA(a + b) - _LGAMMA(a) - _LGAMMA(b)
    return np.exp(lg.astype(float) + a * np.log(x) + b * np.log1p(-x))


def regularized_beta(a: np.ndarray, b: np.ndarray, x: float) -> np.ndarray:
    """I_x(a, b) for arrays a, b > 0 and a scalar 0 <= x <= 1."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x <= 0.0:
        return np.zeros(np.broadcast(a, b).shape)
    if x >= 1.0:
        return np.ones(np.broadcast(a, b).shape)
    xs = np.full(np.broadcast(a, b).shape, x)
    direct = xs < (a + 1.0) / (a + b + 2.0)
    out = np.empty(xs.shape)
    if direct.any():
        aa, bb, xx = a[direct] if a.ndim else a, b[direct] if b.ndim else b, xs[direct]
        aa, bb = np.broadcast_to(aa, xx.shape), np.broadcast_to(bb, xx.shape)
        out[direct] = _log_beta_front(aa, bb, xx) * _beta_fraction(aa, bb, xx) / aa
    flipped = ~direct
    if flipped.any():
        aa, bb, xx = a[flipped] if a.ndim else a, b[flipped] if b.ndim else b, 1.0 - xs[flipped]
        aa, bb = np.broadcast_to(aa, xx.shape), np.broadcast_to(bb, xx.shape)
        out[flipped] = 1.0 - _log_beta_front(bb, aa, xx) * _beta_fraction(bb, aa, xx) / bb
    return out


def binom_sf(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """P(Binomial(n, p) > k) element-wise (scipy.stats.binom.sf): I_p(k + 1, n - k) inside the support."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    out = np.where(k < 0, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    if inside.any():
        out[inside] = regularized_beta(k[inside] + 1.0, (n[inside] - k[inside]).astype(float), p)
    return out


def binom_pmf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """P(Binomial(n, p) = k) element-wise for 0 <= k <= n (scipy.stats.binom.pmf), through log-gamma."""
    k = np.asarray(k, dtype=np.int64)
    if p <= 0.0 or p >= 1.0:
        return np.where(k == (n if p >= 1.0 else 0), 1.0, 0.0)
    kf = k.astype(float)
    log_choose = (_LGAMMA(float(n) + 1.0) - _LGAMMA(kf + 1.0) - _LGAMMA(n - kf + 1.0)).astype(float)
    return np.exp(log_choose + kf * math.log(p) + (n - kf) * math.log1p(-p))
