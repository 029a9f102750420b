"""The answer contract: the prompt's shape and the robust reading of replies."""

from __future__ import annotations

import math

import pytest
from provider_kit import request

from cairn_action.providers.chat import TokenLogprob
from cairn_action.providers.llm_answerer import answer_logprob_confidence
from cairn_action.providers.prompt import (
    INSTRUCTIONS,
    AnswerParseError,
    build_answer_prompt,
    parse_answer,
    parse_probability,
)


def test_answer_prompt__stable_part_first__instructions_then_context_then_question() -> None:
    first = build_answer_prompt(request().question, request().hits)
    other = build_answer_prompt("When does the depot open?", request().hits[::-1])
    assert first.system == other.system == INSTRUCTIONS
    assert first.prefix_hash == other.prefix_hash
    user = first.user
    assert user.index('id="policy.md#0-94"') < user.index('id="hours.md#0-77"') < user.index("Question:")
    assert 'section="Returns"' in user


def test_answer_prompt__no_hits__says_so_instead_of_an_empty_context() -> None:
    assert "none were retrieved" in build_answer_prompt("Why?", ()).user


def test_parse_answer__plain_json__answer_citations_confidence() -> None:
    parsed = parse_answer(
        '{"answer": "14 days", "citations": [{"chunk_id": "a#1-2", "quote": "14 days"}], "confidence": 0.9,'
        ' "abstain": false}'
    )
    assert (parsed.answer_text, parsed.abstained, parsed.confidence) == ("14 days", False, 0.9)
    assert [(c.chunk_id, c.quote) for c in parsed.citations] == [("a#1-2", "14 days")]


def test_parse_answer__fenced_json_inside_prose__found() -> None:
    reply = '{"answer": "06:00", "citations": ["hours.md#0-77"], "confidence": "85%"}'
    text = f"Sure! Here it is:\n```json\n{reply}\n```"
    parsed = parse_answer(text)
    assert parsed.answer_text == "06:00" and parsed.confidence == pytest.approx(0.85)
    assert [c.chunk_id for c in parsed.citations] == ["hours.md#0-77"]


def test_parse_answer__explicit_abstention__no_answer_no_citations() -> None:
    parsed = parse_answer(
        '{"answer": null, "citations": [], "confidence": 0, "abstain": true, "reason": "absent"}'
    )
    assert parsed.abstained and parsed.answer_text is None and parsed.citations == ()


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("The answer is 14 days.", "no JSON object"),
        ('{"result": "14 days"}', "neither 'answer' nor 'abstain'"),
        ('{"answer": "", "abstain": false}', "empty"),
        ('{"answer": null, "abstain": false}', "no answer"),
        ('{"answer": ["14", "days"]}', "not text"),
        ('{"answer": "14 days", "citations": [', "no JSON object"),
    ],
)
def test_parse_answer__malformed__raises_with_the_reason(text: str, why: str) -> None:
    with pytest.raises(AnswerParseError, match=why):
        parse_answer(text)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0.7, 0.7), ("0.7", 0.7), ("70%", 0.7), (70, 0.7), (1, 1.0), (-0.1, None), (250, None), ("high", None)],
)
def test_parse_probability__numbers_strings_and_percentages(value: object, expected: float | None) -> None:
    result = parse_probability(value)
    assert result == (pytest.approx(expected) if expected is not None else None)


def test_logprob_confidence__geometric_mean_of_the_answer_tokens_only() -> None:
    text = '{"answer": "14 days", "confidence": 0.9}'
    pieces = ['{"answer": "', "14", " days", '", "confidence": 0.9}']
    logprobs = [-5.0, -0.2, -0.4, -3.0]  # only the two answer tokens count
    tokens = [TokenLogprob(p, lp) for p, lp in zip(pieces, logprobs, strict=True)]
    assert answer_logprob_confidence(text, "14 days", tokens) == pytest.approx(math.exp(-0.3))


def test_logprob_confidence__answer_not_in_the_tokens__none() -> None:
    tokens = [TokenLogprob("{}", -0.1)]
    assert answer_logprob_confidence("{}", "14 days", tokens) is None
