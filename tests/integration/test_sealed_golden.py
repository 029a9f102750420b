"""A sealed golden set end to end through the CLI: the system under test sees the questions, never the
answers (issue 28). The shipped golden set and the sample corpus, sealed with a fresh age identity; the
stub system and an "oracle" target that searches every file it can read and the environment for the answer
key."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cairn_action.golden.sealed import KEY_ENV
from cairn_action.golden.sealer import new_identity
from cairn_action.report.io import read_report

REPO = Path(__file__).resolve().parents[2]
PLAIN: list[Path] = []
"""Where the project fixture keeps the plain golden set (outside the project)."""

# Reads every file below the working folder and its parent, and the environment, for a JSON line whose
# question is this one and which carries the expected answer; abstains when it finds none. With a plain
# golden set in the checkout it answers every answerable case right.
ORACLE = r"""
import json
import os
from pathlib import Path

_KEY = {}


def _scan():
    for root in {Path.cwd(), Path.cwd().parent}:
        for path in root.rglob("*"):
            try:
                if not path.is_file() or path.stat().st_size > 4_000_000:
                    continue
                text = path.read_text(encoding="utf-8", errors="ignore")
            except OSError:
                continue
            for line in text.splitlines():
                if '"question"' not in line:
                    continue
                try:
                    case = json.loads(line)
                except ValueError:
                    continue
                if isinstance(case, dict) and "question" in case and "answerable" in case:
                    _KEY[case["question"]] = case
    for value in os.environ.values():
        if value.startswith("AGE-SECRET-KEY-1"):
            _KEY["__identity__"] = value


def answer(question):
    if not _KEY:
        _scan()
        _KEY.setdefault("__scanned__", True)
    case = _KEY.get(question)
    if case is None:
        return {"answer": None, "passages": []}
    if case.get("answerable") is False:
        return {"answer": None, "passages": []}
    return {"answer": case.get("expected_answer"), "passages": []}
"""


def _cairn(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "cairn_action", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A project with the shipped golden set sealed into golden/ (no plain copy left), the plain set
    kept outside it, the sample corpus, and the identity that opens the key."""
    root = tmp_path_factory.mktemp("sealed")
    identity, recipient = new_identity()
    # The plain set lives elsewhere (where the documents live), out of the oracle's reach.
    plain = tmp_path_factory.mktemp("elsewhere") / "golden"
    shutil.copytree(REPO / "golden", plain)
    project = root / "project"
    project.mkdir()
    done = _cairn(project, "corpus", "generate", "--out", "data/sample")
    assert done.returncode == 0, done.stderr
    done = _cairn(
        project, "golden", "seal", str(plain / "golden.jsonl"), "--out", "golden", "--recipient", recipient
    )
    assert done.returncode == 0, done.stderr
    PLAIN[:] = [plain]
    return project, identity


def _config(project: Path, name: str, extra: str = "", golden: str = "golden/questions.jsonl") -> None:
    (project / f"{name}.toml").write_text(f'name = "{name}"\n{extra}\n[golden]\npath = "{golden}"\n')


@pytest.mark.slow  # whole runs of the sample corpus: 8 to 30 s each on the shared cores
def test_sealed__run_without_the_key_then_score_with_it__the_plain_evaluation_case_for_case(
    project: tuple[Path, str],
) -> None:
    root, identity = project
    _config(root, "sealed")
    _config(root, "plain", golden=str(PLAIN[0] / "golden.jsonl"))

    run = _cairn(
        root,
        "eval",
        "--config",
        "sealed.toml",
        "--run-only",
        "--artifact",
        "sealed-run.jsonl",
        "--no-progress",
    )
    assert run.returncode == 0, run.stderr
    header = json.loads((root / "sealed-run.jsonl").read_text().splitlines()[0])
    assert header["sealed"] is True and header["split"] == "all"
    no_key = _cairn(
        root, "score", "--config", "sealed.toml", "sealed-run.jsonl", "--reports", "sealed-reports"
    )
    assert no_key.returncode == 2 and "Traceback" not in no_key.stderr
    assert f"the golden set is sealed and {KEY_ENV} is not set" in no_key.stderr
    scored = _cairn(
        root,
        "score",
        "--config",
        "sealed.toml",
        "sealed-run.jsonl",
        "--reports",
        "sealed-reports",
        env={KEY_ENV: identity},
    )
    assert scored.returncode == 0, scored.stderr
    plain = _cairn(root, "eval", "--config", "plain.toml", "--no-progress")
    assert plain.returncode == 0, plain.stderr

    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, identity)
        opened = read_report(root / "sealed-reports" / "latest" / "sealed.json")
    sealed_report = opened.model_dump(mode="json")
    plain_report = json.loads((root / "reports" / "latest" / "plain.json").read_text())
    for part in ("retrieval", "answer", "abstention"):
        assert sealed_report[part] == plain_report[part]
    ignored = {"latency_ms"}
    sealed_rows = {
        r["case_id"]: {k: v for k, v in r.items() if k not in ignored} for r in sealed_report["per_case"]
    }
    plain_rows = {
        r["case_id"]: {k: v for k, v in r.items() if k not in ignored} for r in plain_report["per_case"]
    }
    assert sealed_rows == plain_rows
    assert sealed_report["notes"]["golden_hash"] != plain_report["notes"]["golden_hash"]  # the pair's hash


def test_sealed__run_only_with_the_key_in_its_environment__refused_before_anything_runs(
    project: tuple[Path, str],
) -> None:
    root, identity = project
    _config(root, "keyed")
    done = _cairn(
        root,
        "eval",
        "--config",
        "keyed.toml",
        "--run-only",
        "--artifact",
        "keyed.jsonl",
        env={KEY_ENV: identity},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{KEY_ENV} is set in the environment of a run-only evaluation" in done.stderr
    assert not (root / "keyed.jsonl").exists()


@pytest.mark.slow  # whole runs of the sample corpus: 8 to 30 s each on the shared cores
def test_sealed__run_only_of_the_eval_split__every_case_run_the_scorer_picks_the_split(
    project: tuple[Path, str],
) -> None:
    root, identity = project
    _config(root, "split")
    done = _cairn(
        root, "eval", "--config", "split.toml", "--run-only", "--split", "eval", "--artifact", "s.jsonl"
    )
    assert done.returncode == 0, done.stderr
    assert "is sealed and its split needs the key: running every case" in done.stderr
    header = json.loads((root / "s.jsonl").read_text().splitlines()[0])
    assert header["split"] == "all" and header["n_cases"] == 120
    scored = _cairn(
        root,
        "score",
        "--config",
        "split.toml",
        "s.jsonl",
        "--reports",
        "split-reports",
        env={KEY_ENV: identity},
    )
    assert scored.returncode == 0, scored.stderr
    report = json.loads((root / "split-reports" / "latest" / "split.json").read_text())
    assert report["split"] == "eval" and report["n_cases"] == 72
    # The committed baseline of a sealed set holds its cases encrypted: none of the key in the clear.
    text = (root / "split-reports" / "latest" / "split.json").read_text()
    assert report["per_case"] == [] and report["per_case_sealed"].startswith(
        "-----BEGIN AGE ENCRYPTED FILE-----"
    )
    assert "expected_answer" not in text and "12 hours" not in text


def test_sealed__plain_golden_set_left_beside_the_sealed_one__run_refused(
    project: tuple[Path, str], tmp_path: Path
) -> None:
    root, _ = project
    folder = tmp_path / "golden"
    shutil.copytree(root / "golden", folder)
    shutil.copyfile(REPO / "golden" / "golden.jsonl", folder / "golden.jsonl")
    _config(root, "leaky", golden=str(folder / "questions.jsonl"))
    done = _cairn(root, "eval", "--config", "leaky.toml", "--run-only", "--artifact", "leaky.jsonl")
    assert done.returncode == 2
    assert "the answer key in plain text beside the sealed set" in done.stderr


def test_sealed__wrong_identity_or_not_an_identity__one_line_exit_2(project: tuple[Path, str]) -> None:
    root, _ = project
    other, _ = new_identity()
    wrong = _cairn(root, "golden", "check", "--golden", "golden", env={KEY_ENV: other})
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    first = f"error: {Path('golden') / 'golden.key.age'}: the answer key does not open with {KEY_ENV}"
    assert wrong.stderr.splitlines()[0] == first
    garbage = _cairn(root, "golden", "check", "--golden", "golden", env={KEY_ENV: "hunter2-not-a-key"})
    assert garbage.returncode == 2 and "hunter2" not in garbage.stderr
    assert f"{KEY_ENV}: not an age identity" in garbage.stderr


@pytest.mark.slow  # whole runs of the sample corpus: 8 to 30 s each on the shared cores
def test_oracle_target__plain_golden_set_in_the_checkout__reads_the_answers(tmp_path: Path) -> None:
    """The attack the sealed set exists for: with the plain set in the checkout, a target that reads files
    answers every answerable case right."""
    shutil.copytree(REPO / "golden", tmp_path / "golden")
    assert _cairn(tmp_path, "corpus", "generate", "--out", "data/sample").returncode == 0
    (tmp_path / "oracle.py").write_text(ORACLE)
    _config(tmp_path, "oracle-plain", 'target = "python:oracle:answer"', golden="golden/golden.jsonl")
    done = _cairn(tmp_path, "eval", "--config", "oracle-plain.toml", "--no-progress")
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "reports" / "latest" / "oracle-plain.json").read_text())
    assert report["answer"]["exact_match"] > 0.9


@pytest.mark.slow  # whole runs of the sample corpus: 8 to 30 s each on the shared cores
def test_oracle_target__sealed_set__finds_no_answer_and_is_scored_as_the_system_it_is(
    project: tuple[Path, str],
) -> None:
    root, identity = project
    (root / "oracle.py").write_text(ORACLE)
    _config(root, "oracle", 'target = "python:oracle:answer"')
    run = _cairn(
        root, "eval", "--config", "oracle.toml", "--run-only", "--artifact", "oracle.jsonl", "--no-progress"
    )
    assert run.returncode == 0, run.stderr
    scored = _cairn(
        root,
        "score",
        "--config",
        "oracle.toml",
        "oracle.jsonl",
        "--split",
        "all",
        "--reports",
        "oracle-reports",
        env={KEY_ENV: identity},
    )
    assert scored.returncode == 0, scored.stderr
    [kept] = (root / "oracle-reports" / "all").glob("oracle-*.json")  # split all: never the latest
    report = json.loads(kept.read_text())
    # It found nothing to copy, so it abstained on every case: nothing answered, nothing right.
    assert report["notes"]["counts"]["answered"] == 0
    assert all(row["status"] == "abstained" for row in report["per_case"])
