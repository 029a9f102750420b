"""The two-job flow: job `evaluate` runs the team's system in its own environment (packages Cairn does not
have, its own settings), job `gate` (`mode: gate`) runs only Cairn and decides on the uploaded run
artifact, which it treats as untrusted data. Job 1 is `cairn eval` run as the composite action runs it;
job 2 is the real entrypoint against the fake GitHub."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, PR, REPOSITORY, Sim, Template, build_template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow

RUN = Path("cairn-run") / "default" / "run.jsonl"

# The team's own system: it imports a package that exists only in the evaluate job's environment and reads
# a setting from it. Answers the first word of the question's best passage (a poor extractive system).
SYSTEM = """
import os

import ragdeps  # installed in the evaluate job only


def answer(question):
    return {"answer": ragdeps.shout(os.environ["RAG_STYLE"]), "passages": []}
"""
DEPS = "def shout(style):\n    return 'forty two' if style == 'plain' else 'FORTY TWO'\n"


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return build_template(tmp_path_factory.mktemp("two-jobs"))


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    sim = new_sim(template, tmp_path, fake_github)
    config = 'target = "python:mysystem:answer"\n' + CONFIG
    sim.open_pull(sim.commit({"cairn.toml": config, "mysystem.py": SYSTEM}, "our own system"))
    return sim


def _evaluate_job(sim: Sim) -> Path:
    """Job 1, in the team's environment: their package on the path, their setting, the base's baseline."""
    site = sim.root / "team-site"
    site.mkdir(exist_ok=True)
    (site / "ragdeps.py").write_text(DEPS, encoding="utf-8")
    baseline = sim.root / "base-baseline.json"
    baseline.write_bytes(sim.template.baseline)
    env = {**os.environ, "PYTHONPATH": str(site), "RAG_STYLE": "plain"}
    argv = ["eval", "--run-only", "--no-progress", "--split", "eval", "--judged-by-caller", "sampled"]
    argv += ["--baseline", str(baseline), "--artifact", str(RUN), "--cache-dir", str(sim.root / "team-cache")]
    done = subprocess.run(
        [sys.executable, "-m", "cairn_action", *argv],
        cwd=sim.workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return sim.workspace / RUN


def _gate_job(sim: Sim) -> Any:
    return sim.run(
        "pull_request", sim.pr_event("synchronize"), inputs={"mode": "gate", "run-artifact": "cairn-run"}
    )


def _rewrite(path: Path, change: Any) -> None:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    kept = [x for x in (change(line) for line in lines) if x is not None]
    path.write_text("".join(json.dumps(x) + "\n" for x in kept), encoding="utf-8")


def test_two_jobs__system_with_its_own_package_and_setting__evaluated_in_job_1_gated_in_job_2(
    sim: Sim,
) -> None:
    _evaluate_job(sim)

    result = _gate_job(sim)

    # The gate job never imported the system (it has no `ragdeps`): it judged the recorded answers.
    assert "No module named 'ragdeps'" not in result.stdout + result.stderr
    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "regression for default" in sticky["body"]
    kept = (sim.workspace / "cairn-results" / "default" / "run.jsonl").read_text(encoding="utf-8")
    assert '"forty two"' in kept


def test_attack__forged_verdicts_in_the_artifact__judged_again_in_the_gate_job(sim: Sim) -> None:
    artifact = _evaluate_job(sim)

    def forge(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("kind") == "case" and isinstance(line.get("judge"), dict):
            line["judge"]["correct"] = True
        return line

    _rewrite(artifact, forge)
    result = _gate_job(sim)

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    # Judged here: every "forty two" is wrong again, so the cases the baseline had right broke.
    [sticky] = sim.sticky()
    broke = re.search(r"\*\*(\d+) broke", sticky["body"])
    assert broke is not None and int(broke.group(1)) >= 20, sticky["body"][:400]
    kept = (sim.workspace / "cairn-results" / "default" / "run.jsonl").read_text(encoding="utf-8")
    assert '"correct":true' not in kept.replace(" ", "")


def test_attack__artifact_without_the_re_asks__incomplete_not_passed(sim: Sim) -> None:
    artifact = _evaluate_job(sim)
    _rewrite(artifact, lambda line: None if line.get("sample", 0) > 0 else line)

    result = _gate_job(sim)

    assert result.code == 3, result.stdout + result.stderr
    assert "did not re-ask" in result.stdout


def test_attack__artifact_of_another_experiment__refused(sim: Sim) -> None:
    artifact = _evaluate_job(sim)

    def other(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("kind") == "header":
            line["config_hash"] = "0" * 16
            line["golden_hash"] = "1" * 64
        return line

    _rewrite(artifact, other)
    result = _gate_job(sim)

    assert result.code == 2, result.stdout + result.stderr
    assert "the run artifact is not of this checkout: its config_hash 0000000000000000" in result.stdout
    assert "its golden set is not this checkout's" in result.stdout
    assert sim.sticky() == [] or "regression" not in sim.sticky()[0]["body"]


def test_two_jobs__no_artifact_for_the_config__one_line_exit_2(sim: Sim) -> None:
    result = _gate_job(sim)

    assert result.code == 2, result.stdout + result.stderr
    assert "input 'run-artifact': cairn-run is not a folder in the workspace" in result.stdout


def _workflow_run(sim: Sim) -> dict[str, Any]:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 556,
            "event": "pull_request",
            "head_sha": sim.fake.pulls[PR]["head"]["sha"],
            "head_repository": {"full_name": "contributor/rag"},
            "conclusion": "success",
            "pull_requests": [],  # empty for forks (actions/runner#3444)
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        "sender": {"login": "contributor"},
    }


def _fork_gate(sim: Sim) -> Any:
    """Job 2 for a fork: in the base repository from workflow_run, on the head checked out as data."""
    return sim.run(
        "workflow_run",
        _workflow_run(sim),
        inputs={"mode": "gate", "run-artifact": "cairn-run", "status": "true"},
    )


def test_two_jobs__fork__gated_from_workflow_run_and_posted(sim: Sim) -> None:
    sim.open_pull(sim.fake.pulls[PR]["head"]["sha"], fork=True)
    _evaluate_job(sim)
    (sim.workspace / "cairn-run" / "pr-number").write_text(f"{PR}\n", encoding="utf-8")

    result = _fork_gate(sim)

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    [sticky] = sim.sticky()
    assert "regression for default" in sticky["body"]
    [status] = sim.fake.statuses
    assert status["state"] == "failure" and status["sha"] == sim.fake.pulls[PR]["head"]["sha"]


def test_attack__fork_artifact_names_a_pull_request_at_another_head__not_gated(sim: Sim) -> None:
    sim.open_pull(sim.fake.pulls[PR]["head"]["sha"], fork=True)
    _evaluate_job(sim)
    (sim.workspace / "cairn-run" / "pr-number").write_text(f"{PR}\n", encoding="utf-8")
    payload = _workflow_run(sim)
    payload["workflow_run"]["head_sha"] = "f" * 40  # the run built another commit

    result = sim.run("workflow_run", payload, inputs={"mode": "gate", "run-artifact": "cairn-run"})

    assert result.code == 2, result.stdout + result.stderr
    assert "not gating" in result.stdout
    assert sim.sticky() == []


def test_attack__artifact_drops_the_cases_it_got_wrong__never_passed(sim: Sim) -> None:
    artifact = _evaluate_job(sim)
    dropped = {"ops-014", "saf-004", "una-102"}
    _rewrite(artifact, lambda line: None if line.get("case_id") in dropped else line)

    counted = _gate_job(sim)  # the header still counts 72 cases: refused as an edited artifact
    assert counted.code == 2, counted.stdout + counted.stderr
    assert "the header says n_cases 72, but the artifact holds 69" in counted.stdout

    def recount(line: dict[str, Any]) -> dict[str, Any]:
        if line.get("kind") == "header":
            line["n_cases"] = 69
        return line

    _rewrite(artifact, recount)
    recounted = _gate_job(sim)  # the golden set's eval split still has them: refused as missing
    assert recounted.code == 2, recounted.stdout + recounted.stderr
    assert "the run has no record for 3 case(s) of split eval" in recounted.stdout
    assert sim.sticky() == []
