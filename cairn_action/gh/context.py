"""The run's context: the runner's GITHUB_* variables and the event payload, read once into frozen values.

Everything below the composition root takes an `ActionContext`; nothing else reads the environment or
the event file. Payload shapes: octokit/webhooks (docs/action/github-facts.md#payloads).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn_action.errors import CairnError
from cairn_action.files import LIMIT_EVENT, exists, read_text

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"


@dataclass(frozen=True, kw_only=True)
class PullRequestEvent:
    """The pull request as the event saw it."""

    number: int
    head_sha: str
    base_sha: str
    base_ref: str
    head_ref: str
    head_repo: str | None
    """None when the fork was deleted."""
    base_repo: str
    labels: tuple[str, ...]
    author: str

    @property
    def is_fork(self) -> bool:
        """A pull request from another repository: a read-only token and no secrets
        (docs/action/github-facts.md#forks)."""
        return self.head_repo != self.base_repo


@dataclass(frozen=True, kw_only=True)
class WorkflowRunEvent:
    """The `workflow_run` that finished (the comment stage of the fork two-stage design)."""

    id: int
    event: str
    head_sha: str
    head_repo: str | None
    conclusion: str | None
    pull_numbers: tuple[int, ...]
    """Empty for fork pull requests (actions/runner#3444): the number comes from the artifact."""
    triggering_actor: str = ""
    """Who started the run (for a `labeled` event, who applied the label)."""
    run_attempt: int = 1
    created_at: str = ""
    """When GitHub created the run (its clock, ISO 8601)."""


@dataclass(frozen=True, kw_only=True)
class ActionContext:
    event_name: str
    action: str
    """The event's activity type (`opened`, `synchronize`, `labeled`, ...), or ''."""
    repository: str
    api_url: str
    server_url: str
    run_id: str
    workspace: Path
    sha: str
    ref: str
    default_branch: str
    sender: str
    pull: PullRequestEvent | None = None
    label: str | None = None
    """The label added or removed, on `labeled` / `unlabeled`."""
    workflow_run: WorkflowRunEvent | None = None
    before: str = ""
    """On push: the branch's previous head."""

    @property
    def run_url(self) -> str:
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}" if self.run_id else ""

    @property
    def owner(self) -> str:
        return self.repository.split("/", 1)[0]


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _text(data: Any, *keys: str) -> str:
    value = _get(data, *keys)
    return value if isinstance(value, str) else ""


def _pull(payload: Mapping[str, Any], where: str) -> PullRequestEvent:
    pr = payload.get("pull_request")
    number = _get(pr, "number") or payload.get("number")
    head_sha, base_sha = _text(pr, "head", "sha"), _text(pr, "base", "sha")
    if not isinstance(number, int) or not head_sha or not base_sha:
        raise CairnError(
            f"{where}: the pull_request event has no number, head.sha or base.sha",
            "run the action on `pull_request` events as the README's workflow does",
        )
    labels = tuple(
        label["name"] for label in (_get(pr, "labels") or []) if isinstance(_get(label, "name"), str)
    )
    return PullRequestEvent(
        number=number,
        head_sha=head_sha,
        base_sha=base_sha,
        base_ref=_text(pr, "base", "ref"),
        head_ref=_text(pr, "head", "ref"),
        head_repo=_get(pr, "head", "repo", "full_name"),
        base_repo=_text(pr, "base", "repo", "full_name") or _text(payload, "repository", "full_name"),
        labels=labels,
        author=_text(pr, "user", "login"),
    )


def _workflow_run(payload: Mapping[str, Any], where: str) -> WorkflowRunEvent:
    run = payload.get("workflow_run")
    run_id, head_sha = _get(run, "id"), _text(run, "head_sha")
    if not isinstance(run_id, int) or not head_sha:
        raise CairnError(
            f"{where}: the workflow_run event has no id or head_sha",
            "run `mode: comment` from an `on: workflow_run` workflow",
        )
    pulls = _get(run, "pull_requests") or []
    numbers = tuple(p["number"] for p in pulls if isinstance(_get(p, "number"), int))
    return WorkflowRunEvent(
        id=run_id,
        event=_text(run, "event"),
        head_sha=head_sha,
        head_repo=_get(run, "head_repository", "full_name"),
        conclusion=_get(run, "conclusion"),
        pull_numbers=numbers,
        triggering_actor=_text(run, "triggering_actor", "login"),
        run_attempt=attempt if isinstance(attempt := _get(run, "run_attempt"), int) else 1,
        created_at=_text(run, "created_at"),
    )


def read_event(path: Path) -> dict[str, Any]:
    if not exists(path):
        raise CairnError(f"{path}: event file not found", "run the action inside GitHub Actions")
    text = read_text(path, what="the event payload", hint="this is the runner's file", limit=LIMIT_EVENT)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CairnError(f"{path}: unreadable event payload: {exc}", "this is the runner's file") from None
    if not isinstance(data, dict):
        raise CairnError(f"{path}: the event payload is not a JSON object", "this is the runner's file")
    return data


def load_context(env: Mapping[str, str], *, cwd: Path) -> ActionContext:
    """The context from the runner's variables; a missing essential is one CairnError saying which."""
    event_name = env.get("GITHUB_EVENT_NAME", "")
    event_path = env.get("GITHUB_EVENT_PATH", "")
    repository = env.get("GITHUB_REPOSITORY", "")
    if not event_name or not event_path or "/" not in repository:
        raise CairnError(
            "GITHUB_EVENT_NAME, GITHUB_EVENT_PATH or GITHUB_REPOSITORY is not set",
            "`cairn action` runs inside GitHub Actions (`uses: owner/cairn@v1`); use `cairn eval` and "
            "`cairn gate` elsewhere",
        )
    payload = read_event(Path(event_path))
    pull = _pull(payload, event_path) if event_name in ("pull_request", "pull_request_target") else None
    run = _workflow_run(payload, event_path) if event_name == "workflow_run" else None
    return ActionContext(
        event_name=event_name,
        action=_text(payload, "action"),
        repository=repository,
        api_url=(env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        server_url=(env.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
        run_id=env.get("GITHUB_RUN_ID", ""),
        workspace=Path(env.get("GITHUB_WORKSPACE") or cwd),
        sha=env.get("GITHUB_SHA", "") or _text(payload, "after"),
        ref=env.get("GITHUB_REF", "") or _text(payload, "ref"),
        default_branch=_text(payload, "repository", "default_branch") or "main",
        sender=_text(payload, "sender", "login"),
        pull=pull,
        label=_text(payload, "label", "name") or None,
        workflow_run=run,
        before=_text(payload, "before"),
    )
