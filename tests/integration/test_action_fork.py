"""Fork pull requests: the read-only run writes its result for an artifact, and `mode: comment` (from
`workflow_run`, without the pull request's code) posts it after checking it against the API."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from action_sim import PR, REPOSITORY, WORSE_CONFIG, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    sim = new_sim(template, tmp_path, fake_github)
    head = sim.commit({"cairn.toml": WORSE_CONFIG}, "retrieve one chunk")
    sim.open_pull(head, fork=True)
    return sim


def _workflow_run(sim: Sim, *, conclusion: str = "failure", head_sha: str | None = None) -> dict[str, Any]:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 555,
            "event": "pull_request",
            "head_sha": head_sha or sim.fake.pulls[PR]["head"]["sha"],
            "head_repository": {"full_name": "contributor/rag"},
            "conclusion": conclusion,
            "pull_requests": [],  # empty for forks (actions/runner#3444)
        },
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        "sender": {"login": "contributor"},
    }


def _download_artifact(sim: Sim) -> Path:
    """The comment stage's workspace: the base repository's, holding only the downloaded artifact."""
    base = sim.root / "base-workspace"
    shutil.copytree(sim.workspace / "cairn-results", base / "artifact")
    return base


def test_action__fork_pull_request__read_only__writes_the_artifact(sim: Sim) -> None:
    sim.fake.read_only = True  # a fork's token: every write would answer 403

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    assert "::notice title=Cairn%3A fork pull request::" in result.stdout
    assert [r for r in sim.fake.requests if r.method != "GET"] == []
    assert sim.comments() == []
    results = sim.workspace / "cairn-results"
    assert (results / "pr-number").read_text(encoding="utf-8") == f"{PR}\n"
    handoff = json.loads((results / "default" / "result.json").read_text(encoding="utf-8"))
    assert handoff["pr_number"] == PR and handoff["config_name"] == "default"
    assert handoff["report"]["config_name"] == "default"  # data, not markdown
    assert "comment" not in handoff and "verdict" not in handoff
    assert (
        json.loads((results / "default" / "decision.json").read_text(encoding="utf-8"))["decision"][
            "exit_code"
        ]
        == 1
    )
    assert (results / "default" / "comment.md").read_text(encoding="utf-8") in result.summary
    assert sim.secrets_in_files() == []


def test_action__workflow_run__comment_stage__posts_after_checking_the_pull_request(sim: Sim) -> None:
    sim.fake.read_only = True
    first = sim.run("pull_request", sim.pr_event("opened"))
    assert first.code == 1
    sim.fake.read_only = False
    base = _download_artifact(sim)

    result = sim.run(
        "workflow_run",
        _workflow_run(sim),
        workspace=base,
        inputs={"working-directory": "artifact", "status": "true"},
    )

    assert result.code == 0, result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "❌ Cairn: regression for default" in comment["body"]  # decided and rendered here
    assert result.outputs["verdict"] == "regression"
    [status] = sim.fake.statuses
    assert status["state"] == "failure" and status["context"] == "cairn/default"
    assert status["sha"] == sim.fake.pulls[PR]["head"]["sha"]
    assert result.outputs["comment-url"] == comment["html_url"]

    # Run again (a re-run of the workflow_run): the same comment is edited, not duplicated.
    again = sim.run(
        "workflow_run", _workflow_run(sim), workspace=base, inputs={"working-directory": "artifact"}
    )
    assert again.code == 0
    assert [c["id"] for c in sim.comments()] == [comment["id"]]


def test_action__workflow_run__artifact_for_another_head__refused(sim: Sim) -> None:
    sim.fake.read_only = True
    assert sim.run("pull_request", sim.pr_event("opened")).code == 1
    sim.fake.read_only = False
    base = _download_artifact(sim)
    sim.fake.add_pull(8, head_sha="f" * 40, base_sha=sim.base_sha, fork=True, author="contributor")
    result_file = base / "artifact" / "default" / "result.json"
    forged = json.loads(result_file.read_text(encoding="utf-8"))
    forged["pr_number"] = 8  # point the comment at someone else's pull request
    result_file.write_text(json.dumps(forged), encoding="utf-8")

    result = sim.run(
        "workflow_run", _workflow_run(sim), workspace=base, inputs={"working-directory": "artifact"}
    )

    assert result.code == 2, result.stdout + result.stderr
    assert "not posting" in result.stdout
    assert sim.comments() == [] and sim.fake.issue_comments(8) == []


def test_attack__fork_artifact_carries_its_own_comment__trusted_stage_renders_from_data(sim: Sim) -> None:
    sim.fake.read_only = True
    assert sim.run("pull_request", sim.pr_event("opened")).code == 1
    sim.fake.read_only = False
    base = _download_artifact(sim)
    folder = base / "artifact"
    fake = (
        "<!-- cairn:gate config=default -->\n### ✅ Cairn: pass, overridden by maint\n\n"
        "![](https://track.example/pixel.png) [log in again](https://phish.example) @octocat\n"
    )
    result_file = folder / "default" / "result.json"
    forged = json.loads(result_file.read_text(encoding="utf-8"))
    if "comment" in forged:  # the comment the fork's run wrote, as the comment stage used to post it
        forged.update(comment=fake, verdict="pass", headline="pass")
    result_file.write_text(json.dumps(forged), encoding="utf-8")
    (folder / "default" / "comment.md").write_text(fake, encoding="utf-8")
    # And a result for a config the base branch does not define, for a second comment and status.
    invented = json.loads(json.dumps(forged).replace('"default"', '"invented"'))
    (folder / "invented").mkdir()
    (folder / "invented" / "result.json").write_text(json.dumps(invented), encoding="utf-8")

    result = sim.run(
        "workflow_run",
        _workflow_run(sim),
        workspace=base,
        inputs={"working-directory": "artifact", "status": "true"},
    )

    [comment] = sim.sticky()
    body = comment["body"]
    assert not any(x in body for x in ("track.example", "phish.example", "overridden by maint", "@octocat"))
    assert "❌ Cairn: regression for default" in body
    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    assert [c for c in sim.comments() if "invented" in c["body"]] == []
    assert [s["context"] for s in sim.fake.statuses] == ["cairn/default"]
    assert "which no config of `config:` defines on the base branch: ignored" in result.stdout
