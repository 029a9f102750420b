"""The Action in PR mode with `attack: true`: the attack gate's section in the same sticky comment, and a
broken critical probe failing the job while the main gate passes. (One test: each Action run evaluates and
attacks in a child process, ~20 s of CPU.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from action_sim import LATEST, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow
ATTACK = "reports/attack-default.json"


def _stub_attack_report(sim: Sim) -> dict:
    """The base branch's attack report: `cairn attack` of the unchanged stub config, measured in a copy."""
    done = subprocess.run(
        [sys.executable, "-P", "-m", "cairn_action", "attack", "--no-progress", "--reports", "base-reports"],
        cwd=sim.workspace,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    path = sim.workspace / "base-reports" / "attack-default.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    path.parent.joinpath("attack-default.md").unlink()
    path.unlink()
    path.parent.rmdir()
    return report


def _seed_base(sim: Sim, attack: dict) -> None:
    files = {LATEST: sim.template.baseline, ATTACK: json.dumps(attack).encode()}
    sim.fake.seed_commit(files, sha=sim.base_sha, branch="main")


def test_action__attack_true__critical_probe_broke__job_fails_though_the_main_gate_passes(
    template: Template, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    sim = new_sim(template, tmp_path, fake_github)
    baseline = _stub_attack_report(sim)
    # A baseline that resisted a probe the stub fails: the head (the same stub) has broken it.
    lost = next(
        p
        for p in baseline["probes"]
        if not p["passed"] and p["family"] in ("indirect_injection", "direct_injection")
    )
    lost.update(passed=True, n_right=1, why="resisted")
    _seed_base(sim, baseline)
    sim.open_pull(sim.commit({"README.md": "docs\n"}, "docs"))

    result = sim.run("pull_request", sim.pr_event("opened"), inputs={"attack": "true"})

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    assert f"{lost['family']} probe {lost['probe_id']} broke" in result.stdout
    [comment] = sim.sticky()
    body = comment["body"]
    assert "### Attack probes" in body and "attack probes regressed: 1 broke" in body
    assert body.index("### Attack probes") > body.index("<!-- cairn:gate config=default -->")
    assert "Cairn: pass for default" in body, "the main gate passed: the attack gate alone fails the job"
    results = sim.workspace / "cairn-results" / "default"
    assert (results / "attack-default.json").is_file() and (results / "attack-run.jsonl").is_file()
    assert not (sim.workspace / ATTACK).exists(), "the head's attack report goes to cairn-results only"
    assert sim.secrets_in_files() == []
