"""The per-case verdicts and the confirmation plan read a case's first 3 baseline samples; the shift test all
of them, and the critical rule's Fisher test too, against the candidate's samples after the first (issue 23
round 5, test_gate_whole_read.py): a baseline of 10 samples sharpens both without making coin flips look
stable."""

from __future__ import annotations

import pytest
from gate_fixtures import report

from cairn_action.gate import run_gate
from cairn_action.gate.confirm import confirmation_plan
from cairn_action.gate.control import first_pass_tables
from cairn_action.gate.outcome import rule_samples
from cairn_action.report.models import PerCase, Report, SampleOutcome

UNANSWERED = {"status": "answered", "answer_text": "Yes, it is.", "correct": False}


def _with_samples(row: PerCase, later: list[bool]) -> PerCase:
    """`row` (right on its first ask) with `later` samples after it, in the order asked."""
    samples = [
        SampleOutcome(sample=i, status=row.status, right=right) for i, right in enumerate(later, start=1)
    ]
    return row.model_copy(update={"samples": samples, "n_samples": 1 + len(later), "n_right": 1 + sum(later)})


def _baseline(case: str, later: list[bool]) -> Report:
    base = report("noisy_baseline")
    rows = [_with_samples(c, later) if c.case_id == case else c for c in base.per_case]
    return base.model_copy(update={"per_case": rows})


def _changed(baseline: Report, case: str, fields: dict[str, object]) -> Report:
    rows = [c.model_copy(update=fields) if c.case_id == case else c for c in baseline.per_case]
    return baseline.model_copy(update={"per_case": rows})


def test_gate__critical_case_10_of_10_in_the_baseline_now_2_of_5__verdict_on_3_fisher_on_all_10() -> None:
    # The verdict (broke) reads the baseline's first 3; Fisher reads all 10 against the 4 samples after the
    # candidate's first: right in 2 of 4, p = 66/1001 = .066 > 0.05 (half of critical_max_p): not lost.
    baseline = _baseline("una-001", [True] * 9)
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 2})
    result = run_gate(baseline, candidate)
    assert [r for r in result.decision.reasons if r.code == "critical_case_lost"] == []
    (change,) = [c for c in result.comparison.by_outcome("broke") if c.case_id == "una-001"]
    assert change.loss_p == pytest.approx(66 / 1001)
    assert change.baseline.n_samples == 3 and change.baseline.n_right == 3


def test_gate__critical_case_right_in_3_of_3_baseline_samples_now_0_of_5__still_lost() -> None:
    baseline = _baseline("una-001", [True] * 9)
    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 0})
    reasons = run_gate(baseline, candidate).decision.reasons
    assert [r.subject for r in reasons if r.code == "critical_case_lost"] == ["una-001"]


def test_confirmation_plan__baseline_wrong_in_samples_2_and_3_right_after__verdict_of_the_first_3() -> None:
    # 8 of 10 right overall (verdict right), 1 of the first 3 (verdict wrong): a right answer now differs
    # from the verdict the rules read, so the case is confirmed.
    baseline = _baseline("una-001", [False, False] + [True] * 7)
    assert confirmation_plan(baseline, report("noisy_baseline"), extra=4, asked={}) == {"una-001": 5}


def test_rule_samples__baseline_of_3_samples__unchanged() -> None:
    baseline = _baseline("una-001", [True, False])
    assert rule_samples(baseline) == baseline


def test_rule_samples__errored_later_sample__skipped_and_the_next_usable_one_read() -> None:
    row = _with_samples(report("noisy_baseline").per_case[0], [True, True, False, True])
    samples = [row.samples[0].model_copy(update={"status": "error", "right": None}), *row.samples[1:]]
    row = row.model_copy(update={"samples": samples, "n_samples": 4, "n_right": 3})
    base = report("noisy_baseline").model_copy(update={"per_case": [row]})
    (kept,) = rule_samples(base).per_case
    assert (kept.n_samples, kept.n_right, [s.sample for s in kept.samples]) == (3, 2, [2, 3])


def test_shift_test__baseline_of_10_samples__reads_all_of_them() -> None:
    baseline = _baseline("una-001", [True] * 9)
    tables = first_pass_tables(baseline, report("noisy_baseline"))
    assert sorted({t[1] for t in tables}) == [1, 3, 10]


def test_gate_with_control__unchanged_case_of_10_baseline_samples__correctness_test_reads_its_first_3() -> (
    None
):
    from test_gate_family import _control

    candidate = _changed(report("noisy_baseline"), "una-001", {**UNANSWERED, "n_samples": 5, "n_right": 0})
    reasked = {"una-001": {"n_samples": 3, "n_right": 3}}

    def samples_before(baseline: Report) -> int:
        stats = run_gate(baseline, candidate, control=_control(baseline, reasked)).comparison.stats
        assert stats is not None
        return stats.samples_before

    assert samples_before(_baseline("una-002", [True] * 9)) == samples_before(
        _baseline("una-002", [True, True])
    )
