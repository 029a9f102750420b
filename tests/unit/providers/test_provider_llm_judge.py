"""The LLM judge: its rubric over the wire, the rules that need no call, and unusable grades."""

from __future__ import annotations

import dataclasses
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback import Step
from openai_server import FakeOpenAIServer
from provider_kit import openai_chat
from run_fakes import make_case, make_deps

from cairn_action.golden.models import GoldenCase, SupportQuote
from cairn_action.providers.llm_judge import RUBRIC, RUBRIC_VERSION, LLMJudge, parse_grade
from cairn_action.run.pipeline import run_case

CASE = GoldenCase(
    id="q1",
    question="How many days does a customer have to request a credit?",
    expected_answer="14 days",
    support=[SupportQuote(doc="policy.md", quote="A customer has 14 days")],
)
UNANSWERABLE = GoldenCase(id="q2", question="Who founded the depot?", answerable=False, tags=["unanswerable"])


@pytest.fixture
def judge() -> Iterator[tuple[LLMJudge, FakeOpenAIServer]]:
    with FakeOpenAIServer() as server:
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        yield llm, server
        llm.backend.close()


def test_llm_judge__right_answer__graded_correct_with_score_tokens_and_cost(judge) -> None:
    llm, server = judge
    result = llm.grade(CASE, "Customers have 14 days from delivery.")
    assert result.error is None
    assert (result.verdict.correct, result.verdict.score) == (True, 1.0)
    assert (result.verdict.name, result.verdict.rule_version) == ("llm", RUBRIC_VERSION)
    assert result.usage.input_tokens > 0 and result.cost_usd is not None and result.cost_usd > 0
    sent = server.requests[0].json["messages"]
    assert sent[0]["content"] == RUBRIC
    assert "Reference answer: 14 days" in sent[1]["content"]
    assert "Candidate answer: Customers have 14 days from delivery." in sent[1]["content"]


def test_llm_judge__wrong_answer__graded_incorrect(judge) -> None:
    llm, _ = judge
    verdict = llm.judge(CASE, "21 days")
    assert (verdict.correct, verdict.score) == (False, 0.0)


def test_llm_judge__unanswerable_or_no_answer__decided_without_a_call(judge) -> None:
    llm, server = judge
    assert llm.judge(UNANSWERABLE, "Ada Lovelace").correct is False
    assert llm.judge(CASE, None).correct is None
    assert server.requests == []


def test_llm_judge__unparsable_grade_every_time__error_with_raw_text_and_no_verdict(judge) -> None:
    llm, server = judge
    server.script(*[Step(content="Looks right to me!")] * 3)
    result = llm.grade(CASE, "14 days")
    assert result.error is not None and "unparsable grade" in result.error and "(3 attempts)" in result.error
    assert result.raw_output == "Looks right to me!"
    assert result.verdict.correct is None


def test_llm_judge__unparsable_grade_once__asked_again_and_graded(judge) -> None:
    llm, server = judge
    server.script(Step(content="Looks right to me!"))
    result = llm.grade(CASE, "14 days")
    assert result.error is None and result.verdict.correct is not None
    assert len(server.requests) == 2


def test_llm_judge__label__names_model_and_rubric(judge) -> None:
    llm, _ = judge
    assert llm.label == f"llm (openai gpt-4.1-mini, rubric {RUBRIC_VERSION})"


def test_llm_judge__request_key__changes_with_the_answer(judge) -> None:
    llm, _ = judge
    assert llm.request_key(CASE, "14 days") == llm.request_key(CASE, "14 days")
    assert llm.request_key(CASE, "14 days") != llm.request_key(CASE, "15 days")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 0.5, "correct": false, "rationale": "partly"}', (0.5, False, "partly")),
        ('{"score": "80%"}', (0.8, True, "")),  # correct omitted: a score of 0.5 or more counts
        ('Grade: ```{"score": 0.2, "correct": "false"}```', (0.2, False, "")),
    ],
)
def test_parse_grade__variants(reply: str, expected: tuple[float, bool, str]) -> None:
    score, correct, rationale = parse_grade(reply)
    assert (pytest.approx(score), correct, rationale) == expected


def test_parse_grade__score_out_of_range__rejected() -> None:
    with pytest.raises(ValueError, match="score"):
        parse_grade(json.dumps({"score": 7.5e3, "correct": True}))


def test_pipeline__llm_judge__graded_through_the_cache_and_recorded_as_a_judge_call(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        deps = dataclasses.replace(make_deps(tmp_path), judge=llm)
        first = run_case(make_case("q1"), deps)
        again = run_case(make_case("q1"), deps)
        llm.backend.close()

    assert len(server.requests) == 1  # the second grade came from Cairn's cache
    assert [c.role for c in first.calls] == ["answer", "judge"]
    assert (first.calls[1].cached, again.calls[1].cached) == (False, True)
    assert first.judge is not None and (first.judge.correct, first.judge.score) == (True, 1.0)
    judge_cost = first.calls[1].cost_usd
    assert judge_cost is not None and first.cost_usd == pytest.approx(0.001 + judge_cost)
    assert again.cost_usd == first.cost_usd  # a replayed call keeps what it cost when it was made
    assert first.usage.input_tokens == 100 + server.usages[0]["prompt_tokens"]


def test_pipeline__llm_judge_unreachable__case_error_that_keeps_the_answer(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    llm = LLMJudge(openai_chat(f"http://127.0.0.1:{port}/v1", max_retries=0))
    record = run_case(make_case("q1"), dataclasses.replace(make_deps(tmp_path), judge=llm))
    llm.backend.close()
    assert record.status == "error" and record.answer_text == "14 days"
    assert (record.error or "").startswith("judge: openai: ") and "connection failed" in (record.error or "")


def test_pipeline__llm_judge_same_answer_in_every_sample__each_sample_graded_afresh(tmp_path: Path) -> None:
    # The answer text is identical in all three samples; a judge cached by text alone would copy one grade
    # into all of them, so one unlucky grade would read as "wrong in 3 of 3".
    with FakeOpenAIServer() as server:
        server.script(
            Step(content='{"score": 1, "correct": true}'),
            Step(content='{"score": 0, "correct": false}'),
            Step(content='{"score": 1, "correct": true}'),
        )
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        deps = dataclasses.replace(make_deps(tmp_path), judge=llm)
        records = [run_case(make_case("q1"), deps, sample=s) for s in range(3)]
        again = [run_case(make_case("q1"), deps, sample=s) for s in range(3)]
        llm.backend.close()

    assert len(server.requests) == 3  # one grade per sample; the rerun replays each sample's own grade
    assert [r.judge.correct for r in records if r.judge] == [True, False, True]
    assert [r.judge.correct for r in again if r.judge] == [True, False, True]
    assert [r.calls[-1].cached for r in again] == [True, True, True]


def test_pipeline__lexical_judge__same_answer_judged_alike_in_every_sample(tmp_path: Path) -> None:
    deps = make_deps(tmp_path)
    records = [run_case(make_case("q1"), deps, sample=s) for s in range(3)]
    assert {r.answer_text for r in records} == {"14 days"}
    assert [r.judge.correct for r in records if r.judge] == [True, True, True]
    assert all(c.role != "judge" for r in records for c in r.calls)  # no model call to cache


def test_pipeline__llm_judge_in_a_baseline_run__each_sample_is_the_majority_of_up_to_three_draws(
    tmp_path: Path,
) -> None:
    # Sample 0: two draws agree (right, right): no third. Sample 1: they disagree (wrong, right), a third
    # draw decides (wrong). A baseline sample is what a lost case is measured against (run/graded.py).
    with FakeOpenAIServer() as server:
        server.script(
            Step(content='{"score": 1, "correct": true}'),
            Step(content='{"score": 1, "correct": true}'),
            Step(content='{"score": 0, "correct": false}'),
            Step(content='{"score": 1, "correct": true}'),
            Step(content='{"score": 0, "correct": false}'),
        )
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        deps = dataclasses.replace(make_deps(tmp_path), judge=llm, judge_draws=3)
        records = [run_case(make_case("q1"), deps, sample=s) for s in range(2)]
        again = [run_case(make_case("q1"), deps, sample=s) for s in range(2)]
        llm.backend.close()

    assert len(server.requests) == 5
    assert [r.judge.correct for r in records if r.judge] == [True, False]
    assert [sum(c.role == "judge" for c in r.calls) for r in records] == [2, 3]  # every draw on the record
    # A rerun replays every draw from the cache and reaches the same majorities.
    assert [r.judge.correct for r in again if r.judge] == [True, False]
    assert all(c.cached for r in again for c in r.calls if c.role == "judge")


def test_judge_answer__deterministic_judge_with_draws__grades_once(tmp_path: Path) -> None:
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.graded import judge_answer

    with FakeOpenAIServer() as server:
        server.script(
            Step(content='{"score": 0, "correct": false}'), Step(content='{"score": 1, "correct": true}')
        )
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        llm.deterministic = True  # type: ignore[misc]
        judged = judge_answer(
            llm, ResultCache(tmp_path), make_case("q1"), "14 days", lambda: 0.0, sample=1, draws=3
        )
        llm.backend.close()
    assert len(server.requests) == 1 and judged.verdict is not None and judged.verdict.correct is False


def test_judge_again__baseline_draws__each_record_judged_by_the_majority_of_its_draws(tmp_path: Path) -> None:
    # The Action's trusted judging (action/judging.py's judge_records passes JUDGE_DRAWS on every side).
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.sealed import judge_again

    case = make_case("q1")
    record = run_case(case, make_deps(tmp_path), sample=1)
    with FakeOpenAIServer() as server:
        server.script(
            Step(content='{"score": 0, "correct": false}'),
            Step(content='{"score": 1, "correct": true}'),
            Step(content='{"score": 1, "correct": true}'),
        )
        llm = LLMJudge(openai_chat(server.base_url, model="gpt-4.1-mini"))
        [judged] = judge_again(
            llm, [record], {case.id: case}, cache=ResultCache(tmp_path / "judge"), clock=lambda: 0.0, draws=3
        )
        llm.backend.close()
    assert len(server.requests) == 3 and judged.judge is not None and judged.judge.correct is True
    assert sum(c.role == "judge" for c in judged.calls) == 3


def test_draws_for__model_judge_draws_three__lexical_or_self_declared_deterministic_judge_one() -> None:
    from cairn_action.run.graded import JUDGE_DRAWS, draws_for
    from cairn_action.run.judge import LexicalJudge

    llm = LLMJudge(openai_chat("http://127.0.0.1:9/v1", max_retries=0))  # never called
    assert draws_for(llm) == JUDGE_DRAWS == 3
    assert draws_for(LexicalJudge()) == 1
    llm.deterministic = True  # type: ignore[attr-defined]
    assert draws_for(llm) == 1
    llm.backend.close()
