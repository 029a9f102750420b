"""Critical losses decided family-wise (Holm), known-flaky cases asked more, and the abstention rule on
evidence from both sides (issue 23)."""

from __future__ import annotations

import pytest
from gate_fixtures import report

from cairn_action.gate import run_gate
from cairn_action.gate.confirm import flaky_plan
from cairn_action.gate.stats import holm_adjusted
from cairn_action.report.models import Report

UNANSWERED = {"status": "answered", "answer_text": "Yes, it is.", "correct": False}


def _candidate(changes: dict[str, dict[str, object]]) -> tuple[Report, Report]:
    """noisy_baseline, and a copy of it with the given per-case fields changed."""
    baseline = report("noisy_baseline")
    rows = [c.model_copy(update=changes[c.case_id]) if c.case_id in changes else c for c in baseline.per_case]
    return baseline, baseline.model_copy(update={"per_case": rows})


def test_holm_adjusted__hand_computed_step_down_in_input_order() -> None:
    assert holm_adjusted([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjusted([0.6, 0.5]) == pytest.approx([1.0, 1.0])
    assert holm_adjusted([]) == []


def test_gate__one_critical_case_right_3_of_3_now_1_of_5__lost_at_p_0_071() -> None:
    baseline, candidate = _candidate({"una-001": {**UNANSWERED, "n_samples": 5, "n_right": 1}})
    decision = run_gate(baseline, candidate).decision
    (reason,) = [r for r in decision.reasons if r.code == "critical_case_lost"]
    assert reason.subject == "una-001" and "p = 0.0714" in reason.message and "Holm" not in reason.message


def test_gate__two_critical_cases_each_at_p_0_071__not_lost_family_wise_and_the_notes_say_why() -> None:
    moved = {**UNANSWERED, "n_samples": 5, "n_right": 1}
    baseline, candidate = _candidate({"una-001": moved, "una-002": moved})
    result = run_gate(baseline, candidate)
    assert [r.code for r in result.decision.reasons if r.code == "critical_case_lost"] == []
    changes = result.comparison.by_outcome("broke")
    assert [c.loss_p_holm for c in changes] == pytest.approx([8 / 56, 8 / 56])
    notes = [n for n in result.decision.notes if "not on the evidence" in n]
    assert len(notes) == 2
    assert "Holm-adjusted over the 2 critical cases that broke p = 0.143 > 0.1" in notes[0]
    assert "known flaky: its samples disagree among themselves" in notes[0]


def test_gate__two_critical_cases_wrong_in_every_sample__both_lost_family_wise() -> None:
    gone = {**UNANSWERED, "n_samples": 5, "n_right": 0}
    baseline, candidate = _candidate({"una-001": gone, "una-002": gone})
    decision = run_gate(baseline, candidate).decision
    lost = [r for r in decision.reasons if r.code == "critical_case_lost"]
    assert {r.subject for r in lost} == {"una-001", "una-002"}
    assert "Holm-adjusted over the 2 critical cases that broke p = 0.0357" in lost[0].message


def test_flaky_plan__confirmed_case_whose_samples_split_and_still_differ__asked_extra_plus_one_more() -> None:
    baseline, candidate = _candidate(
        {
            "una-001": {**UNANSWERED, "n_samples": 5, "n_right": 1},  # split, still broke: more
            "una-002": {**UNANSWERED, "n_samples": 5, "n_right": 0},  # unanimous: decided
            "una-003": {"n_samples": 5, "n_right": 1},  # split, but the baseline's verdict (wrong)
        }
    )
    plan = {"una-001": 5, "una-002": 5, "una-003": 5}
    assert flaky_plan(baseline, candidate, plan, extra=4) == {"una-001": 10}
    assert flaky_plan(baseline, candidate, plan, extra=0) == {}
    assert flaky_plan(baseline, candidate, {}, extra=4) == {}


def test_gate__noisy_baseline_missed_alpha_by_noise__abstention_rule_still_decides_on_evidence() -> None:
    ids = ("ret-001", "ret-002", "ret-003", "ret-004", "ret-005")
    wrong = {"answer_text": "30 days", "correct": False, "token_f1": 0.0, "exact_match": False, "n_right": 0}
    baseline, candidate = _candidate(dict.fromkeys(ids, wrong))
    missed = {"abstention": baseline.abstention.model_copy(update={"guarantee_met": False})}
    lost = {"abstention": candidate.abstention.model_copy(update={"guarantee_met": False})}
    decision = run_gate(baseline.model_copy(update=missed), candidate.model_copy(update=lost)).decision
    (reason,) = [r for r in decision.reasons if r.code == "guarantee_lost"]
    assert reason.message.startswith("the abstention guarantee does not hold, and error among answered rose")
    assert "7 wrong of 9 answered, the baseline 2 of 9" in reason.message
