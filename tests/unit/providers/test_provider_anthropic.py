"""The Anthropic Messages provider against a loopback server speaking the Messages API."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from anthropic_server import FakeAnthropicServer
from loopback import Step
from provider_kit import Waits, anthropic_chat, request

from cairn_action.errors import InfrastructureError
from cairn_action.providers.anthropic import messages_url
from cairn_action.providers.llm_answerer import SOURCE_MODEL, LLMAnswerer
from cairn_action.providers.prompt import INSTRUCTIONS
from cairn_action.providers.services import ProviderServices

KEY = "sk-ant-test-0123456789"
ANSWER = json.dumps(
    {
        "answer": "14 days",
        "citations": [{"chunk_id": "policy.md#0-94", "quote": "14 days"}],
        "confidence": 0.8,
    }
)


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(api_key=KEY) as fake:
        yield fake


def _answerer(server: FakeAnthropicServer, waits: Waits | None = None, **kw: object) -> LLMAnswerer:
    return LLMAnswerer(anthropic_chat(server.url, api_key=KEY, waits=waits, **kw))  # type: ignore[arg-type]


def test_anthropic_provider__answer__sends_headers_and_marks_the_stable_prefix_for_caching(
    server: FakeAnthropicServer,
) -> None:
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()

    assert result.error is None and result.answer_text is not None
    assert result.confidence_source == SOURCE_MODEL  # Messages has no log-probabilities
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == KEY and sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.json["system"] == [
        {"type": "text", "text": INSTRUCTIONS, "cache_control": {"type": "ephemeral"}}
    ]
    assert sent.json["messages"][0]["role"] == "user"
    assert sent.json["max_tokens"] == 512


def test_anthropic_provider__cache_write_then_read__tokens_and_costs_match_hand_computation(
    server: FakeAnthropicServer,
) -> None:
    server.script(
        Step(
            content=ANSWER,
            usage={
                "input_tokens": 300,
                "cache_creation_input_tokens": 1200,
                "cache_read_input_tokens": 0,
                "output_tokens": 50,
            },
        ),
        Step(
            content=ANSWER,
            usage={
                "input_tokens": 310,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 1200,
                "output_tokens": 40,
            },
        ),
    )
    answerer = _answerer(server)
    first = answerer.answer(request())
    second = answerer.answer(request("When does the depot open on weekdays?"))
    answerer.backend.close()

    # claude-haiku-4-5: $1 input, $1.25 cache write, $0.10 cache read, $5 output per million tokens.
    assert (first.usage.input_tokens, first.usage.cached_input_tokens, first.usage.output_tokens) == (
        1500,
        0,
        50,
    )
    assert first.cost_usd == pytest.approx((300 * 1.0 + 1200 * 1.25 + 50 * 5.0) / 1e6)
    assert first.cost_usd == pytest.approx(0.00205)
    assert (second.usage.input_tokens, second.usage.cached_input_tokens) == (310, 1200)
    assert second.cost_usd == pytest.approx((310 * 1.0 + 1200 * 0.10 + 40 * 5.0) / 1e6)
    assert second.cost_usd == pytest.approx(0.00063)


def test_anthropic_provider__default_usage__first_call_writes_the_cache_later_calls_read_it(
    server: FakeAnthropicServer,
) -> None:
    answerer = _answerer(server)
    answerer.answer(request())
    answerer.answer(request("When does the depot open on weekdays?"))
    answerer.backend.close()
    assert server.usages[0]["cache_creation_input_tokens"] > 0 == server.usages[0]["cache_read_input_tokens"]
    assert server.usages[1]["cache_read_input_tokens"] == server.usages[0]["cache_creation_input_tokens"]


def test_anthropic_provider__529_overloaded__retried(server: FakeAnthropicServer) -> None:
    waits = Waits()
    server.script(Step(status=529))
    answerer = _answerer(server, waits)
    result = answerer.answer(request())
    answerer.backend.close()
    assert result.answer_text is not None and len(server.requests) == 2 and len(waits.seconds) == 1


def test_anthropic_provider__429_with_retry_after_as_http_date__honoured(server: FakeAnthropicServer) -> None:
    waits = Waits()
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=5), usegmt=True)
    server.script(Step(status=429, headers={"retry-after": when}))
    answerer = _answerer(server, waits)
    result = answerer.answer(request())
    answerer.backend.close()
    assert result.answer_text is not None
    assert 3.0 <= waits.seconds[0] <= 5.6  # the date has one-second resolution


def test_anthropic_provider__persistent_rate_limit__bounded_retries_then_error_naming_the_cause(
    server: FakeAnthropicServer,
) -> None:
    server.script(*[Step(status=429, headers={"retry-after": "1"})] * 5)
    answerer = _answerer(server, Waits(), max_retries=3)
    with pytest.raises(InfrastructureError, match=r"after 4 attempts: HTTP 429: fake 429"):
        answerer.answer(request())
    answerer.backend.close()
    assert len(server.requests) == 4


def test_anthropic_provider__reply_without_text_block_every_time__case_error_with_raw_and_every_cost(
    server: FakeAnthropicServer,
) -> None:
    body = {
        "type": "message",
        "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }
    server.script(*[Step(body=json.dumps(body))] * 3)
    answerer = _answerer(server)
    result = answerer.answer(request())
    answerer.backend.close()
    assert result.error is not None and "no text block" in result.error
    assert result.raw_output is not None and "tool_use" in result.raw_output
    assert result.cost_usd == pytest.approx(3 * (100 * 1.0 + 10 * 5.0) / 1e6)  # three attempts, all paid


def test_anthropic_provider__missing_key__401_message_carries_no_key(server: FakeAnthropicServer) -> None:
    answerer = LLMAnswerer(anthropic_chat(server.url, api_key="sk-ant-wrong-999999"))
    with pytest.raises(InfrastructureError) as caught:
        answerer.answer(request())
    answerer.backend.close()
    assert "HTTP 401" in caught.value.message and "sk-ant-wrong-999999" not in caught.value.message


def test_anthropic_429_retry_after__no_worker_on_that_endpoint_calls_before_it_elapses(
    server: FakeAnthropicServer,
) -> None:
    """The answerer and the judge share an endpoint: a 429 with Retry-After: 1 pauses both, so the server
    sees no request within the second it asked for (one worker's wait alone let another call 0.24 s on)."""
    services = ProviderServices()
    url = messages_url(server.url)
    clients = [
        services.http_client(
            provider="anthropic", endpoint=url, timeout_s=10, max_retries=2, requests_per_minute=None
        )
        for _ in range(2)
    ]
    server.script(Step(status=429, headers={"retry-after": "1"}))
    payload = {"model": "claude-haiku-4-5", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"anthropic-version": "2023-06-01", "x-api-key": KEY}
    first = threading.Thread(target=clients[0].post, args=(url, payload, headers))
    first.start()
    while not server.requests:  # the 429 is on its way back
        time.sleep(0.01)
    time.sleep(0.2)
    clients[1].post(url, payload, headers)  # the other worker, 0.2 s after the 429
    first.join()
    services.close()
    rate_limited, *later = server.requests
    assert len(later) == 2
    assert all(r.at - rate_limited.at >= 1.0 for r in later), [r.at - rate_limited.at for r in later]
