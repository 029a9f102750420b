"""Calibration by fixed-sequence testing (docs/concepts/abstention.md#fixed-sequence), and its guarantee
checked by simulation."""

from __future__ import annotations

import numpy as np
import pytest

from cairn_action.score.calibration.threshold import advise, fit_threshold, k_min, p_value, upper_bound

# docs/concepts/abstention.md#fixed-sequence worked example: 40 cases, confidences 1.00, 0.98, ..., 0.22,
# wrong at these ranks.
CONF = [round(1 - 0.02 * i, 2) for i in range(40)]
WRONG_RANKS = {24, 29, 31, 33, 34, 36, 37, 38, 39, 40}
WRONG = [(i + 1) in WRONG_RANKS for i in range(40)]


@pytest.mark.parametrize(
    ("alpha", "delta", "expected"),
    [(0.05, 0.1, 45), (0.1, 0.1, 22), (0.2, 0.1, 11), (0.05, 0.05, 59), (0.1, 0.05, 29), (0.2, 0.05, 14)],
)
def test_k_min__matches_table(alpha: float, delta: float, expected: int) -> None:
    assert k_min(alpha, delta) == expected


def test_k_min__exact_integer_boundary_not_pushed_up_by_float_noise() -> None:
    assert k_min(0.5, 0.25) == 2  # (1 - 0.5)^2 == 0.25 exactly


def test_p_value_and_bound__agree_on_the_decision() -> None:
    assert p_value(0, 22, 0.1) == pytest.approx(0.0985, abs=1e-4)
    assert upper_bound(0, 22, 0.1) == pytest.approx(0.0994, abs=1e-4)
    assert upper_bound(5, 5, 0.1) == 1.0


def test_fit__worked_example__certifies_0_56_answering_23_of_40() -> None:
    fit = fit_threshold(CONF, WRONG, alpha=0.1, delta=0.1)
    assert fit.status == "certified"
    assert fit.threshold == 0.56 and fit.answered == 23 and fit.errors == 0
    assert [(t.threshold, t.answered, t.errors, t.accepted) for t in fit.path] == [
        (0.58, 22, 0, True),
        (0.56, 23, 0, True),
        (0.54, 24, 1, False),
    ]
    assert [round(t.p_value, 4) for t in fit.path] == [0.0985, 0.0886, 0.2925]
    assert fit.coverage == pytest.approx(23 / 40)


def test_fit__ties__counted_together_at_each_threshold() -> None:
    fit = fit_threshold([round(c, 1) for c in CONF], WRONG, alpha=0.1, delta=0.1)
    assert fit.threshold == 0.6
    assert [(t.threshold, t.answered, t.errors) for t in fit.path] == [(0.6, 23, 0), (0.5, 28, 1)]
    assert fit.path[1].p_value == pytest.approx(0.2152, abs=1e-4)


def test_fit__error_among_most_confident__not_achievable_with_reason_and_advice() -> None:
    wrong = list(WRONG)
    wrong[9] = True  # an error at rank 10
    fit = fit_threshold(CONF, wrong, alpha=0.1, delta=0.1)
    assert fit.status == "not_achievable" and fit.threshold is None and fit.answered == 0
    assert fit.path[0].p_value == pytest.approx(0.3392, abs=1e-4)
    assert "errors among the 22 most confident" in fit.reason
    advice = advise(fit, CONF, wrong, fraction=0.4)
    assert any(a.startswith("more calibration cases") for a in advice)
    assert any("alpha=0.25 would certify" in a for a in advice)


def test_calibration__too_few_cases__not_achievable_with_advice() -> None:
    conf = [0.9] * 15
    fit = fit_threshold(conf, [False] * 15, alpha=0.1, delta=0.1)
    assert fit.status == "not_achievable" and fit.path == ()
    assert "calibration set too small" in fit.reason and "at least 22" in fit.reason
    advice = advise(fit, conf, [False] * 15, fraction=0.4)
    assert "about 22 answered calibration cases" in advice[0]
    assert "golden set of about 55" in advice[0]
    assert "alpha=0.15 would certify" in advice[1]


def test_calibration__no_confidences__not_achievable() -> None:
    fit = fit_threshold([None, None], [True, True], alpha=0.1, delta=0.1)
    assert fit.status == "not_achievable" and "no calibration case has a confidence" in fit.reason


def test_calibration__cases_without_confidence_count_in_n_only() -> None:
    fit = fit_threshold(CONF + [None] * 10, WRONG + [True] * 10, alpha=0.1, delta=0.1)
    assert fit.threshold == 0.56 and fit.n == 50 and fit.n_with_confidence == 40


def test_calibration__advice_when_top_answers_err_too_often() -> None:
    conf = [1 - i / 100 for i in range(40)]
    wrong = [i % 3 == 0 for i in range(40)]
    fit = fit_threshold(conf, wrong, alpha=0.1, delta=0.1)
    assert "more cases alone will not help" in advise(fit, conf, wrong)[0]


# --- simulation (docs/concepts/abstention.md#fixed-sequence, scenarios S1 and S2) ----------------------
# c ~ Uniform(0, 1), P(wrong | c) = scale * (1 - c)^1.5, so the population error among answered at
# threshold t is R(t) = scale * 0.4 * (1 - t)^1.5, known exactly.


def _true_selective_risk(t: float, scale: float) -> float:
    return scale * 0.4 * (1 - t) ** 1.5


def _naive_threshold(conf: np.ndarray, wrong: np.ndarray, alpha: float) -> float | None:
    """The largest coverage whose empirical error among answered is <= alpha: no guarantee."""
    order = np.argsort(-conf, kind="stable")
    errors = np.cumsum(wrong[order])
    answered = np.arange(1, len(conf) + 1)
    ok = np.nonzero(errors / answered <= alpha)[0]
    return float(conf[order][ok[-1]]) if len(ok) else None


@pytest.mark.slow
@pytest.mark.parametrize(("scale", "alpha", "n_cal"), [(0.5, 0.1, 100), (0.8, 0.2, 40)])
def test_simulation__certified_threshold_holds_guarantee__naive_does_not(
    scale: float, alpha: float, n_cal: int
) -> None:
    delta, draws = 0.1, 300
    rng = np.random.Generator(np.random.PCG64(20260101))
    certified = violations = naive_violations = 0
    for _ in range(draws):
        conf = rng.uniform(0.0, 1.0, n_cal)
        wrong = rng.uniform(0.0, 1.0, n_cal) < scale * (1 - conf) ** 1.5
        fit = fit_threshold(conf.tolist(), wrong.tolist(), alpha=alpha, delta=delta)
        if fit.threshold is not None:
            certified += 1
            violations += _true_selective_risk(fit.threshold, scale) > alpha
        naive = _naive_threshold(conf, wrong, alpha)
        naive_violations += naive is not None and _true_selective_risk(naive, scale) > alpha
    assert violations / draws <= delta  # the guarantee: at most delta of draws certify a bad threshold
    assert naive_violations / draws > 0.3  # the naive rule fails about half the time
    assert certified / draws > 0.4  # and the procedure is not vacuous: it does answer


@pytest.mark.slow
@pytest.mark.parametrize("start", ["one_error", "auto"])
@pytest.mark.parametrize(("scale", "alpha", "n_cal"), [(0.5, 0.1, 400), (0.8, 0.2, 100)])
def test_simulation__later_label_free_start__holds_guarantee(
    start: str, scale: float, alpha: float, n_cal: int
) -> None:
    delta, draws = 0.1, 150
    rng = np.random.Generator(np.random.PCG64(20261201))
    violations = 0
    for _ in range(draws):
        conf = rng.uniform(0.0, 1.0, n_cal)
        wrong = rng.uniform(0.0, 1.0, n_cal) < scale * (1 - conf) ** 1.5
        fit = fit_threshold(conf.tolist(), wrong.tolist(), alpha=alpha, delta=delta, start=start)  # type: ignore[arg-type]
        violations += fit.threshold is not None and _true_selective_risk(fit.threshold, scale) > alpha
    assert violations / draws <= delta


def test_fit__auto_start__one_error_start_on_a_large_set_survives_an_early_error() -> None:
    # 200 confident cases, the 3rd most confident one wrong: the k_min start (22 at alpha 0.1) tests
    # 22 answers with 1 error and stops at once; auto starts at the one-error count (38) and certifies.
    conf = [1.0 - i / 1000 for i in range(200)]
    wrong = [i == 2 for i in range(200)]
    zero = fit_threshold(conf, wrong, alpha=0.1, delta=0.1, start="zero_error")
    auto = fit_threshold(conf, wrong, alpha=0.1, delta=0.1)
    assert zero.status == "not_achievable" and zero.start == 22
    assert (auto.status, auto.start_rule, auto.start) == ("certified", "one_error", 38)
    assert auto.answered > 38


def test_fit__auto_start__small_set_keeps_the_zero_error_start() -> None:
    conf = [1.0 - i / 100 for i in range(40)]
    fit = fit_threshold(conf, [False] * 40, alpha=0.1, delta=0.1)
    assert (fit.start_rule, fit.start) == ("zero_error", 22)


def _s3_risk(conf: np.ndarray) -> np.ndarray:
    """metrics.md's S3: S1's risk, but 0.3 for confidence >= 0.95 (over-confident top scores)."""
    return np.where(conf >= 0.95, 0.3, 0.5 * (1 - conf) ** 1.5)


def _s3_true_risk(t: float) -> float:
    grid = np.linspace(t, 1.0, 4001)
    return float(_s3_risk(grid).mean())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scenario", "alpha", "n_cal"), [("S1", 0.1, 100), ("S3", 0.2, 400), ("S2", 0.2, 100)]
)
def test_simulation__split_fixed_sequence_and_bonferroni__holds_guarantee(
    scenario: str, alpha: float, n_cal: int
) -> None:
    from cairn_action.score.calibration.threshold import fit_split

    delta, draws = 0.1, 150
    rng = np.random.Generator(np.random.PCG64(20261202))
    violations = answered_split = answered_fixed = 0.0
    for _ in range(draws):
        conf = rng.uniform(0.0, 1.0, n_cal)
        scale = 0.8 if scenario == "S2" else 0.5
        risk = _s3_risk(conf) if scenario == "S3" else scale * (1 - conf) ** 1.5
        wrong = rng.uniform(0.0, 1.0, n_cal) < risk
        fit = fit_split(conf.tolist(), wrong.tolist(), alpha=alpha, delta=delta)
        fixed = fit_threshold(conf.tolist(), wrong.tolist(), alpha=alpha, delta=delta)
        if fit.threshold is not None:
            true = (
                _s3_true_risk(fit.threshold)
                if scenario == "S3"
                else _true_selective_risk(fit.threshold, scale)
            )
            violations += true > alpha
            answered_split += 1 - fit.threshold
        answered_fixed += 0.0 if fixed.threshold is None else 1 - fixed.threshold
    assert violations / draws <= delta  # the union bound: delta/2 each
    if scenario == "S3":  # where fixed-sequence stalls on the wrong top answers, Bonferroni answers
        assert answered_split / draws > 0.3 > answered_fixed / draws


def test_fit_split__shipped_sample_calibration__halving_delta_certifies_nothing() -> None:
    from cairn_action.score.calibration.threshold import fit_split

    # The shipped calibration (cairn.calibration.json): 24 confident cases, the top 12 right, the 13th
    # wrong; at delta 0.1 fixed-sequence certifies 12. At delta/2 = 0.05 zero errors need 14 answers.
    conf = [1.0 - i / 100 for i in range(24)] + [None] * 24
    wrong = [False] * 12 + [True] + [False] * 11 + [False] * 24
    assert fit_threshold(conf, wrong, alpha=0.2, delta=0.1).answered == 12
    split = fit_split(conf, wrong, alpha=0.2, delta=0.1)
    assert split.status == "not_achievable" and split.answered == 0
