"""A model behind an API as the system under test (and as the judge), end to end to a report.

Loopback fakes speak the real wire formats; the checks are the ones a user pays for: tokens and costs
equal the hand computation from the usage blocks the server sent, retries are bounded, no case is
lost, a rerun makes no call at all, and the API key is in no file Cairn wrote.
"""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import FakeAnthropicServer
from eval_kit import TINY_CASES, evaluate, files_containing, write_config
from loopback import Step
from openai_server import FakeOpenAIServer

from cairn_action.providers.llm_judge import RUBRIC_VERSION

KEY = "sk-proj-cairn-test-7f3a9c2e1d"
KEY_ENV = "CAIRN_TEST_API_KEY"
# USD per million tokens: (input, cached input, output), from the dated table.
OPENAI_PRICES = {"gpt-4o-mini": (0.15, 0.075, 0.60), "gpt-4.1-mini": (0.40, 0.10, 1.60)}


def _openai_config(
    folder: Path,
    name: str,
    server: FakeOpenAIServer,
    *,
    judge: str = "lexical",
    extra: str = "",
    retries: int = 2,
) -> None:
    judge_section = '[judge]\nname = "llm"\nmodel = "gpt-4.1-mini"' if judge == "llm" else ""
    write_config(
        folder,
        name,
        f"""
[provider]
name = "openai"
model = "gpt-4o-mini"
base_url = "{server.base_url}"
api_key_env = "{KEY_ENV}"
max_retries = {retries}

{judge_section}
{extra}
""",
    )


def _openai_cost(model: str, usage: dict[str, Any]) -> float:
    price_in, price_cached, price_out = OPENAI_PRICES[model]
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    return (
        (usage["prompt_tokens"] - cached) * price_in
        + cached * price_cached
        + usage["completion_tokens"] * price_out
    ) / 1e6


def test_openai_provider_with_llm_judge__end_to_end__costs_match_by_hand_and_rerun_makes_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer(api_key=KEY) as server:
        _openai_config(tmp_path, "api-judged", server, judge="llm")
        first = evaluate(tmp_path, "api-judged", capsys, monkeypatch)
        assert first.code == 0, first.err
        calls = len(server.requests)
        second = evaluate(tmp_path, "api-judged", capsys, monkeypatch)
        assert second.code == 0, second.err
    assert len(server.requests) == calls  # the rerun was served entirely from Cairn's cache
    assert "0 made" in second.out

    models = [r.json["model"] for r in server.requests]
    assert models.count("gpt-4o-mini") == TINY_CASES
    judged = [r for r in first.records if r.status == "answered" and r.answerable]
    # A baseline run (no --baseline) judges each answer by a majority of up to 3 draws of the LLM judge
    # (run/graded.py); the fake judge grades alike every time, so two draws agree and no third is drawn.
    assert models.count("gpt-4.1-mini") == 2 * len(judged) > 0
    expected_cost = sum(_openai_cost(m, u) for m, u in zip(models, server.usages, strict=True))
    expected_tokens = sum(u["prompt_tokens"] + u["completion_tokens"] for u in server.usages)
    for run in (first, second):
        operational = run.report["operational"]
        assert operational["cost_usd_total"] == pytest.approx(expected_cost, rel=1e-9)
        assert operational["tokens_total"] == expected_tokens
        assert operational["cache_hit_rate"] == 1.0  # the stable prefix never changed
    report = first.report
    assert report["answer"]["judge_score"] is not None
    notes = report["notes"]
    assert notes["judge"] == f"llm (openai gpt-4.1-mini, rubric {RUBRIC_VERSION})"
    assert notes["rubric_version"] == RUBRIC_VERSION
    assert notes["models_seen"] == ["gpt-4.1-mini", "gpt-4o-mini"]
    assert {c.role for r in judged for c in r.calls} == {"answer", "judge"}
    assert all(r.confidence_source == "logprob" for r in judged)
    assert files_containing(tmp_path, KEY) == []
    assert KEY not in first.out + first.err + second.out + second.err


def test_anthropic_provider__end_to_end__cache_writes_and_reads_priced_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeAnthropicServer(api_key=KEY) as server:
        write_config(
            tmp_path,
            "api-anthropic",
            f"""
[provider]
name = "anthropic"
model = "claude-haiku-4-5"
base_url = "{server.url}"
api_key_env = "{KEY_ENV}"
""",
        )
        run = evaluate(tmp_path, "api-anthropic", capsys, monkeypatch)
    assert run.code == 0, run.err

    usages = server.usages
    assert len(usages) == TINY_CASES
    assert sum(u["cache_read_input_tokens"] for u in usages) > 0
    # claude-haiku-4-5: $1 input, $1.25 cache write, $0.10 cache read, $5 output per million tokens.
    expected = (
        sum(
            u["input_tokens"] * 1.0
            + u["cache_creation_input_tokens"] * 1.25
            + u["cache_read_input_tokens"] * 0.10
            + u["output_tokens"] * 5.0
            for u in usages
        )
        / 1e6
    )
    operational = run.report["operational"]
    assert operational["cost_usd_total"] == pytest.approx(expected, rel=1e-9)
    assert operational["tokens_total"] == sum(
        u["input_tokens"]
        + u["cache_creation_input_tokens"]
        + u["cache_read_input_tokens"]
        + u["output_tokens"]
        for u in usages
    )
    assert all(r.headers["anthropic-version"] == "2023-06-01" for r in server.requests)
    assert files_containing(tmp_path, KEY) == []


def test_openai_provider__rate_limited_and_failing__bounded_retries_and_no_case_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer() as server:
        server.script(
            Step(status=429, headers={"Retry-After": "0"}),
            Step(status=500, headers={"Retry-After": "0"}),
            Step(status=429, headers={"Retry-After": "0"}),
        )
        _openai_config(tmp_path, "api-flaky", server, retries=3)  # one case may meet all three
        run = evaluate(tmp_path, "api-flaky", capsys, monkeypatch)
    assert run.code == 0, run.err
    assert len(server.requests) == TINY_CASES + 3
    assert run.report["notes"]["counts"]["error"] == 0
    assert len({r.json["messages"][1]["content"] for r in server.requests}) == TINY_CASES
    assert "provider retries: 3" in run.err


def test_openai_provider__down_for_the_whole_run__exit_3_then_a_rerun_answers_every_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer() as server:
        server.script(*[Step(status=503, headers={"Retry-After": "0"})] * (3 * TINY_CASES))
        _openai_config(tmp_path, "api-down", server)
        down = evaluate(tmp_path, "api-down", capsys, monkeypatch)
        assert down.code == 3
        assert len(server.requests) == 3 * TINY_CASES  # max_retries = 2: three attempts a case, no more
        assert all(
            r.status == "error" and "after 3 attempts: HTTP 503" in (r.error or "") for r in down.records
        )
        back = evaluate(tmp_path, "api-down", capsys, monkeypatch)
    assert back.code == 0, back.err
    assert [r.status for r in back.records].count("error") == 0
    assert len(back.records) == TINY_CASES


def test_openai_provider__garbage_answer__recorded_with_raw_text_and_only_it_is_asked_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer() as server:
        server.script(*[Step(content="Sorry, I can only answer in prose today.")] * 3)  # every attempt
        _openai_config(tmp_path, "api-garbage", server, extra="[run]\nmax_concurrency = 1")
        first = evaluate(tmp_path, "api-garbage", capsys, monkeypatch)
        before = len(server.requests)
        second = evaluate(tmp_path, "api-garbage", capsys, monkeypatch)
    assert first.code == 0, first.err
    failed = [r for r in first.records if r.status == "error"]
    assert len(failed) == 1 and failed[0].case_id == "t-01"
    assert failed[0].raw_output == "Sorry, I can only answer in prose today."
    assert failed[0].cost_usd is not None and failed[0].cost_usd > 0  # paid for, so counted
    assert "unusable replies asked again: 1 call(s), 0 recovered, 1 still unusable" in first.err
    assert len(server.requests) == before + 1  # the rerun asked for t-01 only
    assert next(r for r in second.records if r.case_id == "t-01").status != "error"


def test_budget__reached_mid_run__no_new_call_and_the_report_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    # $1 per thousand prompt tokens makes each call cost well over a third of the limit.
    extra = """
[run]
max_concurrency = 1

[budget]
max_cost_usd = 1.0

[prices."gpt-4o-mini"]
input = 1000.0
cached_input = 1000.0
output = 0.0
"""
    with FakeOpenAIServer() as server:
        _openai_config(tmp_path, "api-budget", server, extra=extra)
        run = evaluate(tmp_path, "api-budget", capsys, monkeypatch)
    assert run.code == 0, run.err

    spent = sum(u["prompt_tokens"] * 1000.0 / 1e6 for u in server.usages)
    assert 1.0 <= spent < 2.0 and 0 < len(server.requests) < TINY_CASES
    skipped = [r for r in run.records if r.status == "error"]
    assert len(skipped) == TINY_CASES - len(server.requests)
    assert all((r.error or "").startswith("budget reached") for r in skipped)
    budget = run.report["notes"]["budget"]
    assert budget["max_cost_usd"] == 1.0 and budget["exceeded"] is True
    assert budget["cases_skipped"] == len(skipped)
    assert budget["spent_usd"] == pytest.approx(spent)
    assert f"budget reached: {len(skipped)} calls not made" in run.err


def test_openai_provider__model_without_a_price__cost_unknown_not_zero_and_warned_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer() as server:
        write_config(
            tmp_path,
            "api-local",
            f'[provider]\nname = "openai"\nmodel = "llama3.1:8b"\nbase_url = "{server.base_url}"\n',
        )
        run = evaluate(tmp_path, "api-local", capsys, monkeypatch)
    assert run.code == 0, run.err
    assert run.report["operational"]["cost_usd_total"] is None
    assert run.report["operational"]["tokens_total"] > 0
    assert run.err.count("warning: no price for openai model 'llama3.1:8b'") == 1


def test_openai_provider__key_variable_unset__exit_2_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with FakeOpenAIServer() as server:
        _openai_config(tmp_path, "api-nokey", server)
        run = evaluate(tmp_path, "api-nokey", capsys, monkeypatch)
    assert run.code == 2
    assert f"provider.api_key_env: the environment variable {KEY_ENV} is not set" in run.err
    assert server.requests == []


def test_openai_provider__requests_per_minute__concurrent_calls_spaced_out_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer() as server:
        # 1200 a minute: one start every 50 ms, although eight cases may run at once.
        _openai_config(
            tmp_path, "api-paced", server, extra="requests_per_minute = 1200\n[run]\nmax_concurrency = 8"
        )
        config = (tmp_path / "cairn.toml").read_text()
        assert config.index("requests_per_minute") < config.index(
            "[judge]" if "[judge]" in config else "[run]"
        )
        run = evaluate(tmp_path, "api-paced", capsys, monkeypatch)
    assert run.code == 0, run.err
    assert run.report["notes"]["counts"]["error"] == 0 and len(server.requests) == TINY_CASES
    arrivals = sorted(r.at for r in server.requests)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    # The limiter spaces the *starts* 50 ms apart; arrivals at the server jitter a little around that, so
    # check the typical gap and the whole span (lower bounds: load only makes them larger), not the minimum.
    assert statistics.median(gaps) >= 0.04
    assert arrivals[-1] - arrivals[0] >= 0.8 * 0.05 * (len(arrivals) - 1)
    assert "rate limit: calls waited" in run.err


def test_openai_with_llm_judge_and_repeats__tokens_and_cost_count_every_call_the_server_billed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer(api_key=KEY) as server:
        _openai_config(tmp_path, "api-repeats", server, judge="llm", extra="[run]\nrepeats = 2")
        run = evaluate(tmp_path, "api-repeats", capsys, monkeypatch)
    assert run.code == 0, run.err
    models = [r.json["model"] for r in server.requests]
    assert models.count("gpt-4o-mini") == 2 * TINY_CASES  # every case asked twice
    assert models.count("gpt-4.1-mini") > 0  # a repeated answer is graded once (Cairn's cache)
    operational = run.report["operational"]
    # The fake's own bill: every request it answered, the second samples and their grades included.
    assert operational["tokens_total"] == sum(
        u["prompt_tokens"] + u["completion_tokens"] for u in server.usages
    )
    expected_cost = sum(_openai_cost(m, u) for m, u in zip(models, server.usages, strict=True))
    assert operational["cost_usd_total"] == pytest.approx(expected_cost, rel=1e-9)
    first = [r for r in run.records if r.sample == 0]
    per_question = sum(r.cost_usd or 0.0 for r in first) / len(first)
    assert operational["cost_per_question_usd"] == pytest.approx(per_question, rel=1e-9)
