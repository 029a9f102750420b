"""`cairn init`: a project in an empty folder that `cairn golden check` and `cairn eval` run as it is."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.report.io import read_report

WRITTEN = {
    "cairn.toml",
    "my_rag.py",
    "docs/returns-policy.md",
    "golden/golden.jsonl",
    "golden/golden.version",
    ".github/workflows/cairn-pr.yml",
    ".github/workflows/cairn-baseline.yml",
    ".github/workflows/release-stamp.yml",
}


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_init__empty_folder__golden_check_and_eval_run_with_no_edit_and_say_what_next(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    project = tmp_path / "my-project"
    assert main(["init", str(project)]) == 0
    out = capsys.readouterr().out
    assert _files(project) == WRITTEN
    assert f"cd {project} && cairn golden check" in out
    assert "owner/cairn@v1" in (project / ".github" / "workflows" / "cairn-pr.yml").read_text(
        encoding="utf-8"
    )

    monkeypatch.chdir(project)
    # The target is imported as `my_rag`: leave no module of that name (or its folder on the path) behind
    # for later tests with a my_rag.py of their own.
    monkeypatch.setattr(sys, "path", list(sys.path))
    request.addfinalizer(lambda: sys.modules.pop("my_rag", None))
    assert main(["golden", "check"]) == 0
    lines = capsys.readouterr().out.rstrip().splitlines()
    assert lines[-1].startswith("ok: 0 errors, 0 stale cases")
    assert "next: `cairn eval` runs these cases through the system and writes the report" in lines[-3:]
    assert main(["eval", "--no-progress"]) == 0
    out = capsys.readouterr().out
    report = read_report(project / "reports" / "latest" / "my-rag.json")
    assert report.notes.provider == "target" and report.notes.counts.get("error", 0) == 0
    assert "next: `cairn calibrate` fits the abstention threshold" in out
    assert "then commit reports/latest/my-rag.json: it is the baseline" in out


def test_init__a_file_exists__refuses_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "cairn.toml").write_text('name = "mine"\n', encoding="utf-8")
    assert main(["init", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path}: already has cairn.toml; nothing was written" in err
    assert "hint: `cairn init` never overwrites" in err
    assert _files(tmp_path) == {"cairn.toml"}
    assert (tmp_path / "cairn.toml").read_text(encoding="utf-8") == 'name = "mine"\n'
