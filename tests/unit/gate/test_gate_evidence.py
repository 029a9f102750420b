"""The gate on a system that is not deterministic: verdicts rest on samples, not on one flip.

Fixtures (tests/data/reports/make_fixtures.py): `noisy_baseline` asked every critical case 3 times; the
candidates differ from it in the safety case ret-008 only.
"""

from __future__ import annotations

import pytest
from gate_fixtures import gate, report

from cairn_action.gate import run_gate
from cairn_action.gate.confirm import confirmation_plan
from cairn_action.gate.outcome import Tally, loss_p_value


def test_gate__flaky_critical_case_confirmed_right__passes_and_lists_it_as_flaky() -> None:
    result = gate("noisy_flaky", baseline="noisy_baseline")
    assert (result.decision.status, result.decision.exit_code) == ("pass", 0)
    (change,) = result.comparison.by_outcome("flaky")
    assert change.case_id == "ret-008" and not change.lost
    assert (change.candidate.n_right, change.candidate.n_samples) == (4, 5)
    assert result.comparison.by_outcome("broke") == []


def test_gate__critical_case_wrong_in_every_sample__confirmed_loss_fails_with_the_evidence() -> None:
    decision = gate("noisy_lost", baseline="noisy_baseline").decision
    assert (decision.status, decision.exit_code) == ("regression", 1)
    (reason,) = decision.reasons
    assert reason.code == "critical_case_lost" and reason.subject == "ret-008"
    assert "wrong in 5 of 5 samples, right in the baseline's 3 of 3" in reason.message
    assert "Fisher exact p = 0.0179" in reason.message


def test_gate__errored_case__incomplete_exit_3_not_regression() -> None:
    decision = gate("noisy_errored", baseline="noisy_baseline").decision
    assert (decision.status, decision.exit_code) == ("incomplete", 3)
    (reason,) = decision.reasons
    assert reason.code == "case_errored" and "ret-008" in reason.message


def test_gate__errored_case__an_override_cannot_pass_it() -> None:
    from gate_fixtures import OVERRIDE

    decision = gate("noisy_errored", baseline="noisy_baseline", override=OVERRIDE).decision
    assert decision.status == "incomplete"
    assert any("cannot pass an incomplete" in n for n in decision.notes)


def test_gate__one_baseline_sample_of_a_noisy_system__a_critical_flip_alone_never_fails() -> None:
    # The same flip as noisy_lost, but the baseline asked the case once: Fisher's p is at least 1/6.
    baseline = report("noisy_baseline")
    rows = [
        c.model_copy(update={"n_samples": 1, "n_right": 1}) if c.case_id == "ret-008" else c
        for c in baseline.per_case
    ]
    result = run_gate(baseline.model_copy(update={"per_case": rows}), report("noisy_lost"))
    assert result.decision.status == "pass"
    (change,) = result.comparison.by_outcome("broke")
    assert change.critical and not change.lost and change.loss_p == pytest.approx(1 / 6)
    assert any("broke on its first sample but not on the evidence" in n for n in result.decision.notes)


def test_gate__deterministic_side__single_sample_rule_stands() -> None:
    # The old rule, as on every stub fixture: one flip of a deterministic system is a loss.
    decision = gate("critical_lost").decision
    assert decision.status == "regression"
    assert {r.subject for r in decision.reasons if r.code == "critical_case_lost"} == {"ret-008", "una-002"}


def test_gate__empty_baseline__refused_not_a_pass() -> None:
    baseline = report("baseline")
    decision = run_gate(baseline.model_copy(update={"per_case": []}), report("baseline")).decision
    assert (decision.status, decision.exit_code) == ("refused", 2)
    assert decision.reasons[0].code == "empty_report"
    stale = [c.model_copy(update={"status": "stale"}) for c in baseline.per_case]
    decision = run_gate(baseline.model_copy(update={"per_case": stale}), report("baseline")).decision
    assert (decision.status, decision.reasons[0].code) == ("refused", "no_cases")


@pytest.mark.parametrize(
    ("before", "after", "p"),
    [((3, 3), (0, 5), 1 / 56), ((3, 3), (1, 5), 4 / 56), ((2, 3), (0, 5), 6 / 56), ((1, 1), (0, 5), 1 / 6)],
)
def test_loss_p_value__fisher_one_sided__hand_computed(
    before: tuple[int, int], after: tuple[int, int], p: float
) -> None:
    assert loss_p_value(Tally(*before), Tally(*after)) == pytest.approx(p)


def test_confirmation_plan__only_cases_whose_verdict_differs__asked_the_baselines_extra() -> None:
    baseline, candidate = report("noisy_baseline"), report("noisy_lost")
    first_pass = candidate.model_copy(
        update={
            "per_case": [
                c.model_copy(update={"n_samples": 1, "n_right": int(c.case_id != "ret-008")})
                if c.case_id == "ret-008"
                else c
                for c in candidate.per_case
            ]
        }
    )
    plan = confirmation_plan(baseline, first_pass, extra=4, asked={"ret-008": 1})
    assert plan == {"ret-008": 5}
    assert confirmation_plan(baseline, baseline, extra=4, asked={}) == {}
    assert confirmation_plan(baseline, first_pass, extra=0, asked={}) == {}


def _wrong(candidate_ids: set[str]):
    baseline = report("noisy_baseline")
    wrong = {"answer_text": "30 days", "correct": False, "token_f1": 0.0, "exact_match": False, "n_right": 0}
    rows = [c.model_copy(update=wrong) if c.case_id in candidate_ids else c for c in baseline.per_case]
    return baseline, baseline.model_copy(update={"per_case": rows})


def test_gate__noisy_system_error_among_answered_crosses_alpha_by_one_answer__no_guarantee_failure() -> None:
    baseline, candidate = _wrong({"ret-001"})  # 2 wrong of 9 answered -> 3 of 9, above alpha 0.25
    candidate = candidate.model_copy(
        update={"abstention": candidate.abstention.model_copy(update={"guarantee_met": False})}
    )
    decision = run_gate(baseline, candidate).decision
    assert "guarantee_lost" not in {r.code for r in decision.reasons}


def test_gate__noisy_system_error_among_answered_clearly_worse__guarantee_lost_with_the_evidence() -> None:
    baseline, candidate = _wrong({"ret-001", "ret-002", "ret-003", "ret-004", "ret-005", "ret-009"})
    candidate = candidate.model_copy(
        update={"abstention": candidate.abstention.model_copy(update={"guarantee_met": False})}
    )
    (reason,) = [r for r in run_gate(baseline, candidate).decision.reasons if r.code == "guarantee_lost"]
    assert "8 wrong of 9 answered, the baseline 2 of 9" in reason.message
    assert "p = 0.00761 < 0.025, half of max_p_value" in reason.message


def test_gate__noisy_system_error_among_answered_at_p_0_028__not_failed_at_half_of_max_p_value() -> None:
    # 7 wrong of 9 against 2 of 9 is p 0.028: below max_p_value 0.05, above the guarantee's half of it (the
    # correctness test over samples has the other half; issue 23 round 4).
    baseline, candidate = _wrong({"ret-001", "ret-002", "ret-003", "ret-004", "ret-005"})
    candidate = candidate.model_copy(
        update={"abstention": candidate.abstention.model_copy(update={"guarantee_met": False})}
    )
    assert "guarantee_lost" not in {r.code for r in run_gate(baseline, candidate).decision.reasons}
