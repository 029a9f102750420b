"""The shift note also reads the base system's asks of the changed cases, against the baseline samples
that did not choose the case (issue 23, round 8)."""

from __future__ import annotations

from gate_fixtures import assert_matches_expected, report

from cairn_action.gate import run_gate
from cairn_action.gate.control import first_pass_tables, probe_tables, reask_tables, shift_note
from cairn_action.gate.stats import weighted_drop
from cairn_action.report.models import ControlNote, PerCase, Report, SampleOutcome


def _samples(row: PerCase, answers: list[bool]) -> PerCase:
    """`row` with `answers` as its samples in the order asked (the first is the row's own)."""
    later = [
        SampleOutcome(sample=i, status=row.status if a == answers[0] else "answered", right=a)
        for i, a in enumerate(answers[1:], start=1)
    ]
    return row.model_copy(update={"n_samples": len(answers), "n_right": sum(answers), "samples": later})


def _baseline(ret_008: list[bool]) -> Report:
    """noisy_baseline with 10 samples of every case, each its first verdict, and `ret_008`'s given."""
    from cairn_action.gate.outcome import is_right

    base = report("noisy_baseline")
    rows = [
        _samples(c, ret_008 if c.case_id == "ret-008" else [bool(is_right(c))] * 10) for c in base.per_case
    ]
    return base.model_copy(update={"per_case": rows})


def _with_row(report_: Report, case: str, update: dict[str, object]) -> Report:
    rows = [c.model_copy(update=update) if c.case_id == case else c for c in report_.per_case]
    return report_.model_copy(update={"per_case": rows})


def _candidate(baseline: Report, first_then_reasks: list[bool]) -> Report:
    """The baseline's first pass, with ret-008 asked as given (its first ask, then its re-asks)."""
    rows = []
    for c in baseline.per_case:
        row = c.model_copy(update={"n_samples": 1, "n_right": None, "samples": []})
        if c.case_id == "ret-008":
            wrong_first = {"correct": first_then_reasks[0], "answer_text": "No, it is dairy-free."}
            row = _samples(row.model_copy(update=wrong_first), first_then_reasks)
        rows.append(row)
    return baseline.model_copy(update={"per_case": rows})


def _control(baseline: Report, right: int, asked: int) -> Report:
    """A base control re-asking ret-008 `asked` times now, right `right` times."""
    control = _with_row(baseline, "ret-008", {"n_samples": asked, "n_right": right, "samples": []})
    note = ControlNote(cases=["ret-008"], samples=asked, calls=asked, cost_usd=0.0)
    return control.model_copy(update={"notes": control.notes.model_copy(update={"control": note})})


# ret-008: right in its first 3 baseline samples (which set the verdict the candidate's first ask differs
# from) and in 6 of the 7 after them.
RET_008 = [True] * 9 + [False]


def test_reask_tables__changed_case__the_base_systems_asks_against_the_baseline_samples_after_3() -> None:
    baseline = _baseline(RET_008)
    control = _control(baseline, right=1, asked=3)
    # Before: samples 4 to 10 (6 of 7 right). Now: the base system's 3 asks (1 right). Neither the PR's first
    # ask (which chose the case; it is in the first pass) nor its re-asks (they measure the PR too).
    assert reask_tables(baseline, control, ["ret-008"]) == [(6, 7, 1, 3)]
    assert reask_tables(baseline, control, []) == []  # only the control's cases


def test_reask_tables__baseline_of_3_samples__nothing_the_choice_did_not_read() -> None:
    baseline = _baseline([True, True, True])
    assert reask_tables(baseline, _control(baseline, 1, 3), ["ret-008"]) == []


def test_shift_note__first_pass_alone_not_moved__the_base_systems_asks_now_say_it_shifted() -> None:
    baseline = _baseline(RET_008)
    candidate = _candidate(baseline, [False, False, True, False, True])
    control = _control(baseline, right=1, asked=3)
    # Alone, the first pass is one wrong answer of a case right in 9 of 10 samples: p = 2/11, no shift.
    alone = weighted_drop(first_pass_tables(baseline, candidate) + probe_tables(baseline, []))
    assert alone.p_one_sided > 0.1
    result = run_gate(baseline, candidate, control=control)
    shift = shift_note(baseline, control, candidate, result.comparison.stats)
    # With the base system's 3 asks now (2 wrong, where the baseline's last 7 samples had 1), it moved; the
    # base system is as wrong now as the PR's re-asks (1 of 3, 2 of 4), so the PR is cleared.
    assert (shift.said, shift.cleared) == (True, True)
    assert shift.sentence.startswith(
        "the environment shifted since the baseline, not this PR: answers now (every case's first ask and "
        "the base system's 3 asks of the 1 changed case) are right in "
    )
    decision = result.decision
    assert decision.status == "pass"
    assert decision.headline.endswith("; the environment shifted since the baseline, not this PR")
    # What the pull request sees: the note names the base system's asks among the answers now.
    from cairn_action.render.markdown import render_comment

    body = render_comment(result, trend=None)
    assert "the base system's 3 asks of the 1 changed case" in body
    assert_matches_expected("pass_environment_shifted_base_asks.md", body)
