"""The shipped experiments: cairn.toml is the embedded default, the variants differ in one knob, their
committed calibrations were fitted for them, and the committed leaderboard is `cairn bench` of the
committed reports."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from repo_files import committed_copy

from cairn_action.config import config_hash, embedded_default, is_shipped_golden, load_config
from cairn_action.golden.load import load_golden
from cairn_action.golden.split import split_golden
from cairn_action.report.io import read_calibration, read_latest_reports
from cairn_action.report.leaderboard import render_leaderboard
from cairn_action.score.calibration.committed import system_hash

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = [ROOT / "cairn.toml", *sorted((ROOT / "configs").glob("*.toml"))]


def test_cairn_toml__same_experiment_as_the_embedded_default(tmp_path: Path) -> None:
    shipped = load_config(ROOT / "cairn.toml")
    embedded = embedded_default(tmp_path)
    assert shipped.config.name == "default"
    assert config_hash(shipped.config) == config_hash(embedded.config)
    assert shipped.golden_path.resolve() == embedded.golden_path.resolve()


@pytest.mark.parametrize("path", CONFIGS[1:], ids=lambda p: p.stem)
def test_variant__named_for_its_file__same_corpus_golden_and_cache_as_default(path: Path) -> None:
    default = load_config(ROOT / "cairn.toml")
    variant = load_config(path)
    assert variant.config.name == path.stem
    assert config_hash(variant.config) != config_hash(default.config)
    assert variant.corpus_dir.resolve() == default.corpus_dir.resolve()
    assert variant.golden_path.resolve() == default.golden_path.resolve()
    assert variant.cache_dir.resolve() == default.cache_dir.resolve()


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_committed_calibration__fitted_for_this_config_and_golden_set(path: Path) -> None:
    loaded = load_config(path)
    calibration = read_calibration(loaded.calibration_path)
    command = f"cairn calibrate --config {path.relative_to(ROOT)}"
    assert calibration is not None, f"no calibration committed for {path.name} (`{command}`)"
    golden = load_golden(loaded.golden_path)
    cal = loaded.config.calibration
    split = split_golden(golden, seed=cal.seed, fraction=cal.fraction).summary()
    assert calibration.config_name == loaded.config.name
    assert calibration.system_hash == system_hash(loaded.config), "config changed: run `cairn calibrate`"
    assert calibration.golden_hash == golden.content_hash, "golden set changed: run `cairn calibrate`"
    assert (calibration.alpha, calibration.delta) == (cal.alpha, cal.delta)
    assert calibration.split.calibration_ids_hash == split.calibration_ids_hash


def test_committed_leaderboard__is_bench_of_the_committed_reports(tmp_path: Path) -> None:
    # What git holds, not the working tree: `cairn eval` (the README's first command) rewrites
    # reports/latest/default.json with this machine's timings, which is not a change to commit.
    reports_dir = committed_copy("reports", tmp_path)
    reports = [r for _, r in read_latest_reports(reports_dir)]
    assert reports, "no reports committed under reports/latest: run `cairn eval` for each config"
    board = reports_dir / "leaderboard.md"
    assert board.is_file(), (
        "reports/latest has reports but reports/leaderboard.md is missing: run `cairn bench`"
    )
    assert board.read_text(encoding="utf-8") == render_leaderboard(reports), "run `cairn bench` and commit"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_committed_copy__working_tree_rewritten_after_commit__reads_what_git_holds(tmp_path: Path) -> None:
    repo = tmp_path / "clone"
    (repo / "reports" / "latest").mkdir(parents=True)
    latest = repo / "reports" / "latest" / "default.json"
    latest.write_text('{"committed": true}\n', encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "reports")
    latest.write_text('{"rewritten by cairn eval": true}\n', encoding="utf-8")  # README command 1
    (repo / "reports" / "default-20261201T000000Z.json").write_text("{}\n", encoding="utf-8")  # untracked

    copied = committed_copy("reports", tmp_path / "pinned", repo=repo)

    assert (copied / "latest" / "default.json").read_text(encoding="utf-8") == '{"committed": true}\n'
    assert sorted(p.name for p in copied.rglob("*") if p.is_file()) == ["default.json"]


def test_committed_copy__not_a_git_checkout__reads_the_working_tree(tmp_path: Path) -> None:
    tree = tmp_path / "unpacked"
    (tree / "reports").mkdir(parents=True)
    (tree / "reports" / "leaderboard.md").write_text("# board\n", encoding="utf-8")
    copied = committed_copy("reports/leaderboard.md", tmp_path / "pinned", repo=tree)
    assert copied.read_text(encoding="utf-8") == "# board\n"


def test_is_shipped_golden__the_file_or_a_byte_copy__yes_an_edited_copy__no(tmp_path: Path) -> None:
    shipped = ROOT / "golden" / "golden.jsonl"
    copy = tmp_path / "golden.jsonl"
    copy.write_bytes(shipped.read_bytes())  # a checkout's golden/ seen from a non-editable install
    assert is_shipped_golden(shipped) and is_shipped_golden(copy)
    copy.write_bytes(shipped.read_bytes() + b"\n")
    assert not is_shipped_golden(copy) and not is_shipped_golden(tmp_path / "missing.jsonl")
