"""Abstention: the threshold, what counts as wrong, and which cases sit in which denominator."""

from __future__ import annotations

import pytest
from score_builders import make_case, make_record

from cairn_action.score.abstention import summarise_abstention
from cairn_action.score.outcome import score_case


def test_threshold__answer_below_it_becomes_abstained_and_is_counted() -> None:
    case = make_case("a1")
    low = score_case(make_record("a1", confidence=0.4), case, threshold=0.5)
    at = score_case(make_record("a1", confidence=0.5), case, threshold=0.5)
    missing = score_case(make_record("a1", confidence=None), case, threshold=0.5)
    assert (low.status, low.abstained_by_threshold, low.correct) == ("abstained", True, None)
    assert (at.status, at.abstained_by_threshold) == ("answered", False)  # >=, as in calibration
    assert missing.status == "abstained"


def test_threshold__model_abstention_is_not_overridden() -> None:
    outcome = score_case(
        make_record("a1", status="abstained", confidence=0.99), make_case("a1"), threshold=0.1
    )
    assert outcome.status == "abstained" and not outcome.abstained_by_threshold


def test_uncalibrated__model_flag_decides() -> None:
    outcome = score_case(make_record("a1", confidence=0.01), make_case("a1"), threshold=None)
    assert outcome.status == "answered"


def test_answered_unanswerable_case__wrong_by_definition_even_if_judge_said_correct() -> None:
    outcome = score_case(
        make_record("u1", answerable=False, correct=True), make_case("u1", answerable=False), threshold=None
    )
    assert outcome.correct is False


def test_answered_without_verdict__counted_wrong_and_flagged() -> None:
    outcome = score_case(make_record("a1", correct=None), make_case("a1"), threshold=None)
    assert outcome.correct is False and outcome.unjudged


def test_rates__errors_stay_in_denominators__stale_left_out() -> None:
    pairs = [
        (make_case("a1"), make_record("a1", correct=True)),
        (make_case("a2"), make_record("a2", correct=False)),
        (make_case("a3"), make_record("a3", status="error")),
        (make_case("a4"), make_record("a4", status="stale")),
        (make_case("u1", answerable=False), make_record("u1", answerable=False, status="abstained")),
        (make_case("u2", answerable=False), make_record("u2", answerable=False, status="answered")),
        (make_case("u3", answerable=False), make_record("u3", answerable=False, status="error")),
    ]
    outcomes = [score_case(r, c, threshold=None) for c, r in pairs]
    s = summarise_abstention(outcomes, alpha=0.1, threshold=None)
    assert s.answer_rate == pytest.approx(3 / 6)  # a1, a2, u2 of six scored (a4 is stale)
    assert s.error_rate_answered == pytest.approx(2 / 3)  # a2 wrong, u2 answered an unanswerable
    assert s.guarantee_met is False
    assert s.unanswerable_abstained_rate == pytest.approx(1 / 3)  # the errored u3 did not abstain
    assert s.answerable_answered_rate == pytest.approx(2 / 3)  # a3 errored, a4 stale


def test_guarantee__none_when_nothing_answered__true_at_alpha_exactly() -> None:
    nothing = [score_case(make_record("a1", status="abstained"), make_case("a1"), threshold=None)]
    assert summarise_abstention(nothing, alpha=0.1, threshold=None).guarantee_met is None
    ten = [
        score_case(make_record(f"a{i}", correct=i != 0), make_case(f"a{i}"), threshold=None)
        for i in range(10)
    ]
    s = summarise_abstention(ten, alpha=0.1, threshold=0.5)
    assert s.error_rate_answered == pytest.approx(0.1) and s.guarantee_met is True and s.threshold == 0.5
