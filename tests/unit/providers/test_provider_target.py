"""The user's own system as the target: reading its replies, locating its passages, one case through it."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path
from typing import Any

import pytest
from provider_kit import http_client
from run_fakes import HOURS, POLICY, QUOTE, make_case, make_deps

from cairn_action.errors import ConfigError
from cairn_action.providers.base import AnswerRequest
from cairn_action.providers.target import (
    HttpTarget,
    PassageLocator,
    PythonTarget,
    load_python_target,
    to_target_answer,
)
from cairn_action.run.pipeline import run_case

DOCUMENTS = {"policy.md": POLICY, "hours.md": HOURS}


def _target(reply: Any) -> PythonTarget:
    target = PythonTarget(lambda question: reply, "python:tests:reply")
    target.locator = PassageLocator(DOCUMENTS)
    return target


def test_target_reply__full_schema__answer_passages_citations_usage_cost() -> None:
    answer = to_target_answer(
        {
            "answer": "14 days",
            "confidence": "90%",
            "passages": [{"id": "p1", "text": QUOTE, "doc": "policy.md", "score": 3}],
            "citations": [{"id": "p1", "quote": "14 days"}],
            "usage": {"input_tokens": 50, "output_tokens": 4},
            "cost_usd": 0.002,
        },
        PassageLocator(DOCUMENTS),
        raw="{}",
    )
    assert (answer.answer_text, answer.confidence, answer.confidence_source) == (
        "14 days",
        0.9,
        "target-reported",
    )
    assert [(c.chunk_id, c.quote) for c in answer.citations] == [("p1", "14 days")]
    passage = answer.passages[0]
    start = POLICY.index(QUOTE)
    assert (passage.located_doc, passage.start, passage.end) == ("policy.md", start, start + len(QUOTE))
    assert (answer.usage.input_tokens, answer.cost_usd) == (50, 0.002)


def test_target_reply__bare_strings_and_no_citations__every_passage_cited() -> None:
    answer = to_target_answer({"answer": "14 days", "passages": ["first text", "second text"]}, None, raw="")
    assert [p.id for p in answer.passages] == ["passage-1", "passage-2"]
    assert [c.chunk_id for c in answer.citations] == ["passage-1", "passage-2"]
    assert answer.cost_usd is None  # not reported: unknown, not free


@pytest.mark.parametrize(
    "reply", [None, {"answer": None}, {"answer": "  "}, {"answer": "x", "abstained": True}]
)
def test_target_reply__no_answer__abstained(reply: Any) -> None:
    assert to_target_answer(reply, None, raw="").abstained


def test_target_reply__does_not_fit__error_naming_the_field_with_the_raw_reply() -> None:
    answer = to_target_answer({"answer": "x", "passages": 7}, None, raw='{"passages": 7}')
    assert answer.error is not None and answer.error.startswith(
        "target reply does not fit cairn-target-1: passages"
    )
    assert answer.raw_output == '{"passages": 7}'


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ({"answr": "14 days"}, "unknown key 'answr' (did you mean 'answer'?)"),
        ({"answer": "x", "confidance": 0.9}, "unknown key 'confidance' (did you mean 'confidence'?)"),
        ({"answer": "x", "passages": [{"txt": "a"}]}, "unknown key 'passages.0.txt' (did you mean 'text'?)"),
        ({"answer": "x", "citations": [{"id": 1, "qoute": "a"}]}, "unknown key 'citations.0.qoute'"),
        ({"answer": "x", "usage": {"input_token": 3}}, "(did you mean 'input_tokens'?)"),
        ({"text": "14 days"}, 'no \'answer\' (send "answer": null, or "abstained": true, to abstain)'),
        (["14 days"], "the reply is a list, not an object with 'answer'"),
    ],
)
def test_target_reply__outside_the_schema__an_error_naming_the_key_never_an_abstention(
    reply: Any, problem: str
) -> None:
    answer = to_target_answer(reply, None, raw="raw")
    assert not answer.abstained and answer.answer_text is None
    assert answer.error is not None and answer.error.startswith("target reply does not fit cairn-target-1: ")
    assert problem in answer.error


def test_passage_locator__whitespace_differences__still_found_hint_preferred() -> None:
    locator = PassageLocator(
        {"a.md": "x\n\nThe depot  opens\nat 06:00.", "b.md": "The depot opens at 06:00."}
    )
    assert locator.locate("The depot opens at 06:00.") == ("b.md", 0, 25)
    assert locator.locate("The depot opens at 06:00.", "a.md") == ("a.md", 3, 29)
    assert locator.locate("Not in the corpus") is None


def test_python_target__function_raises__error_result_with_traceback_kept() -> None:
    def broken(question: str) -> str:
        raise ValueError("index not loaded")

    result = PythonTarget(broken, "python:x:broken").ask(AnswerRequest(case_id="q", question="?", hits=()))
    assert result.error == "target raised ValueError: index not loaded"
    assert result.raw_output is not None and "broken" in result.raw_output


def test_python_target__returns_a_dataclass__read_like_the_dict() -> None:
    @dataclasses.dataclass
    class Reply:
        answer: str
        passages: list[str]
        confidence: float

    result = _target(Reply("14 days", [QUOTE], 0.7)).ask(AnswerRequest(case_id="q", question="?", hits=()))
    assert (result.answer_text, result.confidence, result.passages[0].located_doc) == (
        "14 days",
        0.7,
        "policy.md",
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("python:json", "does not name a module and a function"),
        ("python:json:no_such_function", "has no function 'no_such_function'"),
        ("python:cairn_no_such_pkg.rag:answer", "cannot import 'cairn_no_such_pkg.rag'"),
    ],
)
def test_load_python_target__bad_spec__config_error(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_python_target(spec)


def _run(tmp_path: Path, reply: dict[str, Any]):
    deps = dataclasses.replace(make_deps(tmp_path), answerer=_target(reply))
    return run_case(make_case("q1"), deps)


def test_target_case__passages_in_the_corpus__retrieval_measured_on_them(tmp_path: Path) -> None:
    record = _run(tmp_path, {"answer": "14 days", "passages": [HOURS, POLICY]})
    assert record.status == "answered" and record.judge is not None and record.judge.correct
    assert [(r.chunk_id, r.doc, r.rank) for r in record.retrieved] == [
        ("passage-1", "hours.md", 1),
        ("passage-2", "policy.md", 2),
    ]
    assert (record.retrieved_support_rank, record.first_overlap_rank) == (2, 2)
    assert record.support_located and record.claims and record.claims[0].verified
    assert [c.provider for c in record.calls] == ["target"] and not record.calls[0].cached


def test_target_case__quote_split_across_two_passages__complete_only_with_both(tmp_path: Path) -> None:
    start = POLICY.index(QUOTE)
    cut = start + 20
    reply = {"answer": "14 days", "passages": [POLICY[start:cut], HOURS, POLICY[cut : start + len(QUOTE)]]}
    record = _run(tmp_path, reply)
    assert (record.retrieved_support_rank, record.first_overlap_rank) == (3, 1)


def test_target_case__passage_reworded_but_holding_the_quote__still_covers_it(tmp_path: Path) -> None:
    record = _run(tmp_path, {"answer": "14 days", "passages": [f"**Returns** - {QUOTE.upper()}!"]})
    assert record.retrieved[0].doc == ""  # not found verbatim in the corpus ...
    assert record.retrieved_support_rank == 1  # ... but it holds the quote's words


def test_target_case__support_never_returned__rank_none_and_duplicates_dropped(tmp_path: Path) -> None:
    passages = [{"id": "h", "text": HOURS}, {"id": "h", "text": HOURS}]
    record = _run(tmp_path, {"answer": "14 days", "passages": passages})
    assert [r.chunk_id for r in record.retrieved] == ["h"]
    assert record.retrieved_support_rank is None and record.support_located
    assert record.claims and not record.claims[0].verified  # the cited passage does not say 14 days


def test_target_case__service_unreachable__error_record_not_an_exception(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with http_client("target", max_retries=1) as http:
        target = HttpTarget(f"http://127.0.0.1:{port}/answer", http)
        record = run_case(make_case("q1"), dataclasses.replace(make_deps(tmp_path), answerer=target))
    assert record.status == "error" and "connection failed" in (record.error or "")
    assert record.support_located


def test_target_reply__used__names_the_answerers_passages_by_id() -> None:
    reply = {"answer": "14 days", "passages": [{"id": "a", "text": "x"}, {"id": 7, "text": "y"}], "used": [7]}
    assert to_target_answer(reply, None, raw="").used == ["7"]
    assert to_target_answer({"answer": "14 days", "passages": ["x"]}, None, raw="").used is None


def test_target_reply__used_names_a_passage_not_returned__error_naming_it() -> None:
    reply = {"answer": "14 days", "passages": [{"id": "a", "text": "x"}], "used": ["a", "zz"]}
    answer = to_target_answer(reply, None, raw="{}")
    assert answer.error is not None and "used: names passages it did not return: zz" in answer.error
