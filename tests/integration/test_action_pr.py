"""The Action in PR mode, end to end: the real entrypoint in a simulated runner against the fake GitHub."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from action_sim import LATEST, PR, WORSE_CONFIG, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow

# An outage as GitHub can answer one: 503 with `Retry-After`. PyGithub's retry (urllib3's Retry) then waits
# the 1 s asked for before each of its 6 retries instead of its back-off (0, 1, 2, 4, 8, 16 s: 31 s for
# every request that exhausts them, about 99 s for the contents-API test alone); every retry still
# happens. `Retry-After: 0` would not do: urllib3 takes a zero as absent and backs off. The back-off
# without `Retry-After` is pinned in tests/unit/gh/test_retry_policy.py.
OUTAGE = {"status": 503, "times": 100, "headers": {"Retry-After": "1"}}


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _regressing_pull(sim: Sim) -> str:
    head = sim.commit({"cairn.toml": WORSE_CONFIG}, "retrieve one chunk")
    sim.open_pull(head)
    return head


def test_action__pull_request__no_baseline__passes_with_notice(
    template: Template, tmp_path: Path, fake_github: FakeGitHub
) -> None:
    sim = new_sim(template, tmp_path, fake_github, seed_baseline=False)
    head = sim.commit({"README.md": "docs\n"}, "docs")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 0, result.stdout + result.stderr
    assert "::notice title=Cairn (default)%3A no baseline::" in result.stdout
    assert "mode: baseline" in result.stdout
    assert result.outputs["verdict"] == "no-baseline"
    [comment] = sim.sticky()
    assert "no baseline on the base branch yet" in comment["body"]
    assert "reports/latest/default.json" in comment["body"]
    assert sim.secrets_in_files() == []


def test_action__pull_request__unchanged__passes_and_comments(sim: Sim) -> None:
    head = sim.commit({"README.md": "a docs change\n"}, "docs")
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"), api_suffix="/api/v3")  # GHES-style API URL

    assert result.code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "pass"
    [comment] = sim.sticky()
    assert comment["user"]["type"] == "Bot"
    assert result.outputs["comment-url"] == comment["html_url"]
    assert result.outputs["primary-metric"] == "token_f1"
    assert float(result.outputs["token-f1"]) > 0
    assert (sim.workspace / result.outputs["report-path"]).is_file()
    assert (sim.workspace / result.outputs["comment-path"]).read_text(encoding="utf-8") == comment["body"]
    assert comment["body"] in result.summary
    assert all(r.path.startswith("/repos/acme/rag") or r.path == "/_fake/state" for r in sim.fake.requests)
    assert not any(r.path == "/user" for r in sim.fake.requests)
    assert f"::add-mask::{sim.token}" in result.stdout and f"::add-mask::{sim.api_key}" in result.stdout
    assert sim.secrets_in_files() == []
    # The evaluation was told the base branch's baseline, so it confirms what changed (the stub needs none).
    assert "confirmation against default.baseline.json: none needed, the system is deterministic" in (
        result.stdout
    )


def test_action__pull_request__regression__fails_with_reasons(sim: Sim) -> None:
    _regressing_pull(sim)

    result = sim.run("pull_request", sim.pr_event("synchronize"))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    assert "::error title=Cairn (default)%3A gate failed::" in result.stdout
    [comment] = sim.sticky()
    assert "Critical cases lost" in comment["body"] or "critical case" in comment["body"]
    decision = json.loads((sim.workspace / "cairn-results/default/decision.json").read_text(encoding="utf-8"))
    assert decision["decision"]["status"] == "regression"
    # The case explorer beside the comment, with the run's retrieved chunks and the gate's diff; the
    # comment points to this run's artifacts.
    assert result.outputs["explorer-path"] == "cairn-results/default/explorer.html"
    html = (sim.workspace / result.outputs["explorer-path"]).read_text(encoding="utf-8")
    data = json.loads(
        html.split('<script type="application/json" id="cairn-data">', 1)[1].split("</script>")[0]
    )
    assert data["has_run"] is True and data["diff"]["order"]
    assert "://" not in html
    assert (
        "`cairn-explorer` artifact of [this run](https://github.example/acme/rag/actions/runs/"
        in comment["body"]
    )
    assert sim.secrets_in_files() == []


def test_action__pull_request__second_run__edits_the_same_comment(sim: Sim) -> None:
    head = sim.commit({"README.md": "docs\n"}, "docs")
    sim.open_pull(head)
    first = sim.run("pull_request", sim.pr_event("opened"))
    [before] = sim.sticky()

    second = sim.run("pull_request", sim.pr_event("reopened"))

    assert first.code == second.code == 0
    [after] = sim.sticky()
    assert after["id"] == before["id"]
    assert len(sim.comments()) == 1
    assert [r.method for r in sim.fake.requests if r.path.endswith(f"/issues/comments/{after['id']}")] == [
        "PATCH"
    ]


def test_action__pull_request__two_concurrent_runs__leave_one_comment(sim: Sim) -> None:
    head = sim.commit({"README.md": "docs\n"}, "docs")
    sim.open_pull(head)
    # Both runs list the comments and find none, then both create: the fake holds the first create
    # until the second arrives, which is the race at its worst.
    sim.fake.barrier("POST", r"/repos/acme/rag/issues/7/comments", parties=2)

    # Two jobs, two runners: each run in a checkout of its own, as on GitHub (in one shared folder the
    # second run may find the first's cairn-results/ and refuse, exit 2, before it reaches the race).
    second = sim.root / "workspace-2"
    shutil.copytree(sim.workspace, second, symlinks=True)
    procs = [
        sim.run("pull_request", sim.pr_event("opened"), background=True, workspace=w)
        for w in (sim.workspace, second)
    ]
    results = [sim.wait(p) for p in procs]  # type: ignore[arg-type]

    assert [r.code for r in results] == [0, 0], results[0].stdout + results[1].stdout
    creates = [
        r for r in sim.fake.requests if r.method == "POST" and r.path.endswith(f"/issues/{PR}/comments")
    ]
    assert len(creates) == 2
    assert len(sim.sticky()) == 1
    assert len(sim.comments()) == 1


def test_action__pull_request__pr_edits_reports_latest__still_compared_with_base_copy(sim: Sim) -> None:
    # The pull request regresses and replaces the committed baseline with its own, worse numbers.
    head = sim.commit(
        {"cairn.toml": WORSE_CONFIG, LATEST: sim.template.worse}, "regress, and move the goalposts"
    )
    sim.open_pull(head)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 1, result.stdout + result.stderr
    assert result.outputs["verdict"] == "regression"
    contents = [r for r in sim.fake.requests if "/contents/reports/latest/default.json" in r.path]
    assert contents and all(r.query["ref"] == [sim.base_sha] for r in contents)
    assert f"at {sim.base_sha[:12]} (read through the contents API)" in result.stdout


def test_action__pull_request__contents_api_down__baseline_read_through_git(sim: Sim) -> None:
    _regressing_pull(sim)
    sim.fake.inject("GET", r"/repos/acme/rag/contents/.*", **OUTAGE)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 1, result.stdout + result.stderr
    assert "(read through the git)" in result.stdout
    assert result.outputs["verdict"] == "regression"


def test_action__pull_request__github_502_and_secondary_rate_limit__retried(sim: Sim) -> None:
    head = sim.commit({"README.md": "docs\n"}, "docs")
    sim.open_pull(head)
    sim.fake.add_comment(PR, "<!-- cairn:gate config=default -->\nold", "github-actions[bot]")
    sim.fake.inject("GET", r"/repos/acme/rag/pulls/7", 502, times=2)
    sim.fake.inject(
        "GET",
        r"/repos/acme/rag/issues/7/comments",
        403,
        times=1,
        headers={"Retry-After": "1"},
        message="You have exceeded a secondary rate limit",
    )
    sim.fake.inject("PATCH", r"/repos/acme/rag/issues/comments/\d+", 502, times=1)
    sim.fake.inject(
        "PATCH",
        r"/repos/acme/rag/issues/comments/\d+",
        403,
        times=1,
        headers={"Retry-After": "1"},
        message="You have exceeded a secondary rate limit",
    )

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 0, result.stdout + result.stderr
    [comment] = sim.sticky()
    assert comment["body"] != "<!-- cairn:gate config=default -->\nold"
    patches = [r for r in sim.fake.requests if r.method == "PATCH"]
    assert len(patches) == 3  # 502, rate limited, then through
    assert len([r for r in sim.fake.requests if r.path == "/repos/acme/rag/pulls/7"]) >= 3


def test_action__pull_request__github_down__exits_3(sim: Sim) -> None:
    head = sim.commit({"README.md": "docs\n"}, "docs")
    sim.open_pull(head)
    sim.fake.inject("GET", r"/repos/acme/rag/pulls/7", **OUTAGE)

    result = sim.run("pull_request", sim.pr_event("opened"))

    assert result.code == 3, result.stdout + result.stderr
    assert "::error title=Cairn::GitHub" in result.stdout
    assert "Traceback" not in result.stderr
