"""The lexical judge, rule lexical-2: containment, token F1 with a guard on numbers, months and Roman
numerals, unanswerable answered."""

from __future__ import annotations

import pytest

from cairn_action.golden.models import GoldenCase, SupportQuote
from cairn_action.run.judge import LexicalJudge, contains_tokens, distinguishing

QUOTE = [SupportQuote(doc="returns.md", quote="A customer has 14 days from delivery to request a credit")]


def case(
    expected: str | None = "14 days", *, answerable: bool = True, tags: list[str] | None = None
) -> GoldenCase:
    if not answerable:
        return GoldenCase(
            id="u1", question="Who is the CEO?", answerable=False, tags=tags or ["unanswerable"]
        )
    return GoldenCase(id="a1", question="How long?", expected_answer=expected, support=QUOTE, tags=tags or [])


def test_judge__records_name_and_rule_version() -> None:
    verdict = LexicalJudge().judge(case(), "14 days")
    assert (verdict.name, verdict.rule_version) == ("lexical", "lexical-2")
    assert verdict.score is None


def test_judge__no_answer__not_judged() -> None:
    assert LexicalJudge().judge(case(), None).correct is None
    assert LexicalJudge().judge(case(answerable=False), None).correct is None


@pytest.mark.parametrize("tags", [["unanswerable"], ["unanswerable", "false_premise"]])
def test_judge__unanswerable_answered__wrong_by_definition(tags: list[str]) -> None:
    verdict = LexicalJudge().judge(case(answerable=False, tags=tags), "14 days")
    assert verdict.correct is False
    assert ("false premise" in verdict.rationale) == ("false_premise" in tags)


@pytest.mark.parametrize(
    "answer",
    ["14 days", "The 14 DAYS.", "within 14 days of delivery", "You have 14 days, not 21 days."],
)
def test_judge__expected_contained_after_squad_normalisation__correct(answer: str) -> None:
    assert LexicalJudge().judge(case(), answer).correct is True


def test_judge__containment_is_by_whole_tokens() -> None:
    assert LexicalJudge().judge(case("14"), "140 days").correct is False


def test_judge__f1_at_threshold__correct_below__wrong() -> None:
    gold = case("Greta Oyelaran, Credit Controller")
    assert LexicalJudge(0.5).judge(gold, "Greta Oyelaran").correct is True  # F1 = 4/6
    assert LexicalJudge(0.7).judge(gold, "Greta Oyelaran").correct is False
    assert LexicalJudge(0.5).judge(gold, "the credit team").correct is False  # F1 = 2/6


def test_judge__wrong_number__wrong_even_with_high_f1() -> None:
    verdict = LexicalJudge(0.5).judge(case("14 working days"), "21 working days")
    assert verdict.correct is False
    assert "14" in verdict.rationale


def test_judge__numbers_normalised_like_squad() -> None:
    assert LexicalJudge().judge(case("£1,000"), "£1000").correct is True
    assert LexicalJudge().judge(case("1,000"), "1000").correct is True


def test_judge__answerable_without_expected_answer__not_judged() -> None:
    bare = GoldenCase(id="a2", question="?", expected_answer=None, support=QUOTE)
    assert LexicalJudge().judge(bare, "anything").correct is None


def test_judge__threshold_out_of_range__rejected() -> None:
    with pytest.raises(ValueError):
        LexicalJudge(1.5)


def test_contains_tokens__contiguous_only() -> None:
    assert contains_tokens(["a", "b", "c"], ["b", "c"])
    assert not contains_tokens(["a", "b", "c"], ["a", "c"])
    assert contains_tokens([], [])
    assert not contains_tokens(["a"], [])


@pytest.mark.parametrize(
    ("expected", "answer", "correct"),
    [
        ("King Charles III", "King Charles", False),  # token F1 0.8, the regnal number missing
        ("King Charles III", "It was King Charles III.", True),
        ("8 February 2026", "8 March 2026", False),  # F1 0.67: the month distinguishes
        ("8 February 2026", "8 february 2026, a Sunday", True),
        ("World War I", "World War II", False),
        ("You may return it", "you can return it", True),  # "may" the verb is no month
    ],
)
def test_judge__distinguishing_token_missing__wrong_despite_token_f1(
    expected: str, answer: str, correct: bool
) -> None:
    assert LexicalJudge().judge(case(expected), answer).correct is correct


def test_distinguishing__numbers_months_and_capital_roman_numerals_only() -> None:
    assert distinguishing("King Charles III") == ["iii"]
    assert distinguishing("Monday 31 August 2026") == ["31", "august", "2026"]
    assert distinguishing("I think it is civil") == []  # a lone I opens the sentence; "civil" is a word
    assert distinguishing("World War I") == ["i"]
