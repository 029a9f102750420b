"""The critical rule on a baseline of more than 3 samples of a case (issue 23 round 5): Fisher reads every
baseline sample against the candidate's samples after its first, which chose the case for differing, and
the case is lost at Holm p <= half of critical_max_p. A baseline of 3 samples reads as before."""

from __future__ import annotations

import pytest
from gate_fixtures import report
from test_gate_family import _control
from test_gate_rule_samples import UNANSWERED, _baseline, _changed

from cairn_action.gate import run_gate
from cairn_action.gate.models import CaseChange
from cairn_action.gate.stats import holm_adjusted
from cairn_action.report.models import PerCase, Report, SampleOutcome


def _broke(result_changes: list[CaseChange], case: str) -> CaseChange:
    (change,) = [c for c in result_changes if c.case_id == case]
    return change


def _candidate_wrong(case: str, later: list[bool]) -> Report:
    """noisy_baseline with `case` answered wrong on its first ask and `later` samples after it."""
    base = report("noisy_baseline")

    def row(c: PerCase) -> PerCase:
        samples = [SampleOutcome(sample=i, status="answered", right=r) for i, r in enumerate(later, start=1)]
        fields = {**UNANSWERED, "samples": samples, "n_samples": 1 + len(later), "n_right": sum(later)}
        return c.model_copy(update=fields)

    return base.model_copy(update={"per_case": [row(c) if c.case_id == case else c for c in base.per_case]})


def test_gate__baseline_10_of_10_candidate_wrong_in_5_of_5__reads_the_4_after_the_first_and_is_lost() -> None:
    # 10 of 10 against 0 of 4: p = 1/C(14, 4) = 1/1001. Counting the first (0 of 5) would give 1/3003.
    baseline = _baseline("una-001", [True] * 9)
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 0})
    result = run_gate(baseline, candidate)
    change = _broke(result.comparison.by_outcome("broke"), "una-001")
    assert change.loss_p == pytest.approx(1 / 1001) and change.lost
    assert change.read is not None and (change.read.candidate_n, change.read.baseline_n) == (4, 10)
    (reason,) = [r for r in result.decision.reasons if r.code == "critical_case_lost"]
    assert (
        "wrong in 4 of 4 samples after the first (which chose the case, so it is not counted)"
        in reason.message
    )
    assert (
        "right in 10 of 10 of the baseline's samples (one-sided Fisher exact p = 0.000999)" in reason.message
    )
    assert reason.message.endswith(
        "; read on every baseline sample, so held to p <= 0.05, half of critical_max_p"
    )


def test_gate__coin_flip_right_in_its_first_3_baseline_samples_and_5_of_10__not_lost_on_0_of_4() -> None:
    # The round-4 rule read "right in 3 of 3, wrong in 5 of 5", p .018, and called it lost: the baseline's
    # first 3 and the candidate's first sample are the ones that put the case up. On every sample: 5 of 10
    # against 0 of 4, p = C(9, 4)/C(14, 4) = 126/1001 = .126.
    baseline = _baseline("una-001", [True, True, False, False, True, False, True, False, False])
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 0})
    result = run_gate(baseline, candidate)
    assert "critical_case_lost" not in {r.code for r in result.decision.reasons}
    assert _broke(result.comparison.by_outcome("broke"), "una-001").loss_p == pytest.approx(126 / 1001)
    (note,) = [n for n in result.decision.notes if "not on the evidence" in n]
    assert note.endswith(
        "(one-sided Fisher exact p = 0.126 > 0.05); read on every baseline sample, so it is held to half of "
        "critical_max_p"
    )


def test_gate__two_critical_cases_lost_on_10_baseline_samples__both_lost_family_wise_at_half_the_bar() -> (
    None
):
    # Each 10 of 10 against 0 of 4 (p 1/1001); Holm over the 2: 2/1001, far under 0.05.
    baseline = _baseline("una-001", [True] * 9)
    rows = [
        c.model_copy(update={"samples": baseline.per_case[0].samples, "n_samples": 10, "n_right": 10})
        if c.case_id == "una-002"
        else c
        for c in baseline.per_case
    ]
    baseline = baseline.model_copy(update={"per_case": rows})
    gone = {**UNANSWERED, "n_samples": 5, "n_right": 0}
    candidate = _changed(_changed(report("noisy_baseline"), "una-001", gone), "una-002", gone)
    result = run_gate(baseline, candidate)
    lost = [r.subject for r in result.decision.reasons if r.code == "critical_case_lost"]
    assert sorted(lost) == ["una-001", "una-002"]
    holm = [c.loss_p_holm for c in result.comparison.by_outcome("broke")]
    assert holm == pytest.approx(holm_adjusted([1 / 1001, 1 / 1001]))


def test_gate__baseline_of_3_samples__critical_rule_reads_as_before_with_the_first_sample() -> None:
    # A baseline committed before round 4 (3 samples): 3 of 3 against 0 of 5, p 1/56, at the full bar.
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 0})
    change = _broke(run_gate(report("noisy_baseline"), candidate).comparison.by_outcome("broke"), "una-001")
    assert change.read is None and change.loss_p == pytest.approx(1 / 56) and change.lost


def test_gate_with_control__baseline_10_samples__base_system_now_pooled_with_them_against_the_fresh_4() -> (
    None
):
    # The control re-asked the base system 3 times (right 3); the committed baseline 10 of 10: 13 of 13
    # against the candidate's 4 re-asks, all wrong: p = 1/C(17, 4) = 1/2380.
    baseline = _baseline("una-001", [True] * 9)
    candidate = _candidate_wrong("una-001", [False] * 4)
    control = _control(baseline, {"una-001": {"samples": [], "n_samples": 3, "n_right": 3}})
    result = run_gate(baseline, candidate, control=control)
    change = _broke(result.comparison.by_outcome("broke"), "una-001")
    assert change.read is not None and change.read.control
    assert (change.read.baseline_right, change.read.baseline_n, change.read.candidate_n) == (13, 13, 4)
    assert change.loss_p == pytest.approx(1 / 2380) and change.lost
    (reason,) = [r for r in result.decision.reasons if r.code == "critical_case_lost"]
    assert "right in 13 of 13 of the baseline's samples and the base system's re-asked now" in reason.message


def test_gate__deterministic_system__critical_rule_unchanged_by_a_10_sample_baseline() -> None:
    baseline = _baseline("una-001", [True] * 9)
    baseline = baseline.model_copy(
        update={"notes": baseline.notes.model_copy(update={"deterministic": True})}
    )
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 1, "n_right": 0})
    change = _broke(run_gate(baseline, candidate).comparison.by_outcome("broke"), "una-001")
    assert change.loss_p is None and change.read is None and change.lost


def test_gate_with_control__environment_shifted_and_pr_cleared__critical_rule_reads_only_samples_now() -> (
    None
):
    # The probe moved. On ret-008 the base system, re-asked now, is right in 2 of 3 and this PR wrong in its
    # 4 re-asks; on a second changed case the base system is wrong in 3 of 3 and this PR right in 4 of 4: the
    # pairing clears the PR. The committed 10 samples predate the shift, so the critical rule reads 2 of 3
    # against 0 of 4 (p 5/35 = .143, known flaky), not 12 of 13 against 0 of 4 (p 5/2380): not lost.
    from test_gate_family import _probed_control, _sampled

    def later(right: bool, n: int) -> list[SampleOutcome]:
        return [SampleOutcome(sample=i, status="answered", right=right) for i in range(1, n + 1)]

    base = _sampled(report("noisy_baseline"))
    other = next(c.case_id for c in base.per_case if c.case_id != "ret-008" and c.answerable)
    ten = {"samples": later(True, 9), "n_samples": 10, "n_right": 10}
    baseline = base.model_copy(
        update={
            "per_case": [c.model_copy(update=ten) if c.case_id == "ret-008" else c for c in base.per_case]
        }
    )
    lost = report("noisy_lost")
    fields = {"ret-008": {"samples": later(False, 4)}, other: {"samples": later(True, 4), "n_samples": 5}}
    candidate = lost.model_copy(
        update={"per_case": [c.model_copy(update=fields.get(c.case_id, {})) for c in lost.per_case]}
    )
    now = {c.case_id: c for c in lost.per_case}
    asked_now = {
        "ret-008": now["ret-008"]
        .model_copy(update={"n_samples": 3, "n_right": 2, "samples": []})
        .model_dump(),
        other: {**UNANSWERED, "n_samples": 3, "n_right": 0, "samples": []},
    }
    control, _ = _probed_control(baseline, asked_now)
    result = run_gate(baseline, candidate, control=control)
    assert result.decision.notes[0].startswith("the environment shifted since the baseline, not this PR")
    change = _broke(result.comparison.by_outcome("broke"), "ret-008")
    assert change.read is None and not change.lost
    assert change.loss_p == pytest.approx(5 / 35)
