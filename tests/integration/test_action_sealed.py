"""A sealed golden set through the Action (issue 28): the evaluation child and job `evaluate` hold the
questions only; the Action's trusted process and job `gate` open the key from the step's
`CAIRN_GOLDEN_KEY` and score. The attack is the oracle target of test_sealed_golden.py, in the pull
request: it reads every file it can and the environment for the answers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, LATEST, PR, Sim, Template, git, new_sim
from fakes.github_server import FakeGitHub
from test_sealed_golden import ORACLE

from cairn_action.gate.sealed import SEALED_NOTE
from cairn_action.golden.sealed import KEY_ENV
from cairn_action.golden.sealer import new_identity

pytestmark = pytest.mark.slow

SEALED_CONFIG = CONFIG.replace("golden/golden.jsonl", "golden/questions.jsonl")
RUN = Path("cairn-run") / "default" / "run.jsonl"


def _cairn(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    full.update(env or {})
    done = subprocess.run(
        [sys.executable, "-P", "-m", "cairn_action", *args], cwd=cwd, env=full, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def sealed(template: Template, tmp_path_factory: pytest.TempPathFactory) -> tuple[Template, str]:
    """The Action template with its golden set sealed (the plain set moved out of the repository) and its
    baseline measured with the key: what a team that seals its set commits."""
    root = tmp_path_factory.mktemp("sealed-template")
    repo = root / "template"
    shutil.copytree(template.path, repo, symlinks=True)
    identity, recipient = new_identity()
    plain = root / "plain"
    shutil.move(repo / "golden", plain)
    _cairn(repo, "golden", "seal", str(plain / "golden.jsonl"), "--out", "golden", "--recipient", recipient)
    (repo / "cairn.toml").write_text(SEALED_CONFIG, encoding="utf-8")
    shutil.rmtree(repo / "reports")
    _cairn(repo, "eval", "--no-progress", env={KEY_ENV: identity})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "seal the golden set")
    sealed = Template(
        path=repo,
        base_sha=git(repo, "rev-parse", "HEAD"),
        baseline=(repo / LATEST).read_bytes(),
        worse=template.worse,
    )
    return sealed, identity


@pytest.fixture
def sim(sealed: tuple[Template, str], tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(sealed[0], tmp_path, fake_github)


def _oracle_pull(sim: Sim) -> None:
    config = 'target = "python:oracle:answer"\n' + SEALED_CONFIG
    sim.open_pull(sim.commit({"cairn.toml": config, "oracle.py": ORACLE}, "a system that knows the answers"))


def _files_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="ignore") for p in folder.rglob("*") if p.is_file())


def test_sealed_action__committed_baseline__holds_no_answer_in_the_clear(
    sealed: tuple[Template, str],
) -> None:
    template, _ = sealed
    text = template.baseline.decode()
    # Aggregates stay readable (the leaderboard needs no key); no case's row does.
    assert "expected_answer" not in text and "answer_text" not in text and "com-001" not in text
    assert json.loads(text)["per_case_sealed"].startswith("-----BEGIN AGE ENCRYPTED FILE-----")
    assert not (template.path / "golden" / "golden.jsonl").exists()


def test_sealed_action__oracle_target_in_the_pull_request__finds_no_answer_and_is_gated(
    sim: Sim, sealed: tuple[Template, str]
) -> None:
    _oracle_pull(sim)

    result = sim.run("pull_request", sim.pr_event("opened"), extra_env={KEY_ENV: sealed[1]})

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    body = sticky["body"]
    assert "expected: (sealed)" in body and "(should abstain)" not in body
    assert SEALED_NOTE.split(":")[0] in body
    # Nothing the Action leaves for the upload holds the key's contents in the clear.
    key_fields = re.compile(rb'"expected_answer":\s*"(?!\(sealed\))|"answerable":\s*false|"quote":')
    leaking = [
        str(p.relative_to(sim.workspace))
        for p in (sim.workspace / "cairn-results").rglob("*")
        if p.is_file() and key_fields.search(p.read_bytes())
    ]
    assert leaking == []
    # The oracle found nothing to copy: it abstained on every case (the report opens with the key).
    from cairn_action.report.io import read_report

    with pytest.MonkeyPatch.context() as env:
        env.setenv(KEY_ENV, sealed[1])
        report = read_report(sim.workspace / "cairn-results" / "default" / "report.json")
    assert report.notes.counts["answered"] == 0


def test_sealed_action__key_listed_for_the_evaluation__refused_exit_2(
    sim: Sim, sealed: tuple[Template, str]
) -> None:
    _oracle_pull(sim)

    result = sim.run(
        "pull_request", sim.pr_event("opened"), inputs={"env": KEY_ENV}, extra_env={KEY_ENV: sealed[1]}
    )

    assert result.code == 2, result.stdout + result.stderr
    assert (
        f"input 'env': {KEY_ENV} (the sealed golden set's key) never reaches the evaluation" in result.stdout
    )
    assert sealed[1] not in result.stdout + result.stderr


def test_sealed_action__no_key_in_the_step__one_line_exit_2(sim: Sim) -> None:
    _oracle_pull(sim)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert "sealed" in error and f"{KEY_ENV} is not set" in error


def _evaluate_job(sim: Sim) -> Path:
    """Job 1 without the key: the composite action's command, the base's (sealed) baseline."""
    baseline = sim.root / "base-baseline.json"
    baseline.write_bytes(sim.template.baseline)
    argv = ["eval", "--run-only", "--no-progress", "--split", "eval", "--judged-by-caller", "sampled"]
    argv += ["--baseline", str(baseline), "--artifact", str(RUN), "--cache-dir", str(sim.root / "team-cache")]
    _cairn(sim.workspace, *argv)
    return sim.workspace / RUN


def test_sealed_two_jobs__evaluate_without_the_key__gate_job_scores_with_it(
    sim: Sim, sealed: tuple[Template, str]
) -> None:
    _oracle_pull(sim)
    artifact = _evaluate_job(sim)
    header: dict[str, Any] = json.loads(artifact.read_text(encoding="utf-8").splitlines()[0])
    assert header["sealed"] is True and header["split"] == "all"

    result = sim.run(
        "pull_request",
        sim.pr_event("synchronize"),
        inputs={"mode": "gate", "run-artifact": "cairn-run"},
        extra_env={KEY_ENV: sealed[1]},
    )

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "expected: (sealed)" in sticky["body"]


def test_sealed_fork__evaluated_without_secrets__scored_by_the_trusted_workflow_run_gate(
    sim: Sim, sealed: tuple[Template, str]
) -> None:
    from test_action_two_jobs import _workflow_run

    _oracle_pull(sim)
    sim.open_pull(sim.fake.pulls[PR]["head"]["sha"], fork=True)
    _evaluate_job(sim)  # the fork's pull_request run: no secrets, so no key
    (sim.workspace / "cairn-run" / "pr-number").write_text(f"{PR}\n", encoding="utf-8")

    result = sim.run(
        "workflow_run",
        _workflow_run(sim),
        inputs={"mode": "gate", "run-artifact": "cairn-run", "status": "true"},
        extra_env={KEY_ENV: sealed[1]},
    )

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "expected: (sealed)" in sticky["body"]


def test_sealed_action__attack_probes_asked__refused_in_one_line(
    sim: Sim, sealed: tuple[Template, str]
) -> None:
    """The probes are built from the set's answers inside the evaluation, which never holds the key."""
    _oracle_pull(sim)

    result = sim.run(
        "pull_request", sim.pr_event("opened"), inputs={"attack": "true"}, extra_env={KEY_ENV: sealed[1]}
    )

    assert result.code == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "the attack probes are built from its answers" in result.stdout
