"""Baseline mode: a push to the default branch measures it and commits the reports (one commit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from action_sim import LATEST, PR, REPOSITORY, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

from cairn_action.action.override import record_line
from cairn_action.report.models import OverrideRecord

pytestmark = pytest.mark.slow

BETTER_CONFIG = """name = "default"

[corpus]
path = "corpus"

[golden]
path = "golden/golden.jsonl"

[retrieval]
top_k = 8
"""


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _push(sim: Sim, sha: str) -> dict[str, Any]:
    return {
        "ref": "refs/heads/main",
        "before": sim.base_sha,
        "after": sha,
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        "sender": {"login": "maint"},
    }


def _merge(sim: Sim, files: dict[str, str]) -> str:
    """A pull request merged into main: the push's commit, known to the fake's git data too."""
    sha = sim.commit(files, "Merge pull request #7")
    sim.fake.seed_commit({LATEST: sim.template.baseline}, sha=sha, parents=(sim.base_sha,), branch="main")
    return sha


def _merged_with_sticky_record(sim: Sim, push_sha: str) -> OverrideRecord:
    """Pull request #7, merged as `push_sha`, whose bot sticky comment records an override by `maint`
    (a maintainer) for its final head."""
    pr_head = "a" * 40
    sim.fake.add_pull(PR, head_sha=pr_head, base_sha=sim.base_sha, merged=True, merge_commit_sha=push_sha)
    record = OverrideRecord(
        pr=PR,
        actor="maint",
        label="cairn-override: known flake",
        reason="known flake",
        head_sha=pr_head,
        at="2026-11-30T11:00:00Z",
        overrode=["recall@5 fell"],
    )
    sticky = f"<!-- cairn:gate config=default -->\n### overridden\n\n{record_line(record)}\n"
    sim.fake.add_comment(PR, sticky, "github-actions[bot]")
    sim.fake.roles["maint"] = "maintain"
    return record


def test_action__push__changed_results__commits_reports_with_the_override(sim: Sim) -> None:
    push_sha = _merge(sim, {"cairn.toml": BETTER_CONFIG})
    record = _merged_with_sticky_record(sim, push_sha)
    sim.fake.add_label(PR, record.label, "maint", at=record.at)  # GitHub's own record of the override
    # A marker comment by a person carries no weight, however it is worded.
    forged = record.model_copy(update={"actor": "mallory", "reason": "forged"})
    sim.fake.add_comment(PR, f"<!-- cairn:gate config=default -->\n{record_line(forged)}\n", "mallory")

    result = sim.run("push", _push(sim, push_sha), sha=push_sha, ref="refs/heads/main")

    assert result.code == 0, result.stdout + result.stderr
    new_head = sim.fake.refs["heads/main"]
    commit = sim.fake.commits[new_head]
    assert commit["parents"] == [push_sha]
    assert "[skip ci]" in commit["message"]
    tree = sim.fake.trees[commit["tree"]]
    [kept] = [p for p in tree if p.startswith("reports/default-") and p.endswith(".json")]
    assert tree[kept] == (sim.workspace / kept).read_bytes()
    assert tree[kept] == tree[LATEST]
    assert "reports/leaderboard.md" in tree
    latest = json.loads(tree[LATEST])
    assert latest["notes"]["overrides"] == [record.model_dump(mode="json")]
    assert tree[LATEST] == (sim.workspace / LATEST).read_bytes()
    assert result.outputs["baseline-commit"] == new_head
    explorer = sim.workspace / result.outputs["explorer-path"]
    assert explorer.name == "explorer.html" and '"has_run":true' in explorer.read_text(encoding="utf-8")
    assert sim.secrets_in_files() == []


def test_action__push__nothing_changed__no_commit(sim: Sim) -> None:
    push_sha = _merge(sim, {"README.md": "docs only\n"})

    result = sim.run("push", _push(sim, push_sha), sha=push_sha, ref="refs/heads/main")

    assert result.code == 0, result.stdout + result.stderr
    assert "nothing to commit" in result.stdout
    assert sim.fake.refs["heads/main"] == push_sha
    assert not [r for r in sim.fake.requests if r.method in ("POST", "PATCH")]


def test_action__push__other_branch__refused(sim: Sim) -> None:
    push_sha = _merge(sim, {"README.md": "docs only\n"})

    result = sim.run(
        "push", {**_push(sim, push_sha), "ref": "refs/heads/feature"}, sha=push_sha, ref="refs/heads/feature"
    )

    assert result.code == 2
    assert "refreshes the default branch (main)" in result.stdout


def test_attack__stolen_token_writes_an_override_record_into_the_sticky_comment__not_believed(
    sim: Sim,
) -> None:
    # With the workflow's token, the bot's sticky comment can say anything; GitHub's label events cannot.
    push_sha = _merge(sim, {"cairn.toml": BETTER_CONFIG})
    _merged_with_sticky_record(sim, push_sha)  # and no label event of GitHub's behind it

    result = sim.run("push", _push(sim, push_sha), sha=push_sha, ref="refs/heads/main")

    assert result.code == 0, result.stdout + result.stderr
    assert "override record not believed" in result.stdout
    latest = json.loads(sim.fake.trees[sim.fake.commits[sim.fake.refs["heads/main"]]["tree"]][LATEST])
    assert latest["notes"]["overrides"] == []
