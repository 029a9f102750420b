"""The OpenAI-compatible provider against a loopback server speaking chat completions."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest
from loopback import Step
from openai_server import FakeOpenAIServer
from provider_kit import Waits, openai_chat, request

from cairn_action.errors import InfrastructureError
from cairn_action.providers.budget import BudgetExhausted, BudgetGuard
from cairn_action.providers.http import RequestRejected
from cairn_action.providers.llm_answerer import SOURCE_LOGPROB, SOURCE_MODEL, LLMAnswerer
from cairn_action.providers.prompt import INSTRUCTIONS

KEY = "sk-test-0123456789abcdef"
ANSWER = json.dumps(
    {
        "answer": "14 days",
        "citations": [{"chunk_id": "policy.md#0-94", "quote": "A customer has 14 days from delivery"}],
        "confidence": 0.9,
        "abstain": False,
    }
)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=KEY) as fake:
        yield fake


def _answerer(server: FakeOpenAIServer, waits: Waits | None = None, **kw: object) -> LLMAnswerer:
    return LLMAnswerer(openai_chat(server.base_url, api_key=KEY, waits=waits, **kw))  # type: ignore[arg-type]


def test_openai_provider__answer__sends_contract_and_reads_answer_citations_and_logprob_confidence(
    server: FakeOpenAIServer,
) -> None:
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is None
    assert result.answer_text is not None and "14 days" in result.answer_text
    assert [c.chunk_id for c in result.citations] == ["policy.md#0-94"]
    # The fake gives every token a log-probability of -0.1: the answer's geometric mean is exp(-0.1).
    assert result.confidence_source == SOURCE_LOGPROB
    assert result.confidence == pytest.approx(0.904837, abs=1e-6)
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    messages = sent.json["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == INSTRUCTIONS  # the stable part first
    user = messages[1]["content"]
    assert user.index('<passage id="policy.md#0-94"') < user.index("Question: How many days")
    assert sent.json["logprobs"] is True and sent.json["temperature"] == 0.0


def test_openai_provider__usage_with_cached_tokens__cost_matches_hand_computation(
    server: FakeOpenAIServer,
) -> None:
    usage = {
        "prompt_tokens": 2000,
        "completion_tokens": 100,
        "prompt_tokens_details": {"cached_tokens": 1536},
    }
    server.script(Step(content=ANSWER, usage=usage))
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()

    assert (result.usage.input_tokens, result.usage.cached_input_tokens, result.usage.output_tokens) == (
        464,
        1536,
        100,
    )
    # gpt-4o-mini: $0.15 input, $0.075 cached input, $0.60 output per million tokens.
    assert result.cost_usd == pytest.approx((464 * 0.15 + 1536 * 0.075 + 100 * 0.60) / 1e6)
    assert result.cost_usd == pytest.approx(0.0002448)


def test_openai_provider__second_call__reports_the_system_prefix_as_cached(server: FakeOpenAIServer) -> None:
    answerer = _answerer(server)
    first = answerer.answer(request())
    second = answerer.answer(request("When does the depot open on weekdays?"))
    answerer.backend.close()

    assert first.usage.cached_input_tokens == 0
    assert second.usage.cached_input_tokens == server.usages[1]["prompt_tokens_details"]["cached_tokens"] > 0
    assert first.prompt_prefix_hash == second.prompt_prefix_hash is not None


def test_openai_provider__429_with_retry_after__waits_and_succeeds(server: FakeOpenAIServer) -> None:
    waits = Waits()
    server.script(Step(status=429, headers={"Retry-After": "2"}))
    answerer = _answerer(server, waits)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is None and result.answer_text is not None
    assert len(server.requests) == 2
    assert len(waits.seconds) == 1 and 2.0 <= waits.seconds[0] <= 2.2  # Retry-After, plus a little jitter


def test_openai_provider__retry_after_ms__preferred_over_backoff(server: FakeOpenAIServer) -> None:
    waits = Waits()
    server.script(Step(status=429, headers={"retry-after-ms": "1500"}))
    answerer = _answerer(server, waits)
    answerer.answer(request())
    answerer.backend.close()
    assert 1.5 <= waits.seconds[0] <= 1.65


def test_openai_provider__500_then_success__retries_with_exponential_backoff(
    server: FakeOpenAIServer,
) -> None:
    waits = Waits()
    server.script(Step(status=500), Step(status=502), Step(status=503))
    answerer = _answerer(server, waits, max_retries=3)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.answer_text is not None
    assert len(server.requests) == 4
    # base 0.2 s doubling: each wait in [ceiling / 2, ceiling] for ceilings 0.2, 0.4, 0.8.
    for wait, ceiling in zip(waits.seconds, (0.2, 0.4, 0.8), strict=True):
        assert ceiling / 2 <= wait <= ceiling


def test_openai_provider__persistent_500__gives_up_after_max_retries_with_one_line_error(
    server: FakeOpenAIServer,
) -> None:
    server.script(*[Step(status=500)] * 10)
    answerer = _answerer(server, Waits(), max_retries=2)
    with pytest.raises(InfrastructureError) as caught:
        answerer.answer(request())
    answerer.backend.close()

    assert len(server.requests) == 3  # bounded: one try and two retries
    message = caught.value.message
    assert "after 3 attempts" in message and "HTTP 500" in message and "\n" not in message


def test_openai_provider__slow_response__times_out_then_retries(server: FakeOpenAIServer) -> None:
    server.script(Step(delay_s=1.5))
    answerer = _answerer(server, Waits(), timeout_s=0.3)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.answer_text is not None
    assert len(server.requests) == 2


def test_openai_provider__every_attempt_times_out__error_says_so(server: FakeOpenAIServer) -> None:
    server.script(Step(delay_s=1.0), Step(delay_s=1.0))
    answerer = _answerer(server, Waits(), timeout_s=0.2, max_retries=1)
    with pytest.raises(InfrastructureError, match=r"after 2 attempts: no response within 0.2s"):
        answerer.answer(request())
    answerer.backend.close()


def test_openai_provider__garbage_body_once__asked_again_and_recovered_with_both_calls_counted(
    server: FakeOpenAIServer,
) -> None:
    server.script(Step(body="<html>502 Bad Gateway</html>"))
    heard: list[bool] = []
    answerer = LLMAnswerer(openai_chat(server.base_url, api_key=KEY), on_unusable=heard.append)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is None and result.answer_text
    assert len(server.requests) == 2 and heard == [True]


def test_openai_provider__garbage_body_every_time__case_error_with_raw_text_after_bounded_attempts(
    server: FakeOpenAIServer,
) -> None:
    server.script(*[Step(body="<html>502 Bad Gateway</html>")] * 5)
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is not None and "unusable reply" in result.error and "(3 attempts)" in result.error
    assert result.raw_output == "<html>502 Bad Gateway</html>"
    assert len(server.requests) == 3


def test_openai_provider__garbage_content__unparsable_answer_kept_with_the_cost_of_every_attempt(
    server: FakeOpenAIServer,
) -> None:
    prose = "I believe it is fourteen days, but check the policy."
    server.script(*[Step(content=prose)] * 3)
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is not None and "unparsable answer: no JSON object" in result.error
    assert result.raw_output == prose
    assert len(server.requests) == 3
    one_call = server.usages[0]["completion_tokens"]
    assert result.usage.output_tokens == 3 * one_call and result.cost_usd is not None and result.cost_usd > 0


def test_openai_provider__bad_key__fails_fast_and_later_calls_make_no_request(
    server: FakeOpenAIServer,
) -> None:
    wrong = "sk-wrong-key-ffffffffffff"
    answerer = LLMAnswerer(openai_chat(server.base_url, api_key=wrong))
    with pytest.raises(RequestRejected) as first:
        answerer.answer(request())
    with pytest.raises(RequestRejected):
        answerer.answer(request())
    answerer.backend.close()

    assert first.value.status == 401
    assert len(server.requests) == 1  # the second call learned nothing new by asking
    assert wrong not in first.value.message and wrong not in first.value.hint


def test_openai_provider__server_refuses_logprobs__adapts_once_and_uses_model_confidence() -> None:
    with FakeOpenAIServer(rejects=("logprobs",)) as server:
        answerer = LLMAnswerer(openai_chat(server.base_url))
        first = answerer.answer(request())
        second = answerer.answer(request("When does the depot open on weekdays?"))
        answerer.backend.close()

    assert first.error is None and second.error is None
    assert first.confidence_source == SOURCE_MODEL
    assert [("logprobs" in r.json) for r in server.requests] == [True, False, False]


def test_openai_provider__newer_model_wants_max_completion_tokens__adapts() -> None:
    with FakeOpenAIServer(rejects=("max_tokens",)) as server:
        answerer = LLMAnswerer(openai_chat(server.base_url))
        result = answerer.answer(request())
        answerer.backend.close()
    assert result.error is None
    assert server.requests[-1].json["max_completion_tokens"] == 512


def test_openai_provider__connection_refused__retried_then_infrastructure_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    answerer = LLMAnswerer(openai_chat(f"http://127.0.0.1:{port}/v1", waits=Waits(), max_retries=2))
    with pytest.raises(InfrastructureError, match="after 3 attempts: connection failed"):
        answerer.answer(request())
    answerer.backend.close()


def test_openai_provider__unknown_model__cost_is_unknown_not_zero(server: FakeOpenAIServer) -> None:
    answerer = _answerer(server, model="llama3.1:8b")
    result = answerer.answer(request())
    answerer.backend.close()
    assert result.usage.input_tokens > 0
    assert result.cost_usd is None


def test_openai_provider__budget_reached__next_call_not_made(server: FakeOpenAIServer) -> None:
    budget = BudgetGuard(max_cost_usd=1e-9)
    answerer = _answerer(server, budget=budget)
    answerer.answer(request())
    with pytest.raises(BudgetExhausted, match="budget reached"):
        answerer.answer(request("When does the depot open on weekdays?"))
    answerer.backend.close()
    assert len(server.requests) == 1
    assert budget.refused == 1 and budget.spent_usd > 0


def test_openai_provider__request_key__holds_no_key_and_follows_the_prompt(server: FakeOpenAIServer) -> None:
    a = _answerer(server)
    b = LLMAnswerer(openai_chat(server.base_url, api_key="sk-another-key-000000"))
    assert a.request_key(request()) == b.request_key(request())
    assert a.request_key(request()) != a.request_key(request("When does the depot open on weekdays?"))
    a.backend.close()
    b.backend.close()


def test_openai_provider__concurrent_calls_with_429s__every_call_answered_once(
    server: FakeOpenAIServer,
) -> None:
    server.script(*[Step(status=429, headers={"Retry-After": "0"})] * 6)
    answerer = _answerer(
        server, Waits(), max_retries=6
    )  # even one unlucky thread meeting all six gets through
    results: list[str | None] = []
    lock = threading.Lock()

    def work(i: int) -> None:
        result = answerer.answer(request(f"How many days does customer {i} have to request a credit?"))
        with lock:
            results.append(result.answer_text)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    answerer.backend.close()

    assert len(results) == 24 and all(results)
    assert len(server.requests) == 24 + 6  # each 429 cost exactly one extra request
    questions = [r.json["messages"][1]["content"].rsplit("Question: ", 1)[1] for r in server.requests]
    assert len(set(questions)) == 24
