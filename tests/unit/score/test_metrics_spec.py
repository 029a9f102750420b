"""The MetricSpec table: every metric resolves in a report, reads from a model or a dict, formats."""

from __future__ import annotations

import pytest

from cairn_action.report.models import (
    AbstentionMetrics,
    AnswerMetrics,
    Notes,
    OperationalMetrics,
    Report,
    RetrievalMetrics,
)
from cairn_action.score.metrics import METRICS, METRICS_BY_NAME, get_metric


def _report() -> Report:
    return Report(
        cairn_version="0.1.0",
        config_name="default",
        config_hash="0" * 16,
        corpus_hash="c" * 64,
        golden_version="1",
        split="eval",
        created_at="2026-01-01T00:00:00Z",
        n_cases=2,
        retrieval=RetrievalMetrics(
            recall_at_k={"1": 0.5, "3": 0.75, "5": 0.875, "10": 1.0},
            ndcg_at_10=0.7,
            mrr=0.6,
            n_with_support=8,
        ),
        answer=AnswerMetrics(
            exact_match=0.5, token_f1=0.8123, judge_score=None, citation_validity=0.9, faithfulness=0.8
        ),
        abstention=AbstentionMetrics(
            alpha=0.1,
            answer_rate=0.7,
            error_rate_answered=0.05,
            guarantee_met=True,
            unanswerable_abstained_rate=0.9,
            answerable_answered_rate=0.8,
        ),
        operational=OperationalMetrics(
            cost_usd_total=0.5,
            cost_per_question_usd=0.0042,
            latency_p50_ms=12.0,
            latency_p95_ms=140.4,
            tokens_total=12345,
            cache_hit_rate=0.5,
        ),
        per_case=[],
        notes=Notes(),
    )


def test_every_spec_path_resolves_in_a_report_model_and_its_json() -> None:
    report = _report()
    as_json = report.model_dump(mode="json")
    for spec in METRICS:
        assert spec.read(report) == spec.read(as_json), spec.name
        if spec.name != "judge_score":
            assert spec.read(report) is not None, spec.name


def test_names_unique_and_gate_default_metric_known() -> None:
    assert len(METRICS_BY_NAME) == len(METRICS)
    assert get_metric("recall_at_5").path == ("retrieval", "recall_at_k", "5")
    with pytest.raises(KeyError, match="known metrics"):
        get_metric("recall_at_7")


def test_direction__lower_is_better_for_error_cost_latency_tokens() -> None:
    lower = {m.name for m in METRICS if not m.higher_is_better}
    assert lower == {
        "error_rate_answered",
        "cost_usd_total",
        "cost_per_question_usd",
        "latency_p50_ms",
        "latency_p95_ms",
        "tokens_total",
    }
    assert get_metric("latency_p95_ms").machine_dependent
    assert get_metric("error_rate_answered").is_improvement(-0.01)
    assert not get_metric("recall_at_5").is_improvement(-0.01)


@pytest.mark.parametrize(
    ("name", "value", "shown", "delta", "delta_shown"),
    [
        ("recall_at_5", 0.875, "87.5%", -0.025, "-2.5 pp"),
        ("token_f1", 0.8123, "0.812", 0.0311, "+0.031"),
        ("cost_per_question_usd", 0.0042, "$0.0042", -0.0001, "-$0.0001"),
        ("latency_p95_ms", 140.4, "140 ms", 12.0, "+12 ms"),
        ("tokens_total", 12345, "12,345", 100, "+100"),
        ("judge_score", None, "n/a", None, "n/a"),
    ],
)
def test_format(name: str, value: float | None, shown: str, delta: float | None, delta_shown: str) -> None:
    spec = get_metric(name)
    assert spec.format(value) == shown
    assert spec.format_delta(delta) == delta_shown


def test_read__non_numeric_value_is_a_bug_not_a_number() -> None:
    with pytest.raises(TypeError):
        get_metric("token_f1").read({"answer": {"token_f1": "0.5"}})
