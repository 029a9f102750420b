"""`cairn demo` for real (stub answerer, sample corpus, offline), then `cairn gate` on its reports."""

from __future__ import annotations

from pathlib import Path

import pytest
from explorer_kit import assert_self_contained
from repo_files import committed_copy

from cairn_action.cli import main
from cairn_action.gate.models import GateResult
from cairn_action.report.io import read_report

pytestmark = pytest.mark.slow  # two evaluations of the sample: about five seconds


def test_cli_demo__default_vs_worse_variant__comment_written_and_gate_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    comment = tmp_path / ".cairn" / "demo" / "comment.md"
    assert f"the comment a pull request would show: {Path('.cairn/demo/comment.md')}" in out
    body = comment.read_text(encoding="utf-8")
    assert body.startswith("<!-- cairn:gate config=worse -->")
    assert "### ❌ Cairn: regression for worse against baseline default" in body
    result = GateResult.model_validate_json((tmp_path / ".cairn" / "demo" / "gate.json").read_text("utf-8"))
    broke = result.comparison.by_outcome("broke")
    assert broke and result.decision.status == "regression"
    assert any(r.subject == "recall_at_5" for r in result.decision.reasons)
    # The baseline is the embedded default, which is cairn.toml's experiment with its committed calibration.
    baseline = read_report(tmp_path / ".cairn" / "demo" / "default.json")
    committed = read_report(committed_copy("reports/latest/default.json", tmp_path / "git"))
    assert baseline.notes.calibrated and baseline.notes.threshold_source == committed.notes.threshold_source
    assert baseline.abstention.answer_rate == committed.abstention.answer_rate
    # The variant has its own calibration, fitted for it, never the default's (fitted for another system).
    variant = read_report(tmp_path / ".cairn" / "demo" / "worse.json")
    assert variant.notes.calibration is not None and "stale" not in str(variant.notes.calibration)
    # The case explorer of the comparison: every case of the variant, its run's chunks, the gate's diff.
    assert f"(open it in a browser): {Path('.cairn/demo/explorer.html')}" in out
    page = assert_self_contained((tmp_path / ".cairn" / "demo" / "explorer.html").read_text(encoding="utf-8"))
    worse = read_report(tmp_path / ".cairn" / "demo" / "worse.json")
    assert [c["id"] for c in page.data["cases"]] == [c.case_id for c in worse.per_case]
    assert page.data["has_run"] is True and all(c["retrieved"] for c in page.data["cases"])
    assert sorted(page.data["diff"]["order"]) == sorted(c.case_id for c in result.comparison.changes)

    # The same two reports through `cairn gate`: exit 1 listing what broke; a report against itself passes.
    reports = tmp_path / ".cairn" / "demo"
    code = main(["gate", str(reports / "default.json"), str(reports / "worse.json")])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith(f"regression: {len(broke)} broke")
    assert f"broke: {', '.join(sorted(c.case_id for c in broke))}" in out
    assert (
        main(
            [
                "gate",
                str(reports / "default.json"),
                str(reports / "default.json"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.startswith("pass: no change")
