"""`cairn eval` (run + score + report), `cairn score`, `cairn calibrate` and `cairn bench`, end to end on the
embedded default: the seed-7 sample corpus (generated in a temporary folder) and the shipped golden set."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from repo_files import committed_copy

from cairn_action.cli import main
from cairn_action.golden.load import load_golden
from cairn_action.golden.split import split_golden
from cairn_action.report.io import read_calibration, read_report
from cairn_action.report.models import Report

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "golden" / "golden.jsonl"


def _recompute() -> Callable[[Report, object], None]:
    # The independent recomputation lives beside the unit tests; load it by path (tests are not a package).
    spec = importlib.util.spec_from_file_location(
        "report_recompute", REPO / "tests" / "unit" / "report_recompute.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.assert_aggregates_recompute


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh folder after `cairn eval` (what a fresh clone gets), kept for the tests that read it."""
    workdir = tmp_path_factory.mktemp("clone")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(workdir)
        assert main(["eval", "--no-progress"]) == 0
    return workdir


def _only(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.slow
def test_eval__fresh_clone__writes_both_report_files_identical(evaluated: Path) -> None:
    kept = _only(evaluated / "reports", "default-*.json")
    latest = evaluated / "reports" / "latest" / "default.json"
    assert kept.read_bytes() == latest.read_bytes()
    report = read_report(latest)
    assert report.split == "eval" and report.config_name == "default"
    assert report.notes.calibrated and report.notes.threshold_source.startswith("calibrated (threshold ")
    golden = load_golden(SHIPPED)
    split = split_golden(golden, seed=0, fraction=0.4)
    assert {r.case_id for r in report.per_case} == set(split.eval)


def test_eval__empty_folder__same_experiment_and_calibration_as_the_committed_cairn_toml_report(
    evaluated: Path, tmp_path: Path
) -> None:
    # The embedded default is cairn.toml's experiment *and* its committed calibration: a report made in a
    # folder without cairn.toml measures what the repository's committed report measured.
    here = read_report(evaluated / "reports" / "latest" / "default.json")
    committed = read_report(committed_copy("reports/latest/default.json", tmp_path))
    assert here.config_hash == committed.config_hash
    assert here.notes.threshold_source == committed.notes.threshold_source
    assert here.abstention.answer_rate == committed.abstention.answer_rate
    assert here.abstention.error_rate_answered == committed.abstention.error_rate_answered
    assert [(c.case_id, c.status) for c in here.per_case] == [
        (c.case_id, c.status) for c in committed.per_case
    ]
    assert not (evaluated / "default.calibration.json").exists()  # read from the shipped file, not copied


def test_eval__every_aggregate_recomputes_from_per_case_and_golden(evaluated: Path) -> None:
    report = read_report(evaluated / "reports" / "latest" / "default.json")
    assert report.n_cases > 0 and report.retrieval.n_with_support > 0
    _recompute()(report, load_golden(SHIPPED))


def test_eval__prints_row_abstention_line_and_worst_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| config " in out and "| default " in out
    assert "abstention: answered " in out and "guarantee held: calibrated (threshold " in out
    assert "held out: 48 of the golden set's 120 cases calibrate the abstention threshold" in out
    assert "worst tags: " in out
    assert "report: reports/default-" in out


def test_score__existing_artifact__same_numbers_without_corpus_or_cache(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    artifact = _only(evaluated / "reports" / "runs", "*.jsonl")
    copy = tmp_path / "run.jsonl"
    shutil.copy(artifact, copy)
    monkeypatch.chdir(tmp_path)  # no data/sample, no cache here: scoring needs neither
    assert main(["score", str(copy), "--reports", "out"]) == 0
    assert not (tmp_path / "data").exists() and not (tmp_path / ".cairn").exists()
    scored = json.loads((tmp_path / "out" / "latest" / "default.json").read_text(encoding="utf-8"))
    original = json.loads((evaluated / "reports" / "latest" / "default.json").read_text(encoding="utf-8"))
    for data in (scored, original):
        data.pop("created_at")
    assert scored == original


@pytest.mark.slow
def test_calibrate__writes_the_committed_file_and_eval_reports_its_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = REPO / "cairn.calibration.json"
    before = shipped.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert shipped.read_bytes() == before  # the embedded default reads the shipped file, never writes it
    calibration = read_calibration(tmp_path / "default.calibration.json")
    assert calibration is not None
    assert calibration.split.n_calibration == 48 and calibration.n_calibration == 48
    assert calibration.alpha == 0.2 and calibration.delta == 0.1 and calibration.k_min == 11
    if calibration.status == "certified":
        assert f"certified: threshold {calibration.threshold:g}" in out
    else:
        assert "not achievable: " in out and "to make it achievable: " in out and calibration.advice
    assert main(["eval", "--no-progress"]) == 0
    report = read_report(tmp_path / "reports" / "latest" / "default.json")
    assert report.notes.calibration is not None and report.notes.calibration["status"] == calibration.status
    assert report.notes.calibrated is (calibration.status == "certified")
    _recompute()(report, load_golden(SHIPPED))


@pytest.mark.slow
def test_calibrate__from_an_all_split_artifact__no_run(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    artifact = tmp_path / "all.jsonl"
    assert main(["eval", "--run-only", "--no-progress", "--artifact", str(artifact)]) == 0
    assert main(["calibrate", "--run", str(artifact)]) == 0
    calibration = read_calibration(tmp_path / "default.calibration.json")
    assert calibration is not None and calibration.source_runs == ["all.jsonl"]


def test_score__eval_only_artifact_asked_for_all__exit_2_naming_the_missing_cases(
    evaluated: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(evaluated)
    artifact = _only(evaluated / "reports" / "runs", "*.jsonl")
    assert main(["score", str(artifact), "--split", "all", "--reports", "elsewhere"]) == 2
    err = capsys.readouterr().err
    assert "no record for 48 case(s) of split all" in err and "hint:" in err and "Traceback" not in err


def test_score__damaged_artifact__exit_2_with_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    assert main(["score", str(bad)]) == 2
    assert f"{bad}:1: invalid JSON" in capsys.readouterr().err


def test_bench__writes_leaderboard_from_latest(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    latest = tmp_path / "reports" / "latest"
    latest.mkdir(parents=True)
    shutil.copy(evaluated / "reports" / "latest" / "default.json", latest / "default.json")
    assert main(["bench"]) == 0
    board = (tmp_path / "reports" / "leaderboard.md").read_text(encoding="utf-8")
    assert board.startswith("# Leaderboard\n") and "| default " in board and "Golden set version `1`" in board
    assert "leaderboard: 1 config(s) in 1 table(s)" in capsys.readouterr().out


def test_bench__no_reports__exit_2_with_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["bench"]) == 2
    assert "run `cairn eval`" in capsys.readouterr().err


def _working_copy(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Path:
    """A copy of the evaluated folder to run in: the cache and the sample come along, nothing is answered
    again, and the shared folder stays as the other tests expect it."""
    work = tmp_path / "clone"
    shutil.copytree(evaluated, work)
    monkeypatch.chdir(work)
    capsys.readouterr()
    return work


@pytest.mark.slow
def test_eval__split_all__keeps_reports_latest_the_eval_baseline(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _working_copy(evaluated, tmp_path, monkeypatch, capsys)
    latest = work / "reports" / "latest" / "default.json"
    baseline = latest.read_bytes()
    assert main(["eval", "--split", "all", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert latest.read_bytes() == baseline  # the next gate still compares eval with eval
    everything = read_report(_only(work / "reports" / "all", "default-*.json"))
    assert everything.split == "all" and everything.n_cases == 120
    assert (
        "reports/latest, the baseline pull requests are gated against, is only written by the eval split"
        in out
    )
    assert main(["bench"]) == 0
    assert "1 config(s) in 1 table(s)" in capsys.readouterr().out


def test_eval__json_dash__stdout_is_only_the_json_and_the_rest_goes_to_stderr(
    evaluated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = _working_copy(evaluated, tmp_path, monkeypatch, capsys)
    assert main(["eval", "--no-progress", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert (data["config"], data["split"], data["latest"]) == (
        "default",
        "eval",
        "reports/latest/default.json",
    )
    report = read_report(work / data["report"])
    assert data["metrics"]["answer_rate"] == report.abstention.answer_rate and data["calibrated"] is True
    assert data["counts"]["answered"] + data["counts"]["abstained"] == report.n_cases
    assert "| default " in err and "report: reports/default-" in err


@pytest.mark.slow
def test_calibrate__split_procedure_on_the_sample__not_achievable_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shipped calibration certifies 12 answers at delta 0.1; each half of the split tests at 0.05,
    # where zero errors need 14, and the 13th most confident answer is wrong (benchmarks/README.md).
    monkeypatch.chdir(tmp_path)
    assert main(["calibrate", "--no-progress", "--procedure", "split"]) == 0
    out = capsys.readouterr().out
    calibration = read_calibration(tmp_path / "default.calibration.json")
    assert calibration is not None and calibration.status == "not_achievable" and calibration.delta == 0.1
    assert "(fixed sequence at delta/2 = 0.05)" in calibration.reason
    assert "calibrate with --procedure fixed-sequence to see what would make this slice achievable" in out
