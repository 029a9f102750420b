"""The exact weighted test the control's "environment shifted" note rests on (stats.weighted_drop), against
scipy's hypergeometric law and a brute-force enumeration of every outcome."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import hypergeom

from cairn_action.gate.stats import mantel_haenszel_drop, rarity_weight, weighted_drop


def _brute_force(tables: list[tuple[int, int, int, int]]) -> float:
    """P(weighted after-side wrong answers >= observed) by enumerating every outcome of every informative
    case, each case's after-side wrong count hypergeometric given its margins (scipy)."""
    laws, observed = [], 0.0
    for right_b, n_b, right_a, n_a in tables:
        total, wrong = n_b + n_a, n_b + n_a - right_b - right_a
        if wrong in (0, total):
            continue
        w = rarity_weight(total, wrong)
        observed += w * (n_a - right_a)
        law = hypergeom(total, wrong, n_a)
        laws.append([(w * k, law.pmf(k)) for k in range(min(wrong, n_a) + 1) if law.pmf(k) > 0])
    return sum(
        float(np.prod([q for _, q in combo]))
        for combo in itertools.product(*laws)
        if sum(v for v, _ in combo) >= observed - 1e-9
    )


def test_weighted_drop__one_case__scipy_hypergeometric_upper_tail() -> None:
    # A case right in 3 of 3 baseline samples and wrong now: the one wrong answer of 4 is the new one with
    # chance 1/4 when nothing changed.
    assert weighted_drop([(3, 3, 0, 1)]).p_one_sided == pytest.approx(hypergeom(4, 1, 1).sf(0), abs=1e-15)
    # 5 of 8 before, 1 of 4 now: 6 wrong of 12, 3 of them now.
    assert weighted_drop([(5, 8, 1, 4)]).p_one_sided == pytest.approx(hypergeom(12, 6, 4).sf(2), abs=1e-15)


def test_weighted_drop__several_cases__exact_against_enumeration_of_every_outcome() -> None:
    tables = [
        (3, 3, 0, 1),
        (3, 3, 0, 1),
        (1, 3, 1, 1),
        (2, 3, 0, 1),
        (2, 2, 1, 3),
        (0, 3, 1, 1),
        (3, 3, 1, 1),
    ]
    result = weighted_drop(tables)
    assert result.p_one_sided == pytest.approx(_brute_force(tables), abs=1e-12)
    assert result.strata == 6  # the last case is right in all 4 samples: no information
    assert (result.right_before, result.n_before, result.right_after, result.n_after) == (14, 20, 4, 9)


def test_weighted_drop__wrong_now_on_an_always_right_case__weighs_more_than_on_a_coin_flip() -> None:
    coin_flips = [(2, 3, 1, 1), (1, 3, 1, 1), (2, 3, 1, 1), (1, 3, 0, 1)]
    on_stable = [*coin_flips, *[(3, 3, 0, 1)] * 3]  # 3 cases right in 3 of 3 before, wrong now
    on_coin_flips = [*coin_flips, *[(1, 3, 0, 1)] * 3]  # 3 cases right in 1 of 3 before, wrong now
    assert weighted_drop(on_stable).p_one_sided == pytest.approx(_brute_force(on_stable), abs=1e-12)
    assert weighted_drop(on_stable).p_one_sided < 0.1 < weighted_drop(on_coin_flips).p_one_sided
    # Mantel-Haenszel weighs each case alike: the coin flips' variance hides the stable cases' signal.
    assert mantel_haenszel_drop(on_stable).p_one_sided > 0.1


def test_weighted_drop__no_case_with_both_outcomes__p_is_one() -> None:
    result = weighted_drop([(3, 3, 1, 1), (0, 3, 0, 1), (1, 1, 0, 0)])
    assert result.p_one_sided == 1.0 and result.strata == 0


def test_weighted_drop__nothing_changed_under_mixed_noise__says_shifted_at_most_at_its_level() -> None:
    # gate_noise.py's mixed model: 72 cases, 39 right, per draw 4 flip with p .5, 11 with .2, 57 with .01;
    # 3 baseline samples and one ask now, every sample a draw of the same coin.
    rng = np.random.Generator(np.random.PCG64(2026))
    truth = np.arange(72) < 39
    rejected = 0
    draws = 1500
    for _ in range(draws):
        p = np.full(72, 0.01)
        order = rng.permutation(72)
        p[order[:4]], p[order[4:15]] = 0.5, 0.2
        right = (rng.random((72, 4)) >= p[:, None]) == truth[:, None]
        tables = [(int(r[:3].sum()), 3, int(r[3]), 1) for r in right]
        rejected += weighted_drop(tables).p_one_sided < 0.1
    # Exact and conservative: at most 10 % plus two binomial standard errors (1.5 points).
    assert rejected / draws <= 0.1 + 2 * (0.1 * 0.9 / draws) ** 0.5
