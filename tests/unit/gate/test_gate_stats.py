"""The paired statistics against the vectors of docs/concepts/statistics.md#paired (computed with scipy and
statsmodels)."""

from __future__ import annotations

import pytest

from cairn_action.gate import stats

# docs/concepts/statistics.md#mcnemar: n = 100, b = 15 (right -> wrong), c = 5 (wrong -> right), 60 both
# right, 20 both wrong.
MCNEMAR_BEFORE = [1.0] * 15 + [0.0] * 5 + [1.0] * 60 + [0.0] * 20
MCNEMAR_AFTER = [0.0] * 15 + [1.0] * 5 + [1.0] * 60 + [0.0] * 20
# Wilcoxon vector: token F1 of 12 cases, A the baseline and B the candidate.
F1_A = [1, 1, 0.5, 0.8, 0, 1, 0.667, 1, 0.4, 1, 0.25, 1]
F1_B = [1, 0.5, 0.5, 0.6, 0, 0.667, 0.667, 0.8, 0, 1, 0.25, 0.5]


def test_mcnemar__documented_vector__exact_p_values() -> None:
    result = stats.mcnemar(15, 5)
    assert result.p_one_sided == pytest.approx(0.020695, abs=1e-6)
    assert result.p_two_sided == pytest.approx(0.041389, abs=1e-6)


def test_mcnemar__no_discordant_pairs__p_is_one() -> None:
    assert stats.mcnemar(0, 0).p_one_sided == 1.0
    assert stats.mcnemar(0, 0).p_two_sided == 1.0


def test_mcnemar__more_fixed_than_broke__one_sided_p_large() -> None:
    assert stats.mcnemar(1, 6).p_one_sided > 0.9


def test_wilcoxon__documented_vector_with_zeros_and_ties__exhaustive_permutation() -> None:
    result = stats.wilcoxon_drop(F1_A, F1_B)
    # Two-sided 0.03125 = 2/64 with six non-zero differences; one-sided is half.
    assert result.p_one_sided == pytest.approx(0.015625)
    assert result.method == "exhaustive permutation"
    assert (result.n, result.n_nonzero) == (12, 6)


def test_wilcoxon__no_ties__exact_method_pinned() -> None:
    result = stats.wilcoxon_drop([1.0, 1.0, 1.0], [0.9, 0.7, 0.4])
    assert result.method == "exact"
    assert result.p_one_sided == pytest.approx(1 / 8)


def test_wilcoxon__many_tied_differences__asymptotic() -> None:
    result = stats.wilcoxon_drop([1.0] * 30, [0.5] * 20 + [1.0] * 10)
    assert result.method == "asymptotic"
    assert result.p_one_sided is not None and result.p_one_sided < 0.001


def test_wilcoxon__every_difference_zero__no_test() -> None:
    result = stats.wilcoxon_drop([0.5, 1.0], [0.5, 1.0])
    assert result.p_one_sided is None
    assert result.method == "none"


def test_wilcoxon__candidate_better__one_sided_p_large() -> None:
    assert stats.wilcoxon_drop(F1_B, F1_A).p_one_sided > 0.9


def test_paired_interval__mcnemar_vector__matches_documented_interval() -> None:
    interval = stats.paired_interval(MCNEMAR_BEFORE, MCNEMAR_AFTER)
    assert interval is not None
    assert interval.mean == pytest.approx(-0.10)
    # BCa and percentile: [0.02, 0.19] for baseline minus candidate, so [-0.19, -0.02] here (another seed).
    assert interval.low == pytest.approx(-0.19, abs=0.011)
    assert interval.high == pytest.approx(-0.02, abs=0.011)
    assert (interval.method, interval.n_resamples) == ("percentile", 9999)


def test_paired_interval__same_inputs__same_interval() -> None:
    assert stats.paired_interval(F1_A, F1_B) == stats.paired_interval(F1_A, F1_B)


def test_paired_interval__constant_difference__degenerate_interval_without_warning() -> None:
    interval = stats.paired_interval([1.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    assert interval is not None
    assert (interval.low, interval.mean, interval.high) == (0.0, 0.0, 0.0)


def test_paired_interval__no_cases__none() -> None:
    assert stats.paired_interval([], []) is None


@pytest.mark.parametrize(
    ("discordance", "drop", "power"),
    [(0.10, 0.09, 0.894), (0.15, 0.10, 0.801), (0.20, 0.12, 0.835), (0.30, 0.15, 0.848), (0.20, 0.05, 0.232)],
)
def test_mcnemar_power__documented_table__matches(discordance: float, drop: float, power: float) -> None:
    assert stats.mcnemar_power(100, discordance, drop) == pytest.approx(power, abs=0.0006)


@pytest.mark.parametrize(("discordance", "drop"), [(0.10, 0.09), (0.20, 0.12), (0.30, 0.15), (0.40, 0.17)])
def test_minimum_detectable_drop__n_100__documented_table(discordance: float, drop: float) -> None:
    assert stats.minimum_detectable_drop(100, discordance) == pytest.approx(drop)


def test_minimum_detectable_drop__twelve_cases__nothing_detectable() -> None:
    assert stats.minimum_detectable_drop(12, 0.25) is None


def test_minimum_detectable_drop__unchanged_runs__discordance_floored_at_ten_percent() -> None:
    assert stats.minimum_detectable_drop(100, 0.0) == stats.minimum_detectable_drop(100, 0.10)


@pytest.mark.parametrize("discordance", [0.05, 0.1, 0.2, 0.3])
def test_cases_needed__the_size_found__reaches_80_percent_power_and_detects_the_drop(
    discordance: float,
) -> None:
    needed = stats.cases_needed(discordance, 0.10)
    assert needed is not None
    psi = max(discordance, 0.1)
    assert stats.mcnemar_power(needed, psi, 0.10) >= 0.8
    assert stats.minimum_detectable_drop(needed, discordance) <= 0.10
    # And a slice a quarter smaller cannot: the answer is the right order of size, not just any size.
    assert stats.mcnemar_power(int(needed * 0.75), psi, 0.10) < 0.8


def test_cases_needed__drop_beyond_the_discordance__none() -> None:
    assert stats.cases_needed(0.1, 0.2) is None


def test_gate__twelve_cases__underpowered_note_says_how_many_cases_would_detect_the_policys_drop() -> None:
    from gate_fixtures import report

    from cairn_action.gate import run_gate

    baseline = report("noisy_baseline")
    notes = run_gate(baseline, baseline).comparison.stats.sample_notes  # type: ignore[union-attr]
    assert (
        "underpowered: 12 cases can detect no drop with 80% power (exact McNemar on the verdicts, 10% "
        "discordance); a drop of 10 points needs about 66 cases" in notes
    )
