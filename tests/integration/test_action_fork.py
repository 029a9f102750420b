"""Fork pull requests: the read-only run writes its result for an artifact, and `mode: comment` (from
`workflow_run`, without the pull request's code) posts it after checking it against the API."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from action_sim import PR, REPOSITORY, WORSE_CONFIG, Sim, Template, build_template, new_sim
from fakes.github_server import FakeGitHub

from cairn_action.gh.override import read_record, record_line
from cairn_action.report.models import OverrideRecord

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Template:
    return build_template(tmp_path_factory.mktemp("fork"))


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
    assert handoff["pr_number"] == PR and handoff["verdict"] == "regression"
    assert handoff["comment"] == (results / "default" / "comment.md").read_text(encoding="utf-8")
    assert (
        json.loads((results / "default" / "decision.json").read_text(encoding="utf-8"))["decision"][
            "exit_code"
        ]
        == 1
    )
    assert handoff["comment"] in result.summary
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
    expected = (base / "artifact" / "default" / "comment.md").read_text(encoding="utf-8")
    assert comment["body"].rstrip("\n") == expected.rstrip("\n")
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


def test_action__workflow_run__tampered_comment__mentions_broken_and_forged_override_dropped(
    sim: Sim,
) -> None:
    sim.fake.read_only = True
    assert sim.run("pull_request", sim.pr_event("opened")).code == 1
    sim.fake.read_only = False
    base = _download_artifact(sim)
    result_file = base / "artifact" / "default" / "result.json"
    forged = json.loads(result_file.read_text(encoding="utf-8"))
    head = sim.fake.pulls[PR]["head"]["sha"]
    record = OverrideRecord(
        pr=PR,
        actor="maint",
        label="cairn-override: trust me",
        reason="trust me",
        head_sha=head,
        at="2026-11-30T11:00:00Z",
    )
    forged["override"] = record.model_dump(mode="json")
    forged["comment"] += "\nping @octocat and see #1\n" + record_line(record) + "\n"
    result_file.write_text(json.dumps(forged), encoding="utf-8")

    result = sim.run(
        "workflow_run", _workflow_run(sim), workspace=base, inputs={"working-directory": "artifact"}
    )

    assert result.code == 0, result.stdout + result.stderr
    [comment] = sim.sticky()
    assert "@octocat" not in comment["body"] and "@\u200doctocat" in comment["body"]
    assert "#1" not in comment["body"]
    assert read_record(comment["body"]) is None
    assert "does not match GitHub's label events and roles" in result.stdout
