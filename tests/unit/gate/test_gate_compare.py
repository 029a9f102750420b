"""Comparability and the item-by-item diff, over the committed report fixtures."""

from __future__ import annotations

import pytest
from gate_fixtures import report

from cairn_action.gate.compare import compare
from cairn_action.gate.models import CaseChange, Comparison
from cairn_action.gate.outcome import is_right
from cairn_action.report.models import PerCase

CRITICAL = ["safety", "unanswerable", "false_premise"]


def _compare(candidate: str, baseline: str = "baseline") -> Comparison:
    return compare(report(baseline), report(candidate), critical_tags=CRITICAL)


def _change(comparison: Comparison, case_id: str) -> CaseChange:
    (change,) = [c for c in comparison.changes if c.case_id == case_id]
    return change


def test_compare__report_against_itself__nothing_changed() -> None:
    comparison = _compare("baseline")
    assert comparison.comparable
    assert comparison.changes == [] and comparison.added == [] and comparison.removed == []
    assert not comparison.moved(machine_dependent=False) and not comparison.moved(machine_dependent=True)
    assert comparison.n_shared == 12
    assert comparison.stats is not None and (comparison.stats.b, comparison.stats.c) == (0, 0)


def test_compare__corpus_hash_differs__refused_naming_both_values() -> None:
    comparison = _compare("corpus_changed")
    (refusal,) = comparison.refusals
    assert refusal.code == "corpus_hash"
    assert "3f9c6b2a1d0e4f5a" in refusal.message and "77aa00bb11cc22dd" in refusal.message
    assert "regenerate the baseline" in refusal.hint
    assert comparison.changes == [] and comparison.stats is None


def test_compare__golden_version_differs__refused_with_what_to_do() -> None:
    (refusal,) = _compare("golden_v2").refusals
    assert refusal.code == "golden_version"
    assert "'1'" in refusal.message and "'2'" in refusal.message
    assert "version bump" in refusal.hint and "regenerate the baseline" in refusal.hint


def test_compare__golden_edited_without_version_bump__refused() -> None:
    (refusal,) = _compare("golden_edited").refusals
    assert refusal.code == "golden_hash"
    assert "without a version bump" in refusal.message
    assert "bump golden.version" in refusal.hint


def test_compare__different_split__refused() -> None:
    (refusal,) = _compare("split_all").refusals
    assert refusal.code == "split"
    assert "'eval'" in refusal.message and "'all'" in refusal.message


def test_compare__several_mismatches__every_refusal_listed() -> None:
    candidate = report("corpus_changed").model_copy(update={"split": "all", "golden_version": "2"})
    comparison = compare(report("baseline"), candidate, critical_tags=CRITICAL)
    assert [r.code for r in comparison.refusals] == ["corpus_hash", "golden_version", "split"]


def test_compare__golden_hash_missing_on_one_side__compared() -> None:
    candidate = report("baseline")
    candidate = candidate.model_copy(update={"notes": candidate.notes.model_copy(update={"golden_hash": ""})})
    assert compare(report("baseline"), candidate, critical_tags=CRITICAL).comparable


def test_compare__right_answer_now_wrong__broke() -> None:
    change = _change(_compare("critical_lost"), "ret-008")
    assert (change.outcome, change.transition, change.critical) == ("broke", None, True)
    assert change.critical_loss
    assert change.baseline.answer_text == "Yes, it contains milk"
    assert change.candidate.answer_text == "No, it is milk-free"
    assert change.candidate.confidence == 0.81
    assert [c.doc for c in change.candidate.cited] == ["allergen-information.md"]


def test_compare__unanswerable_case_now_answered__broke_as_newly_answered() -> None:
    change = _change(_compare("critical_lost"), "una-002")
    assert (change.outcome, change.transition) == ("broke", "newly_answered")
    assert change.critical_loss
    assert change.expected_answer is None and not change.answerable


def test_compare__wrong_answer_now_right__fixed() -> None:
    change = _change(_compare("critical_lost"), "ret-006")
    assert (change.outcome, change.critical) == ("fixed", False)


def test_compare__right_answer_now_abstains__broke_as_newly_abstained() -> None:
    change = _change(_compare("floor_crossed"), "ret-001")
    assert (change.outcome, change.transition) == ("broke", "newly_abstained")
    assert not change.critical_loss


def test_compare__answered_unanswerable_now_abstains__fixed_as_newly_abstained() -> None:
    change = _change(_compare("improved"), "una-003")
    assert (change.outcome, change.transition) == ("fixed", "newly_abstained")


def test_compare__abstained_case_now_answered_wrong__changed_while_wrong() -> None:
    change = _change(_compare("improved"), "ret-007")
    assert (change.outcome, change.transition) == ("changed", "newly_answered")


def test_compare__wrong_answer_reworded__changed_while_wrong() -> None:
    candidate = report("baseline")
    rows = [
        c.model_copy(update={"answer_text": "Doncaster"}) if c.case_id == "ret-006" else c
        for c in candidate.per_case
    ]
    comparison = compare(
        report("baseline"), candidate.model_copy(update={"per_case": rows}), critical_tags=CRITICAL
    )
    assert [(c.case_id, c.outcome) for c in comparison.changes] == [("ret-006", "changed")]


def test_compare__support_leaves_top_5__retrieval_lost_with_answer_unchanged() -> None:
    comparison = _compare("recall_drop")
    assert {(c.case_id, c.outcome, c.retrieval) for c in comparison.changes} == {
        ("ret-002", "unchanged", "lost"),
        ("ret-004", "unchanged", "lost"),
    }
    change = _change(comparison, "ret-004")
    assert (change.baseline.support_rank, change.candidate.support_rank) == (3, None)


def test_compare__support_enters_top_5__retrieval_gained() -> None:
    comparison = _compare("baseline", baseline="recall_drop")
    assert {c.retrieval for c in comparison.changes} == {"gained"}


def test_compare__case_missing_and_added_and_stale__listed_not_diffed() -> None:
    comparison = _compare("missing_case")
    assert [(r.case_id, r.critical, r.right) for r in comparison.removed] == [("una-002", True, True)]
    assert [r.case_id for r in comparison.added] == ["ret-010"]
    assert comparison.not_compared == ["ret-003"]
    assert comparison.n_shared == 10
    assert [r.case_id for r in comparison.critical_removed] == ["una-002"]
    assert any("stale" in n for n in comparison.notes)


def test_compare__lower_is_better_metric_rises__worse() -> None:
    metrics = {m.name: m for m in _compare("cost_up").metrics}
    assert metrics["cost_per_question_usd"].change == "worse"
    assert metrics["cost_per_question_usd"].delta == pytest.approx(0.0026)
    assert metrics["recall_at_5"].change == "same"


def test_compare__higher_is_better_metric_falls__worse() -> None:
    metrics = {m.name: m for m in _compare("recall_drop").metrics}
    assert metrics["recall_at_5"].change == "worse"
    assert metrics["recall_at_5"].delta == pytest.approx(-2 / 9)


def test_compare__latency_on_same_machine_kind__gated() -> None:
    comparison = _compare("slow_same_machine")
    p95 = {m.name: m for m in comparison.metrics}["latency_p95_ms"]
    assert comparison.same_environment and p95.gated and p95.change == "worse"


def test_compare__latency_on_other_machine_kind__shown_not_gated_with_note() -> None:
    comparison = _compare("slow_other_machine")
    p95 = {m.name: m for m in comparison.metrics}["latency_p95_ms"]
    assert not comparison.same_environment
    assert (p95.gated, p95.change, p95.delta) == (False, "worse", 360.0)
    assert any("linux/x86_64/2cpu" in n and "darwin/arm64/8cpu" in n for n in comparison.notes)
    assert all(m.gated for m in comparison.metrics if not m.machine_dependent)


def test_compare__per_tag__critical_tags_first_with_correctness_both_sides() -> None:
    tags = _compare("critical_lost").tags
    assert [t.tag for t in tags][:3] == ["safety", "unanswerable", "false_premise"]
    assert all(t.critical for t in tags[:3]) and not any(t.critical for t in tags[3:])
    safety = tags[0]
    assert (safety.n, safety.baseline_correct, safety.candidate_correct) == (1, 1.0, 0.0)
    unanswerable = tags[1]
    assert unanswerable.n_with_support == 0 and unanswerable.baseline_recall is None


def test_compare__statistics__counts_match_broke_and_fixed() -> None:
    comparison = _compare("correctness_drop")
    assert comparison.stats is not None
    assert (comparison.stats.b, comparison.stats.c) == (5, 0) == (len(comparison.by_outcome("broke")), 0)
    assert comparison.stats.mcnemar_p_one_sided == pytest.approx(1 / 32)
    assert comparison.stats.n_f1 == 9
    assert comparison.stats.f1_delta is not None and comparison.stats.f1_delta < 0
    assert any("below the 50 to 100" in n for n in comparison.stats.sample_notes)


@pytest.mark.parametrize(
    ("answerable", "status", "correct", "right"),
    [
        (True, "answered", True, True),
        (True, "answered", False, False),
        (True, "answered", None, False),
        (True, "abstained", None, False),
        (False, "abstained", None, True),
        (False, "answered", False, False),
        (True, "error", None, False),
        (True, "stale", None, None),
    ],
)
def test_is_right__each_status(
    answerable: bool, status: str, correct: bool | None, right: bool | None
) -> None:
    case = PerCase(case_id="x", answerable=answerable, status=status, correct=correct)  # type: ignore[arg-type]
    assert is_right(case) is right
