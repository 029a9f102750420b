"""Question typing, answer spans and the question's focus: the stub's reading of questions and sentences."""

from __future__ import annotations

import re

import pytest

from cairn_action.providers.answer_types import AnswerType, candidates, content_question, question_type
from cairn_action.providers.stub.question_focus import focus_phrase


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        (
            "Cream probes at 9°C: is it rejected, and which refusal code does the driver record?",
            AnswerType.NAME,
        ),
        ("Can I still pay by cheque, and if not, since when?", AnswerType.DATE),
        ("Is it chilled, or how long does it keep?", AnswerType.DURATION),
    ],
)
def test_question_type__yes_no_then_wh_question__the_wh_question_decides(
    question: str, kind: AnswerType
) -> None:
    assert question_type(question) is kind


def test_question_type__when_in_the_middle__still_yes_no() -> None:
    assert question_type("Do I pay a fee when I send back a recalled product?") is AnswerType.YES_NO


@pytest.mark.parametrize(
    "question",
    ["What size tub does the vegan mayonnaise come in?", "How heavy is the cheddar block?"],
)
def test_question_type__size_or_weight__measure(question: str) -> None:
    assert question_type(question) is AnswerType.MEASURE


@pytest.mark.parametrize(
    "question",
    [
        "What number do I call on a Sunday evening?",
        "What is the company's VAT registration number?",
        "What sort code should I use?",
    ],
)
def test_question_type__phone_or_registration_number__identifier(question: str) -> None:
    assert question_type(question) is AnswerType.IDENTIFIER


def test_question_type__what_is_the_surcharge__an_amount() -> None:
    assert question_type("What is the surcharge for paying by corporate card?") is AnswerType.AMOUNT


def test_content_question__drops_the_phrase_that_only_names_the_type() -> None:
    assert "year" not in content_question("In what year was the depot opened?")
    assert "when" not in content_question("Since when has the mayonnaise been egg-free?")
    assert "depot" in content_question("In what year was the depot opened?")


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        (
            "The cut-off is 13:00 on Wednesday 1 April rather than 16:30.",
            AnswerType.TIME,
            "13:00 on Wednesday 1 April",
        ),
        ("Orders must be in by 11:00 on Christmas Eve.", AnswerType.TIME, "11:00 on Christmas Eve"),
        ("The cut-off is 16:30 on the working day before.", AnswerType.TIME, "16:30"),
        ("The vegan tub holds 2.27 litre and costs £7.50.", AnswerType.MEASURE, "2.27 litre"),
        ("Packed 6 x 1 kg, chilled.", AnswerType.MEASURE, "6 x 1 kg"),
        ("At other times ring the duty officer on 07700 900296.", AnswerType.IDENTIFIER, "07700 900296"),
    ],
)
def test_candidates__time_with_its_day_measure_and_phone(
    sentence: str, kind: AnswerType, expected: str
) -> None:
    assert candidates(sentence, kind)[0].text == expected


@pytest.mark.parametrize(
    "sentence",
    ["The vegan tub holds 2.27 litre.", "Interest runs at 12.25% a year.", "Costs 10.50 per case."],
)
def test_candidates__dotted_quantity__not_a_time(sentence: str) -> None:
    assert candidates(sentence, AnswerType.TIME) == []


def test_candidates__dotted_24_hour_time__still_a_time() -> None:
    assert [s.text for s in candidates("Orders close at 16.30 daily.", AnswerType.TIME)] == ["16.30"]


def test_candidates__year__never_a_count() -> None:
    spans = candidates("In 2025 we arrived on time at 95 drops out of 100.", AnswerType.COUNT)
    assert [s.text for s in spans] == ["95", "100"]


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("How long do the Trade Portal's cookies last?", "Trade Portal's cookies"),
        ("How many calories are there per 100 g in the yoghurt?", "calories"),
        ("What restocking fee is charged on a change-of-mind return?", "restocking fee"),
        ("What is the hourly pay rate for delivery drivers?", "hourly pay rate"),
        ("What percentage of calls are answered within target?", "calls"),
        ("How many tonnes of surplus food were donated?", "surplus food"),
        ("How often is the coeliac-safe racking checked for contamination?", "coeliac-safe racking"),
        ("What volume discount applies?", "volume discount"),
        ("Which bank holiday Monday are the depots shut?", "bank holiday"),
    ],
)
def test_focus_phrase__the_noun_phrase_the_question_asks_about(question: str, focus: str) -> None:
    assert focus_phrase(question) == focus


@pytest.mark.parametrize(
    "question",
    [
        "Who decides what happens to stock that has gone out of temperature?",
        "How long do I have to report a shortfall?",
        "How many days do I have?",
    ],
)
def test_focus_phrase__people_pronouns_and_bare_type_words__no_focus(question: str) -> None:
    assert focus_phrase(question) == ""


def test_hinted_kinds__text_without_the_hint__their_patterns_never_match() -> None:
    """`candidates` skips a kind of `_HINTS` in a sentence without its hint: every match must hold it."""
    from cairn_action.providers import answer_types
    from cairn_action.sample.generate import render_corpus

    text = "\n".join(render_corpus(7).values()) + " within two WEEKS, -4 °C, 5 PER CENT at least midday"
    text += " on Monday, 12 March 2025 and March 2025, call 01632 960123 or +44 1632 960124, 2,500 kg "
    for kind in answer_types._HINTS:
        hint = answer_types._hint(kind)
        assert hint is not None and answer_types._pattern(kind).search(text), kind  # the text has some
        assert answer_types._pattern(kind).search(hint.sub("", text)) is None, kind
    for kind in set(answer_types._PATTERNS) - set(answer_types._HINTS):  # the names: no hint to need
        assert answer_types._pattern(kind).search(re.sub(r"\d", "", text)), kind


def test_starts__sample_corpus_and_edge_cases__same_matches_as_without_them() -> None:
    """The lookahead that lets a kind's pattern pass over a position (`_STARTS`) is implied by the pattern
    itself: with it and without it, the same matches."""
    from cairn_action.providers import answer_types
    from cairn_action.sample.generate import render_corpus

    text = "\n".join(render_corpus(7).values())
    text += " at least 3 days, AT MOST TWO WEEKS, within 12-month, Only one hour, every 2 working days"
    text += " no later than thirty minutes, fifteen calendar days, Eleven years, 4.5 hours, seven-day"
    text += " Up To £1,250.50 a month, about $3bn, €40 per case, OVER 12.5 per cent, under 5%, 7 percent"
    text += " 2,500 kg, no more than 3 x 4 litres, around -4 °C or colder, \u22122 °F, each 12 ml"
    text += " by 16:30, 4.30 pm to 5 p.m. on Monday 3 June, Midnight on Tuesday, noon, 09.15 on Jo Bloggs"
    text += " Wed 12 March 2025, Friday, 1st April, March 2025, September 4th, 2024, 31 december"
    text += " \u017fix weeks, fewer than ten, \u0663 days, 12\n  hours, ten-\nyear, Over\t7 days, 0 7"
    for kind, start in answer_types._STARTS.items():
        guarded = answer_types._pattern(kind)
        plain = re.compile(guarded.pattern.replace(start, "", 1), guarded.flags)
        assert plain.pattern != guarded.pattern, kind
        found = [m.span() for m in guarded.finditer(text)]
        assert len(found) > 5 and found == [m.span() for m in plain.finditer(text)], kind
