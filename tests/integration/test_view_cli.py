"""`cairn view`: the page for a report, with its run and a baseline; bad input is one line and exit 2."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from explorer_kit import REPO, SCORING, Page, _scoring_report_and_records, assert_self_contained

from cairn_action.cli import main
from cairn_action.report.io import dumps

REPORTS = Path(__file__).resolve().parents[1] / "data" / "reports"


def _page(path: Path) -> Page:
    return assert_self_contained(path.read_text(encoding="utf-8"))


def test_cli_view__report_and_its_run__page_with_retrieved_chunks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built, _ = _scoring_report_and_records()
    report = tmp_path / "fixture.json"
    report.write_text(dumps(built), encoding="utf-8")
    out = tmp_path / "page.html"

    assert main(["view", str(report), "--run", str(SCORING / "run.jsonl"), "--out", str(out)]) == 0

    printed = capsys.readouterr().out
    assert f"explorer: {out} (" in printed and f"{len(built.per_case)} cases" in printed
    assert out.resolve().as_uri() in printed
    data = _page(out).data
    assert data["has_run"] is True
    assert all(c["retrieved"] for c in data["cases"] if c["status"] != "stale")


def test_cli_view__baseline__item_diff_at_the_default_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(REPORTS / "baseline.json", tmp_path / "baseline.json")
    shutil.copy(REPORTS / "critical_lost.json", tmp_path / "candidate.json")

    assert main(["view", "candidate.json", "--baseline", "baseline.json"]) == 0

    out = tmp_path / ".cairn" / "explorer" / "candidate-vs-baseline.html"
    assert f"explorer: {Path('.cairn/explorer/candidate-vs-baseline.html')}" in capsys.readouterr().out
    data = _page(out).data
    assert data["diff"]["order"] and data["cases"][0]["id"]


def test_cli_view__incomparable_baseline__page_without_diff_and_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "page.html"

    code = main(
        [
            "view",
            str(REPORTS / "corpus_changed.json"),
            "--baseline",
            str(REPORTS / "baseline.json"),
            "--out",
            str(out),
        ]
    )

    assert code == 0
    assert "note: no item diff: the reports measured different corpora" in capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    assert _page(out).data["diff"] is None and "Gate: refused to compare" in html


def test_cli_view__run_of_another_config__refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "view",
            str(REPO / "reports" / "latest" / "default.json"),
            "--run",
            str(SCORING / "run.jsonl"),
            "--out",
            str(tmp_path / "page.html"),
        ]
    )

    assert code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(
        f"error: {SCORING / 'run.jsonl'}: not the run this report was scored from: its config_hash"
    )
    assert err[1].startswith("hint: pass the run artifact")
    assert not (tmp_path / "page.html").exists()


def test_cli_view__missing_report__exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(tmp_path / "nope.json")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'nope.json'}: report not found")
