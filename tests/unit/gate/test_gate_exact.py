"""gate/exact.py's closed forms against the scipy.stats functions they replace in the gate (so the Action's
gate no longer imports scipy.stats): the same p-values, tails, power and detectable drops."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sp

from cairn_action.gate import exact, stats


def test_binomtest_half__every_k_of_n_up_to_30_and_of_some_larger__scipys_binomtest_p_values() -> None:
    pairs = [(k, n) for n in range(1, 31) for k in range(n + 1)]
    pairs += [(k, n) for n in (100, 101, 251) for k in range(0, n + 1, 7)]
    for k, n in pairs:
        one, two = exact.binomtest_half(k, n)
        assert one == pytest.approx(sp.binomtest(k, n, 0.5, alternative="greater").pvalue, rel=1e-12), (
            k,
            n,
        )
        assert two == pytest.approx(sp.binomtest(k, n, 0.5).pvalue, rel=1e-12), (k, n)


def test_mcnemar__large_discordant_counts__scipys_binomtest() -> None:
    for b, c in [(600, 540), (1500, 1400), (2, 2900), (2500, 2500)]:
        got = stats.mcnemar(b, c)
        assert got.p_one_sided == pytest.approx(
            sp.binomtest(b, b + c, 0.5, alternative="greater").pvalue, rel=1e-10
        )
        assert got.p_two_sided == pytest.approx(sp.binomtest(b, b + c, 0.5).pvalue, rel=1e-10)


def test_fisher_greater__every_table_with_cells_up_to_6_and_a_large_one__scipys_fisher_exact() -> None:
    tables = [[[a, b], [c, d]] for a, b, c, d in itertools.product(range(7), repeat=4)]
    tables += [[[40, 3], [25, 19]], [[0, 120], [7, 90]], [[95, 5], [60, 40]]]
    for table in tables:
        expected = sp.fisher_exact(table, alternative="greater").pvalue
        assert exact.fisher_greater(table) == pytest.approx(expected, rel=1e-12, abs=1e-300), table


def test_normal_sf__from_minus_9_to_9__scipys_norm_sf() -> None:
    for z in np.linspace(-9, 9, 721):
        assert exact.normal_sf(float(z)) == pytest.approx(sp.norm.sf(z), rel=1e-13), z


@pytest.mark.parametrize("p", [0.5, 0.55, 0.6, 0.75, 0.95, 0.999, 1.0])
def test_binom_sf_and_pmf__every_k_of_sizes_to_20000__scipys_binom(p: float) -> None:
    for n in [1, 2, 3, 7, 30, 99, 100, 101, 517, 2048] + ([20_000] if p in (0.5, 0.55) else []):
        k = np.arange(-1, n + 2)
        want = sp.binom.sf(k, n, p)
        got = exact.binom_sf(k, np.full(k.shape, n), p)
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-14, err_msg=f"sf n={n}")
        k = np.arange(0, n + 1)
        np.testing.assert_allclose(exact.binom_pmf(k, n, p), sp.binom.pmf(k, n, p), rtol=1e-9, atol=1e-14)


@cache
def _scipy_critical_b(n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """stats._critical_b as it was with scipy.stats."""
    ms = np.arange(1, n + 1)
    b = sp.binom.isf(alpha, ms, 0.5).astype(int) + 1
    for _ in range(3):
        b = np.where(sp.binom.sf(b - 2, ms, 0.5) < alpha, b - 1, b)
        b = np.where(sp.binom.sf(b - 1, ms, 0.5) >= alpha, b + 1, b)
    can_reject = b <= ms
    return ms[can_reject], b[can_reject]


def _scipy_power(n: int, discordance: float, drop: float, alpha: float = 0.05) -> float:
    ms, b_star = _scipy_critical_b(n, alpha)
    if ms.size == 0:
        return 0.0
    p_b = (discordance + drop) / (2 * discordance)
    return float(np.sum(sp.binom.pmf(ms, n, discordance) * sp.binom.sf(b_star - 1, ms, p_b)))


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.1])
def test_critical_b__every_m_up_to_5000__the_same_boundaries_as_scipys_quantiles(alpha: float) -> None:
    got_m, got_b = stats._critical_b(5000, alpha)
    want_m, want_b = _scipy_critical_b(5000, alpha)
    assert np.array_equal(got_m, want_m)
    assert np.array_equal(got_b, want_b)


def test_mcnemar_power__sizes_discordances_and_drops__scipys_power() -> None:
    for n in [1, 5, 12, 50, 72, 100, 250, 1000, 2500]:
        for discordance in [0.1, 0.15, 0.3, 0.5, 1.0]:
            for drop in [0.01, 0.05, 0.1, discordance]:
                if drop > discordance:
                    continue
                want = _scipy_power(n, discordance, drop)
                assert stats.mcnemar_power(n, discordance, drop) == pytest.approx(want, abs=1e-10), (
                    n,
                    discordance,
                )


def test_minimum_detectable_drop_and_cases_needed__a_grid__the_answers_scipy_gave() -> None:
    for n in [10, 30, 60, 72, 100, 200, 500]:
        for discordance in [0.0, 0.05, 0.2, 0.45, 1.0]:
            psi = min(max(discordance, 0.10), 1.0)
            drops = [p / 100 for p in range(1, int(psi * 100) + 1)]
            want = next((d for d in drops if _scipy_power(n, psi, d) >= 0.8), None)
            assert stats.minimum_detectable_drop(n, discordance) == want, (n, discordance)


def _scipy_cases_needed(discordance: float, drop: float, limit: int = 20_000) -> int | None:
    """stats.cases_needed's search over _scipy_power."""
    psi = min(max(discordance, 0.10), 1.0)
    if not 0 < drop <= psi:
        return None
    low, high = 1, 32
    while _scipy_power(high, psi, drop) < 0.8:
        low, high = high, high * 2
        if high > limit:
            return None
    while low + 1 < high:
        middle = (low + high) // 2
        if _scipy_power(middle, psi, drop) >= 0.8:
            high = middle
        else:
            low = middle
    return high


@pytest.mark.parametrize(
    ("discordance", "drop"), [(0.1, 0.1), (0.05, 0.05), (0.3, 0.1), (0.2, 0.03), (0.45, 0.05)]
)
def test_cases_needed__discordances_and_drops__the_size_scipy_gave(discordance: float, drop: float) -> None:
    assert stats.cases_needed(discordance, drop) == _scipy_cases_needed(discordance, drop)


_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from gate_fixtures import report
import cairn_action.action.entry
from cairn_action.gate import run_gate
same = run_gate(report("baseline"), report("baseline"))
unchanged = "scipy.stats" in sys.modules
lost = run_gate(report("baseline"), report("critical_lost"))
print(json.dumps([same.decision.exit_code, unchanged, lost.decision.exit_code, "scipy.stats" in sys.modules]))
"""


def test_action_gate__unchanged_answers_without_scipy_stats__changed_ones_import_it_for_wilcoxon() -> None:
    """The Action's imports and a gate over unchanged answers (McNemar, Mantel-Haenszel, the power note) run
    without scipy.stats, in a fresh interpreter; a gate whose answers moved imports it where it is used (the
    Wilcoxon test and the bootstrap interval)."""
    unit = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(unit)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [0, False, 1, True]
