"""The run's context from the runner's variables and the event payload; the mode from the event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn_action.action.entry import secrets_to_mask, select_mode
from cairn_action.errors import CairnError
from cairn_action.gh.context import load_context
from cairn_action.gh.inputs import read_inputs


def _env(tmp_path: Path, event_name: str, payload: dict) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    return {
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "acme/rag",
        "GITHUB_API_URL": "https://ghe.example/api/v3/",
        "GITHUB_RUN_ID": "9",
        "GITHUB_SERVER_URL": "https://ghe.example",
        "GITHUB_WORKSPACE": str(tmp_path),
    }


def _pr(head_repo: dict | None) -> dict:
    return {
        "action": "labeled",
        "label": {"name": "cairn-override: x"},
        "sender": {"login": "maint"},
        "pull_request": {
            "number": 7,
            "head": {"sha": "h" * 40, "ref": "f", "repo": head_repo},
            "base": {"sha": "b" * 40, "ref": "main", "repo": {"full_name": "acme/rag"}},
            "labels": [{"name": "cairn-override: x"}],
            "user": {"login": "contributor"},
        },
        "repository": {"full_name": "acme/rag", "default_branch": "trunk"},
    }


def test_context__pull_request__from_the_payload(tmp_path: Path) -> None:
    ctx = load_context(_env(tmp_path, "pull_request", _pr({"full_name": "acme/rag"})), cwd=tmp_path)
    assert ctx.pull is not None and not ctx.pull.is_fork
    assert (ctx.pull.number, ctx.pull.head_sha, ctx.pull.base_sha) == (7, "h" * 40, "b" * 40)
    assert (ctx.action, ctx.label, ctx.sender, ctx.default_branch) == (
        "labeled",
        "cairn-override: x",
        "maint",
        "trunk",
    )
    assert ctx.api_url == "https://ghe.example/api/v3"
    assert ctx.run_url == "https://ghe.example/acme/rag/actions/runs/9"


@pytest.mark.parametrize("head_repo", [{"full_name": "someone/rag"}, None])
def test_context__fork_or_deleted_fork__is_a_fork(tmp_path: Path, head_repo: dict | None) -> None:
    ctx = load_context(_env(tmp_path, "pull_request", _pr(head_repo)), cwd=tmp_path)
    assert ctx.pull is not None and ctx.pull.is_fork


def test_context__workflow_run__without_pull_requests(tmp_path: Path) -> None:
    payload = {
        "workflow_run": {
            "id": 5,
            "event": "pull_request",
            "head_sha": "h" * 40,
            "conclusion": "failure",
            "head_repository": {"full_name": "someone/rag"},
            "pull_requests": [],
        }
    }
    ctx = load_context(_env(tmp_path, "workflow_run", payload), cwd=tmp_path)
    assert ctx.workflow_run is not None and ctx.workflow_run.pull_numbers == ()
    assert ctx.workflow_run.head_repo == "someone/rag"


def test_context__outside_actions__one_line_error(tmp_path: Path) -> None:
    with pytest.raises(CairnError, match="GITHUB_EVENT_NAME"):
        load_context({}, cwd=tmp_path)


def test_context__broken_event_file__one_line_error(tmp_path: Path) -> None:
    env = _env(tmp_path, "pull_request", {})
    Path(env["GITHUB_EVENT_PATH"]).write_text("{", encoding="utf-8")
    with pytest.raises(CairnError, match="unreadable event payload"):
        load_context(env, cwd=tmp_path)


@pytest.mark.parametrize(
    ("requested", "event", "mode"),
    [
        ("auto", "pull_request", "pr"),
        ("auto", "push", "baseline"),
        ("auto", "workflow_run", "comment"),
        ("auto", "release", "release"),
        ("baseline", "workflow_dispatch", "baseline"),
        ("pr", "pull_request", "pr"),
    ],
)
def test_action__mode__chosen_from_the_event(requested: str, event: str, mode: str) -> None:
    assert select_mode(requested, event) == mode  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("requested", "event", "message"),
    [
        ("auto", "pull_request_target", "pull_request_target"),
        ("pr", "push", "mode 'pr' does not run"),
        ("auto", "issue_comment", "no mode for the 'issue_comment' event"),
    ],
)
def test_action__mode__wrong_event__refused(requested: str, event: str, message: str) -> None:
    with pytest.raises(CairnError, match=message):
        select_mode(requested, event)  # type: ignore[arg-type]


def test_action__secrets__token_and_secret_named_variables_masked() -> None:
    env = {
        "INPUT_GITHUB-TOKEN": "ghs_abcdefgh",
        "OPENAI_API_KEY": "sk-12345678",
        "MY_SECRET": "hunter2hunter2",
        "GITHUB_SHA": "0123456789abcdef",
        "SHORT_TOKEN": "abc",
        "HOME": "/github/home",
    }
    assert secrets_to_mask(read_inputs(env), env) == ["ghs_abcdefgh", "sk-12345678", "hunter2hunter2"]
