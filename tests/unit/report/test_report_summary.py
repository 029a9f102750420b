"""The terminal summary of `cairn eval` and `cairn score`: row, abstention, worst tags, counts."""

from __future__ import annotations

from test_report_build import _build, _calibration

from cairn_action.report.summary import abstention_line, summary_lines, worst_tags


def test_summary__uncalibrated__no_guarantee_whatever_guarantee_met_says() -> None:
    line = abstention_line(_build("all"))
    assert line.startswith("abstention: answered 69.2% of cases, 44.4% of them wrong (alpha 20.0%)")
    assert line.endswith("no guarantee: uncalibrated (model abstain flag)")


def test_summary__calibrated__says_whether_the_guarantee_held() -> None:
    held = abstention_line(_build("all", calibration=_calibration(0.6)))
    assert "answered 46.2% of cases, 16.7% of them wrong (alpha 20.0%)" in held
    assert "guarantee held: calibrated (threshold 0.6" in held
    missed = abstention_line(_build("all", calibration=_calibration(0.5)))
    assert "answered 61.5% of cases, 37.5% of them wrong (alpha 20.0%)" in missed
    assert "guarantee NOT held on this slice: calibrated (threshold 0.5" in missed


def test_summary__worst_tags__lowest_correct_rate_first_difficulties_left_out() -> None:
    line = worst_tags(_build("all"))
    # ties broken by size, then name; the errored safety case counts as not correct
    worst = "date 0.0% correct (n=1), multi_doc 0.0% correct (n=1), safety 0.0% correct (n=1)"
    assert line == f"worst tags: {worst}"
    assert "difficulty:" not in line


def test_summary__row_counts_and_promotion_note() -> None:
    text = "\n".join(summary_lines(_build("all")))
    assert "fixture: split all, 13 cases, golden set fixture-1" in text
    assert "| fixture " in text and "| config " in text
    assert "counted, not dropped: 1 error and 1 stale" in text
    assert "never a promotion decision" in text


def test_summary__threshold_withheld_answers__the_line_says_how_many() -> None:
    report = _build("all", calibration=_calibration(0.6))
    withheld = report.notes.counts["abstained_by_threshold"]
    assert withheld > 0
    line = abstention_line(report)
    assert f"; {withheld} answers withheld below the threshold 0.600" in line
    assert "withheld" not in abstention_line(_build("all"))  # no threshold, nothing withheld
