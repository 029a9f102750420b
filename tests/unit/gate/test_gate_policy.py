"""The decision: one fixture per branch, the override rules, and the baseline's policy in force."""

from __future__ import annotations

import pytest
from gate_fixtures import OVERRIDE, gate, report

from cairn_action.config import GateConfig
from cairn_action.errors import DataError
from cairn_action.gate import run_gate
from cairn_action.gate.compare import compare
from cairn_action.gate.models import Comparison, MetricDelta
from cairn_action.gate.policy import decide, policy_of

POLICY = GateConfig.model_validate(report("baseline").notes.gate_policy)


def _codes(candidate: str) -> list[str]:
    return [r.code for r in gate(candidate).decision.reasons]


def test_gate__report_against_itself__passes_with_no_change() -> None:
    decision = gate("baseline").decision
    assert (decision.status, decision.exit_code, decision.headline) == ("pass", 0, "no change")
    assert decision.reasons == []


def test_gate__critical_case_lost__fails_with_critical_reasons_first() -> None:
    decision = gate("critical_lost").decision
    assert (decision.status, decision.exit_code) == ("regression", 1)
    assert [(r.code, r.subject) for r in decision.reasons[:2]] == [
        ("critical_case_lost", "ret-008"),
        ("critical_case_lost", "una-002"),
    ]
    assert "now answers a question it should refuse" in decision.reasons[1].message
    assert decision.headline == "2 broke, 1 fixed of 12 cases"


def test_gate__correctness_drops_significantly__fails() -> None:
    decision = gate("correctness_drop").decision
    (reason,) = [r for r in decision.reasons if r.code == "correctness_drop"]
    assert "5 broke and 0 fixed of 12" in reason.message and "p = 0.0312 < 0.05" in reason.message
    assert decision.exit_code == 1


def test_gate__correctness_drop_not_significant__no_correctness_reason() -> None:
    # floor_crossed breaks four cases and fixes none: p = 1/16 > 0.05.
    assert "correctness_drop" not in _codes("floor_crossed")


def test_gate__stricter_p_value_in_policy__significant_drop_tolerated() -> None:
    comparison = compare(report("baseline"), report("correctness_drop"), critical_tags=POLICY.critical_tags)
    decision = decide(comparison, POLICY.model_copy(update={"max_p_value": 0.01}))
    assert "correctness_drop" not in [r.code for r in decision.reasons]


def test_gate__recall_falls_more_than_allowed__fails_naming_metric() -> None:
    decision = gate("recall_drop").decision
    (reason,) = decision.reasons
    assert (reason.code, reason.subject) == ("max_drop", "recall_at_5")
    assert reason.message == "recall@5 fell from 88.9% to 66.7% (-22.2 pp), more than the allowed 5.0 pp"
    assert decision.headline == "2 lost retrieval of 12 cases"


def test_gate__cost_per_question_rises_more_than_allowed__fails() -> None:
    (reason,) = gate("cost_up").decision.reasons
    assert (reason.code, reason.subject) == ("max_drop", "cost_per_question_usd")
    assert "rose from $0.0004 to $0.0030" in reason.message


def test_gate__p95_latency_rises_on_same_machine_kind__fails() -> None:
    decision = gate("slow_same_machine").decision
    (reason,) = decision.reasons
    assert (reason.code, reason.subject) == ("max_drop", "latency_p95_ms")
    assert decision.headline == "no case changed of 12; only timings moved"


def test_gate__p95_latency_rises_on_other_machine_kind__passes_with_note() -> None:
    result = gate("slow_other_machine")
    assert result.decision.status == "pass"
    assert any("different kinds of machine" in n for n in result.decision.notes)


def test_gate__metric_crosses_floor__fails() -> None:
    decision = gate("floor_crossed").decision
    (reason,) = [r for r in decision.reasons if r.code == "floor"]
    assert reason.message == "answer rate is 41.7%, below the floor of 50.0%"


def test_gate__lower_is_better_metric_above_ceiling__fails() -> None:
    comparison = compare(report("baseline"), report("critical_lost"), critical_tags=[])
    decision = decide(comparison, GateConfig(critical_tags=[], floors={"error_rate_answered": 0.25}))
    (reason,) = [r for r in decision.reasons if r.code == "floor"]
    assert reason.message == "error among answered is 30.0%, above the ceiling of 25.0%"


def test_gate__abstention_guarantee_met_before_not_now__fails() -> None:
    decision = gate("guarantee_lost").decision
    (reason,) = decision.reasons
    assert reason.code == "guarantee_lost"
    assert "33.3% above the target 25.0%" in reason.message


def test_gate__case_missing_from_candidate__incomplete_exit_3_never_a_pass() -> None:
    decision = gate("missing_case").decision
    assert (decision.status, decision.exit_code) == ("incomplete", 3)
    (reason,) = decision.reasons
    assert reason.code == "case_missing"
    assert "una-002" in reason.message and "missing from the candidate" in reason.message


def test_gate__only_fixes_and_changes__passes_with_counts() -> None:
    decision = gate("improved").decision
    assert (decision.status, decision.exit_code) == ("pass", 0)
    assert decision.headline == "2 fixed, 1 changed while still wrong of 12 cases"


@pytest.mark.parametrize("candidate", ["golden_v2", "golden_edited", "corpus_changed", "split_all"])
def test_gate__incomparable_reports__refused_exit_2(candidate: str) -> None:
    decision = gate(candidate).decision
    assert (decision.status, decision.exit_code) == ("refused", 2)
    assert decision.reasons and decision.headline == "the reports are not comparable"


def _with_metric(comparison: Comparison, name: str, **update: object) -> Comparison:
    metrics = [m.model_copy(update=update) if m.name == name else m for m in comparison.metrics]
    return comparison.model_copy(update={"metrics": metrics})


def test_gate__bounded_metric_missing_in_candidate__fails_as_unchecked() -> None:
    comparison = _with_metric(
        gate("baseline").comparison, "answer_rate", candidate=None, delta=None, change="n/a"
    )
    (reason,) = decide(comparison, POLICY).reasons
    assert reason.message == "answer rate has no value, so its floor of 50.0% cannot be checked"


def test_gate__allowed_drop_without_baseline_value__noted_not_failed() -> None:
    comparison = _with_metric(
        gate("baseline").comparison, "recall_at_5", baseline=None, delta=None, change="n/a"
    )
    decision = decide(comparison, POLICY)
    assert decision.status == "pass"
    assert "recall@5: allowed change not checked, the baseline has no value" in decision.notes


def test_gate__bounded_metric_lost_its_value__fails() -> None:
    comparison = _with_metric(
        gate("baseline").comparison, "recall_at_5", candidate=None, delta=None, change="n/a"
    )
    (reason,) = decide(comparison, POLICY).reasons
    assert "recall@5 has no value now (baseline 88.9%)" in reason.message


def test_gate__override_with_policy_label__overridden_exit_0_record_kept() -> None:
    decision = gate("critical_lost", override=OVERRIDE).decision
    assert (decision.status, decision.exit_code) == ("overridden", 0)
    assert decision.override is not None
    assert (decision.override.actor, decision.override.label, decision.override.pr) == (
        "maintainer-jo",
        "cairn-override",
        42,
    )
    assert decision.override.overrode == [r.message for r in decision.reasons]
    assert len(decision.reasons) == 3


def test_gate__override_with_reason_label__overridden_with_the_label_kept() -> None:
    label = "cairn-override: prompt rewrite, judged by hand"
    decision = gate("critical_lost", override=OVERRIDE.model_copy(update={"label": label})).decision
    assert decision.status == "overridden"
    assert decision.override is not None and decision.override.label == label


def test_gate__override_with_other_label__still_regression_with_note() -> None:
    override = OVERRIDE.model_copy(update={"label": "skip-ci"})
    decision = gate("critical_lost", override=override).decision
    assert (decision.status, decision.exit_code, decision.override) == ("regression", 1, None)
    assert any("'skip-ci' is not the baseline's override label 'cairn-override'" in n for n in decision.notes)


def test_gate__override_on_refused_comparison__still_refused() -> None:
    decision = gate("golden_v2", override=OVERRIDE).decision
    assert (decision.status, decision.exit_code, decision.override) == ("refused", 2, None)
    assert "an override cannot pass a comparison that was refused" in decision.notes


def test_gate__override_on_pass__pass_noted() -> None:
    decision = gate("improved", override=OVERRIDE).decision
    assert (decision.status, decision.override) == ("pass", None)
    assert any("not needed" in n for n in decision.notes)


def test_gate__candidate_loosens_its_own_policy__baseline_policy_still_applies() -> None:
    candidate = report("recall_drop")
    loose = candidate.notes.model_copy(update={"gate_policy": {"max_drop": {"recall_at_5": 1.0}}})
    result = run_gate(report("baseline"), candidate.model_copy(update={"notes": loose}))
    assert result.decision.status == "regression"
    assert result.decision.policy.max_drop["recall_at_5"] == 0.05


def test_policy_of__report_without_policy__defaults() -> None:
    baseline = report("baseline")
    bare = baseline.model_copy(update={"notes": baseline.notes.model_copy(update={"gate_policy": {}})})
    assert policy_of(bare) == GateConfig()


def test_policy_of__invalid_policy__data_error_naming_source() -> None:
    baseline = report("baseline")
    bad = baseline.model_copy(
        update={"notes": baseline.notes.model_copy(update={"gate_policy": {"max_p_value": 2}})}
    )
    with pytest.raises(
        DataError, match=r"^base\.json: notes\.gate_policy is not a valid \[gate\] section: max_p_value"
    ):
        policy_of(bad, source="base.json")


def test_policy_of__unknown_metric__data_error_listing_known_ones() -> None:
    baseline = report("baseline")
    bad = baseline.model_copy(
        update={"notes": baseline.notes.model_copy(update={"gate_policy": {"floors": {"recal_at_5": 0.8}}})}
    )
    with pytest.raises(DataError, match="unknown metric\\(s\\): recal_at_5") as info:
        policy_of(bad)
    assert "recall_at_5" in info.value.hint


def test_decide__metric_delta_model_round_trips() -> None:
    # The decision is written as JSON; reading it back gives the same decision.
    result = gate("critical_lost", override=OVERRIDE)
    assert type(result).model_validate_json(result.model_dump_json()) == result
    assert (
        MetricDelta.model_validate(result.comparison.metrics[0].model_dump()) == result.comparison.metrics[0]
    )
