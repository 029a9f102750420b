"""The gate's binomial, hypergeometric and normal tails without `scipy.stats`.

Importing `scipy.stats` costs about 1 s of CPU (400 modules), more than the rest of the Action's imports, and
every Action run that reached the gate paid it for a McNemar p-value, a Fisher test, a normal tail and the
power table. These are closed forms: exact rational sums where the counts are small (McNemar, Fisher), and
for the power calculation's binomial tails the regularised incomplete beta function, `scipy.special.betainc`
(a fifth of scipy.stats' import, paid only when the power note is computed).
tests/unit/gate/test_gate_exact.py checks each against scipy.stats' own.
The Wilcoxon test and the bootstrap interval still come from scipy, imported when a sample needs them.
"""

from __future__ import annotations

import math

import numpy as np

_LGAMMA = np.frompyfunc(math.lgamma, 1, 1)


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


def binom_sf(k: np.ndarray, n: np.ndarray, p: float) -> np.ndarray:
    """P(Binomial(n, p) > k) element-wise (scipy.stats.binom.sf): I_p(k + 1, n - k) inside the support."""
    k, n = np.broadcast_arrays(np.asarray(k, dtype=np.int64), np.asarray(n, dtype=np.int64))
    out = np.where(k < 0, 1.0, 0.0)
    inside = (k >= 0) & (k < n)
    if inside.any():
        from scipy.special import betainc  # 0.2 s of imports, only for the power note; scipy.stats is 1 s

        out[inside] = betainc(k[inside] + 1.0, (n[inside] - k[inside]).astype(float), p)
    return out


def binom_pmf(k: np.ndarray, n: int, p: float) -> np.ndarray:
    """P(Binomial(n, p) = k) element-wise for 0 <= k <= n (scipy.stats.binom.pmf), through log-gamma."""
    k = np.asarray(k, dtype=np.int64)
    if p <= 0.0 or p >= 1.0:
        return np.where(k == (n if p >= 1.0 else 0), 1.0, 0.0)
    kf = k.astype(float)
    log_choose = (_LGAMMA(float(n) + 1.0) - _LGAMMA(kf + 1.0) - _LGAMMA(n - kf + 1.0)).astype(float)
    return np.exp(log_choose + kf * math.log(p) + (n - kf) * math.log1p(-p))
