"""A shipped variant run outside this checkout (an installed package, the config copied into a project):
its calibration is the `.calibration.json` beside the config file, found wherever the file goes; without it
the summary says where it looked and how to fit one, rather than silently reporting an uncalibrated run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.report.io import read_report

pytestmark = pytest.mark.slow  # two evaluations of the sample per test

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("with_calibration", [True, False], ids=["calibration-copied", "config-only"])
def test_eval__shipped_variant_outside_the_checkout__calibrated_or_told_where_to_put_one(
    with_calibration: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "top-k-3.toml", tmp_path / "configs")
    if with_calibration:
        shutil.copy(REPO / "configs" / "top-k-3.calibration.json", tmp_path / "configs")
    shutil.copytree(REPO / "golden", tmp_path / "golden")
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--config", "configs/top-k-3.toml", "--no-progress"]) == 0
    out = capsys.readouterr().out
    report = read_report(tmp_path / "reports" / "latest" / "top-k-3.json")
    assert report.notes.calibrated is with_calibration
    if with_calibration:
        assert "next:" not in out
    else:
        assert "(there is none at configs/top-k-3.calibration.json: commit it there)" in out
        assert "next: `cairn calibrate --config configs/top-k-3.toml` fits the abstention threshold" in out
