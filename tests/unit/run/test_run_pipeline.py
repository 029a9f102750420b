"""One case through the pipeline, with a fake retriever and a counting answerer."""

from __future__ import annotations

from pathlib import Path

import pytest
from run_fakes import CountingAnswerer, FakeClock, make_case, make_deps

from cairn_action.errors import InfrastructureError
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.run.pipeline import run_case


def test_run_case__answered__records_retrieval_answer_judge_and_claims(tmp_path: Path) -> None:
    deps = make_deps(tmp_path)
    record = run_case(make_case("q1"), deps)
    assert record.status == "answered"
    assert record.answer_text == "14 days"
    assert [(r.chunk_id, r.rank) for r in record.retrieved] == [
        ("policy.md#40-94", 1),
        ("policy.md#0-60", 2),
        ("hours.md#0-60", 3),
        ("hours.md#40-77", 4),
    ]
    # The quote [13, 69) needs both policy chunks: complete at rank 2, first touched at rank 1.
    assert record.support_chunk_ids == ["policy.md#0-60", "policy.md#40-94"]
    assert record.support_located is True
    assert (record.retrieved_support_rank, record.first_overlap_rank) == (2, 1)
    assert record.judge is not None and record.judge.correct is True
    assert [c.verified for c in record.claims] == [True]
    assert record.confidence == 0.9
    assert record.usage.input_tokens == 100 and record.cost_usd == 0.001
    assert record.prompt_prefix_hash == "prefix-1"
    assert len(record.calls) == 1 and not record.calls[0].cached
    assert record.error is None


def test_run_case__answerer_sees_only_top_k(tmp_path: Path) -> None:
    seen: list[int] = []

    def behaviour(request: AnswerRequest) -> AnswerResult:
        seen.append(len(request.hits))
        return AnswerResult(abstained=True)

    run_case(make_case("q1"), make_deps(tmp_path, CountingAnswerer(behaviour)))
    assert seen == [2]


def test_run_case__second_time__served_from_cache_same_record(tmp_path: Path) -> None:
    answerer = CountingAnswerer()
    first = run_case(make_case("q1"), make_deps(tmp_path, answerer))
    second = run_case(make_case("q1"), make_deps(tmp_path, answerer))
    assert answerer.calls == ["q1"]
    assert second.calls[0].cached is True
    ignore = {"latency_ms": True, "calls": {0: {"cached", "latency_ms"}}}
    assert second.model_dump(exclude=ignore) == first.model_dump(exclude=ignore)


def test_run_case__cached__latency_counts_the_original_call(tmp_path: Path) -> None:
    slow = FakeClock(step=0.5)  # every clock reading 500 ms apart
    first = run_case(make_case("q1"), make_deps(tmp_path, clock=slow))
    fast = FakeClock(step=0.0001)
    second = run_case(make_case("q1"), make_deps(tmp_path, clock=fast))
    assert second.calls[0].latency_ms == first.calls[0].latency_ms == pytest.approx(500.0)
    assert second.latency_ms == pytest.approx(500.0, abs=1.0)


def test_run_case__model_abstains__abstained_and_unjudged(tmp_path: Path) -> None:
    answerer = CountingAnswerer(lambda r: AnswerResult(abstained=True, confidence=0.1))
    record = run_case(make_case("q1"), make_deps(tmp_path, answerer))
    assert record.status == "abstained" and record.model_abstained
    assert record.judge is None and record.claims == []
    assert record.confidence == 0.1
    assert record.retrieved_support_rank == 2  # retrieval is observed even when the answer is withheld


def test_run_case__provider_unreachable__error_record_and_no_raise(tmp_path: Path) -> None:
    def down(request: AnswerRequest) -> AnswerResult:
        raise InfrastructureError("provider fake: 503 after 4 retries")

    record = run_case(make_case("q1"), make_deps(tmp_path, CountingAnswerer(down)))
    assert record.status == "error"
    assert record.error == "provider fake: 503 after 4 retries"
    assert record.retrieved  # what was observed before the failure is kept


def test_run_case__unparsable_output__error_with_raw_output_not_cached(tmp_path: Path) -> None:
    answerer = CountingAnswerer(lambda r: AnswerResult(error="no JSON object in the output", raw_output="hm"))
    record = run_case(make_case("q1"), make_deps(tmp_path, answerer))
    assert record.status == "error" and record.error == "no JSON object in the output"
    assert record.raw_output == "hm"
    run_case(make_case("q1"), make_deps(tmp_path, answerer))
    assert answerer.calls == ["q1", "q1"]  # asked again: an unusable output is not kept


def test_run_case__bug_in_answerer__propagates(tmp_path: Path) -> None:
    def broken(request: AnswerRequest) -> AnswerResult:
        raise KeyError("a bug, not a provider failure")

    with pytest.raises(KeyError):
        run_case(make_case("q1"), make_deps(tmp_path, CountingAnswerer(broken)))


def test_run_case__stale_case__recorded_stale_without_asking(tmp_path: Path) -> None:
    answerer = CountingAnswerer()
    deps = make_deps(tmp_path, answerer, stale=frozenset({"q1"}))
    record = run_case(make_case("q1"), deps)
    assert record.status == "stale" and record.error
    assert answerer.calls == []
    assert record.retrieved == []


def test_run_case__unanswerable__no_support_and_judged_wrong_when_answered(tmp_path: Path) -> None:
    case = make_case("u1", answerable=False)
    record = run_case(case, make_deps(tmp_path, cases=(case,)))
    assert record.support_chunk_ids == [] and record.support_located is False
    assert record.retrieved_support_rank is None
    assert record.judge is not None and record.judge.correct is False
    assert record.golden_line == 1
