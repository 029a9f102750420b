"""Answer metrics: SQuAD v1.1 EM/F1 (public API), judge, citation validity, faithfulness."""

from __future__ import annotations

import pytest
from score_builders import make_case, make_record

import cairn_action.squad
from cairn_action.score import exact_match, normalize_answer, token_f1
from cairn_action.score.answer import summarise_answers
from cairn_action.score.outcome import score_case


def test_public_api__reexports_the_squad_functions_not_a_copy() -> None:
    assert exact_match is cairn_action.squad.exact_match
    assert token_f1 is cairn_action.squad.token_f1
    assert normalize_answer is cairn_action.squad.normalize_answer


@pytest.mark.parametrize(
    ("prediction", "gold", "em", "f1"),
    [
        ("Denver Broncos team", "Denver Broncos", False, 0.8),
        ("the", "A", True, 0.0),  # v1.1 quirk kept: both empty after normalisation, EM 1 but F1 0
        ("24\u201310", "24-10", False, 0.0),  # an en dash survives normalisation
        ("5 a.m.", "5 am", True, 1.0),
    ],
)
def test_public_api__squad_v1_vectors(prediction: str, gold: str, em: bool, f1: float) -> None:
    assert exact_match(prediction, gold) is em
    assert token_f1(prediction, gold) == pytest.approx(f1)


def _outcomes(*pairs):  # (case, record)
    return [score_case(r, c, threshold=None) for c, r in pairs]


def test_answer_metrics__over_answered_answerable_cases_only() -> None:
    outcomes = _outcomes(
        (make_case("a1", expected="14 days"), make_record("a1", answer="14 days")),
        (make_case("a2", expected="Denver Broncos"), make_record("a2", answer="Denver Broncos team")),
        (make_case("a3"), make_record("a3", status="abstained")),  # abstained: not in the denominator
        (make_case("u1", answerable=False), make_record("u1", answerable=False, answer="14 days")),
        (make_case("a4"), make_record("a4", status="stale")),
    )
    summary = summarise_answers(outcomes)
    assert summary.n_graded == 2
    assert summary.exact_match == pytest.approx(0.5)
    assert summary.token_f1 == pytest.approx((1.0 + 0.8) / 2)


def test_judge_score__none_when_no_grade_ran() -> None:
    outcomes = _outcomes((make_case("a1"), make_record("a1", score=None)))
    assert summarise_answers(outcomes).judge_score is None
    graded = _outcomes(
        (make_case("a1"), make_record("a1", score=0.5)), (make_case("a2"), make_record("a2", score=1.0))
    )
    assert summarise_answers(graded).judge_score == pytest.approx(0.75)


def test_citation_validity__ratio_of_sums__faithfulness_share_of_fully_verified_answers() -> None:
    outcomes = _outcomes(
        (make_case("a1"), make_record("a1", claims=[True, True, True, False])),
        (make_case("a2"), make_record("a2", claims=[True])),
        (make_case("a3"), make_record("a3", claims=[])),  # no claims: in neither metric
    )
    summary = summarise_answers(outcomes)
    assert summary.citation_validity == pytest.approx(4 / 5)  # not the mean of 3/4 and 1/1
    assert summary.faithfulness == pytest.approx(1 / 2)
    assert outcomes[0].citation_validity == pytest.approx(3 / 4)


def test_citation_metrics__none_when_verification_did_not_run() -> None:
    summary = summarise_answers(_outcomes((make_case("a1"), make_record("a1", claims=[]))))
    assert summary.citation_validity is None
    assert summary.faithfulness is None


def test_answer_metrics__nothing_answered__none() -> None:
    summary = summarise_answers(_outcomes((make_case("a1"), make_record("a1", status="abstained"))))
    assert summary.exact_match is None and summary.token_f1 is None and summary.n_graded == 0
