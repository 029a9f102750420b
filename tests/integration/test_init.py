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
    ".github/workflows/cairn-fork-comment.yml",
    ".github/workflows/cairn-baseline.yml",
    ".github/workflows/release-stamp.yml",
    ".github/cairn-two-jobs/cairn-two-jobs.yml",
    ".github/cairn-two-jobs/cairn-two-jobs-fork-gate.yml",
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


def test_init__both_gates__the_two_job_pair_is_inactive_and_each_says_when_to_use_which(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ruamel.yaml import YAML

    assert main(["init", str(tmp_path)]) == 0
    assert ".github/cairn-two-jobs/" in capsys.readouterr().out
    one = (tmp_path / ".github" / "workflows" / "cairn-pr.yml").read_text(encoding="utf-8")
    two = (tmp_path / ".github" / "cairn-two-jobs" / "cairn-two-jobs.yml").read_text(encoding="utf-8")
    fork = (tmp_path / ".github" / "cairn-two-jobs" / "cairn-two-jobs-fork-gate.yml").read_text(
        encoding="utf-8"
    )
    assert "needs nothing but Cairn" in one and "cairn-two-jobs.yml" in one
    assert "never both" in two and "cairn-pr.yml" in two
    assert "cairn-fork-comment.yml" in fork
    jobs = YAML(typ="safe").load(two)["jobs"]
    assert jobs["gate"]["needs"] == "evaluate"
    assert any(s.get("uses", "").startswith("owner/cairn/evaluate@") for s in jobs["evaluate"]["steps"])
    # the fork stage waits for the two-job workflow by its name
    assert YAML(typ="safe").load(fork)["on"]["workflow_run"]["workflows"] == [
        YAML(typ="safe").load(two)["name"]
    ]


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


def test_init__workflows_fit_the_project__corpus_key_branch_and_named_files_agree_and_lint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re
    import shutil
    import subprocess
    import tomllib

    from ruamel.yaml import YAML

    project = tmp_path / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(project)], check=True)
    assert main(["init", str(project)]) == 0
    capsys.readouterr()
    corpus = tomllib.loads((project / "cairn.toml").read_text(encoding="utf-8"))["corpus"]["path"]
    written = sorted((project / ".github").glob("*/*.yml"))  # workflows/ and the two-job variant
    assert {p.parent.name for p in written} == {"workflows", "cairn-two-jobs"}
    names = {p.name for p in written}
    for path in written:
        text = path.read_text(encoding="utf-8")
        YAML(typ="safe").load(text)  # parses
        for key in re.findall(r"hashFiles\('([^']+)'", text):
            assert key == f"{corpus}/**", (path.name, key)  # the cache key hashes the documents init wrote
        for named in re.findall(r"\b(cairn-[a-z-]+\.yml)\b", text):
            assert named in names, (path.name, named)  # every workflow a comment names is written
        for branches in re.findall(r"branches: \[([^\]]*)\]", text):
            assert branches == "trunk", (path.name, branches)  # the repository's default branch
    actionlint = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which(
        "actionlint"
    )
    assert actionlint, "actionlint is missing: pip install -e '.[dev]'"
    done = subprocess.run(
        [actionlint, "-no-color", *(str(p) for p in written)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_init__example_target__reads_every_suffix_cairn_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    request: pytest.FixtureRequest,
) -> None:
    project = tmp_path / "txt-project"
    assert main(["init", str(project)]) == 0
    docs = project / "docs"
    text = (docs / "returns-policy.md").read_text(encoding="utf-8")
    (docs / "returns-policy.md").unlink()
    (docs / "returns-policy.txt").write_text(text, encoding="utf-8")  # a .txt corpus: once 0 passages
    golden = project / "golden" / "golden.jsonl"
    golden.write_text(golden.read_text(encoding="utf-8").replace("returns-policy.md", "returns-policy.txt"))
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", list(sys.path))
    request.addfinalizer(lambda: sys.modules.pop("my_rag", None))
    sys.modules.pop("my_rag", None)
    capsys.readouterr()
    assert main(["eval", "--no-progress"]) == 0
    out = capsys.readouterr().out
    report = read_report(project / "reports" / "latest" / "my-rag.json")
    assert report.notes.nothing_returned == [] and "warning: the system" not in out
    assert report.retrieval.n_with_support > 0 and report.retrieval.recall_at_k["5"] > 0
