"""`GitHubGateway` over PyGithub.

Failures are mapped, and PATCH writes (the sticky comment, a ref) retried, in `pygithub_errors`.
`GET /user` is never called: it is refused to the workflow token (docs/action/github-facts.md#token-identity).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

import requests
from github import Auth, Github, GithubException, GithubRetry, InputGitTreeElement
from github.GithubObject import NotSet

from cairn_action import __version__
from cairn_action.errors import CairnError
from cairn_action.gh.gateway import Comment, LabelEvent, Pull, Role, StatusState
from cairn_action.gh.pygithub_errors import Conflict, NotFound, guard, retrying, translate
from cairn_action.gh.pygithub_errors import PermissionDenied as PermissionDenied  # re-exported

G = TypeVar("G", bound="PyGithubGateway")
USER_AGENT = f"cairn-action/{__version__}"


def utc_iso(value: datetime | None) -> str:
    if value is None:
        return ""
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _comment(c: Any) -> Comment:
    return Comment(
        id=c.id,
        body=c.body or "",
        author=c.user.login if c.user else "",
        author_is_bot=bool(c.user and c.user.type == "Bot"),
        url=c.html_url or "",
        created_at=utc_iso(c.created_at),
    )


def _pull(p: Any) -> Pull:
    return Pull(
        number=p.number,
        state=p.state,
        merged=bool(p.merged),
        head_sha=p.head.sha,
        base_sha=p.base.sha,
        head_repo=p.head.repo.full_name if p.head.repo else None,
        base_repo=p.base.repo.full_name,
        labels=tuple(label.name for label in p.labels),
        merge_commit_sha=p.merge_commit_sha,
        author=p.user.login if p.user else "",
    )


def retry_policy(*, backoff_factor: float = 0.5) -> GithubRetry:
    """How PyGithub retries reads and non-PATCH writes; tests pass `backoff_factor=0` to skip the waits."""
    return GithubRetry(
        total=6, backoff_factor=backoff_factor, secondary_rate_wait=60, max_rate_limit_wait=300
    )


def connect(
    token: str,
    api_url: str,
    *,
    timeout: int = 15,
    throttle: bool = True,
    retry: GithubRetry | None = None,
) -> Github:
    """A PyGithub client for github.com or GHES (`GITHUB_API_URL`, e.g. https://ghe.example/api/v3)."""
    if retry is None:
        retry = retry_policy()
    return Github(
        auth=Auth.Token(token) if token else None,
        base_url=api_url,
        timeout=timeout,
        user_agent=USER_AGENT,
        retry=retry,
        lazy=True,
        seconds_between_requests=0.25 if throttle else None,
        seconds_between_writes=1.0 if throttle else None,
    )


class PyGithubGateway:
    """The gateway for one repository."""

    def __init__(
        self, client: Github, repository: str, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self._gh = client
        self._name = repository
        self._repo = client.get_repo(repository)  # lazy: the client is built with lazy=True
        self._sleep = sleep

    def sibling(self, kind: type[G]) -> G:
        """A gateway of another kind (a subclass) over this one's client, repository and sleep: the
        Action builds one PyGithub client per run (token, base URL, retry policy), in action.main."""
        return kind(self._gh, self._name, sleep=self._sleep)

    def _issue(self, number: int) -> Any:
        return self._repo.get_issue(number)

    def pull(self, number: int) -> Pull:
        return guard(lambda: _pull(self._repo.get_pull(number)), f"read pull request #{number}")

    def comments(self, number: int) -> list[Comment]:
        found = guard(
            lambda: [_comment(c) for c in self._issue(number).get_comments()],
            f"list the comments of #{number}",
        )
        return sorted(found, key=lambda c: c.id)

    def create_comment(self, number: int, body: str) -> Comment:
        return _comment(guard(lambda: self._issue(number).create_comment(body), f"comment on #{number}"))

    def edit_comment(self, number: int, comment_id: int, body: str) -> Comment | None:
        handle = self._issue(number).get_comment(comment_id)
        try:
            retrying(lambda: handle.edit(body), f"edit comment {comment_id}", sleep=self._sleep)
        except NotFound:
            return None
        return _comment(handle)

    def delete_comment(self, number: int, comment_id: int) -> None:
        try:
            self._issue(number).get_comment(comment_id).delete()
        except GithubException as exc:
            if exc.status != 404:  # already gone: what we wanted
                raise translate(exc, f"delete comment {comment_id}") from None
        except requests.RequestException as exc:
            raise translate(exc, f"delete comment {comment_id}") from None

    def label_events(self, number: int) -> list[LabelEvent]:
        def events() -> list[LabelEvent]:
            return [
                LabelEvent(
                    event=e.event,
                    label=e.label.name,
                    actor=e.actor.login if e.actor else "",
                    at=utc_iso(e.created_at),
                )
                for e in self._issue(number).get_events()
                if e.event in ("labeled", "unlabeled") and e.label is not None
            ]

        return guard(events, f"read the label events of #{number}")

    def remove_label(self, number: int, label: str) -> bool:
        try:
            self._issue(number).remove_from_labels(label)
        except GithubException as exc:
            if exc.status == 404:
                return False
            raise translate(exc, f"remove the label from #{number}") from None
        except requests.RequestException as exc:
            raise translate(exc, f"remove the label from #{number}") from None
        return True

    def role(self, login: str) -> Role:
        def read() -> Role:
            try:
                name = self._repo.get_collaborator_role_name(login)
            except GithubException as exc:
                if exc.status == 404:
                    return Role("none", "none")
                raise
            known = {"admin", "maintain", "write", "triage", "read", "none"}
            # A built-in role's base permission is known (maintain maps to write, triage to read); a
            # custom role's needs the `permission` field of the same endpoint.
            legacy = {"maintain": "write", "triage": "read"}.get(name, name)
            permission = legacy if name in known else self._repo.get_collaborator_permission(login)
            return Role(name, permission)

        return guard(read, f"read the repository role of {login}")

    def file_at(self, path: str, ref: str) -> bytes | None:
        return self._file_at(path, ref, shown=ref[:12])  # a commit sha: the short form reads better

    def _file_at(self, path: str, ref: str, *, shown: str) -> bytes | None:
        def read() -> bytes | None:
            try:
                found = self._repo.get_contents(path, ref=ref)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise
            if isinstance(found, list):
                raise CairnError(f"{path} at {shown} is a folder, not a file", "remove the folder")
            if found.encoding == "base64" and found.content:
                return found.decoded_content
            # Over 1 MB (a report with many cases) the contents API leaves `content` empty; the blob
            # API serves up to 100 MB.
            return base64.b64decode(self._repo.get_git_blob(found.sha).content)

        return guard(read, f"read {path} at {shown}")

    def create_status(
        self, sha: str, *, state: StatusState, context: str, description: str, target_url: str
    ) -> None:
        def post() -> None:
            commit = self._repo.get_commit(sha)
            url = target_url or NotSet
            commit.create_status(state, target_url=url, description=description[:140], context=context)

        guard(post, f"set the commit status {context}")

    def pull_files(self, number: int) -> list[str]:
        def read() -> list[str]:
            found: list[str] = []
            for f in self._repo.get_pull(number).get_files():
                found += [f.filename] + ([f.previous_filename] if f.previous_filename else [])
            return found

        return guard(read, f"list the files of #{number}")

    def pulls_for_commit(self, sha: str) -> list[Pull]:
        return guard(
            lambda: [_pull(p) for p in self._repo.get_commit(sha).get_pulls()],
            f"find the pull request of {sha[:12]}",
        )

    def commit_files(self, branch: str, files: Mapping[str, bytes], message: str) -> str:
        def once() -> str:
            ref = self._repo.get_git_ref(f"heads/{branch}")
            parent = self._repo.get_git_commit(ref.object.sha)
            elements = [
                InputGitTreeElement(path, "100644", "blob", content=data.decode("utf-8"))
                for path, data in sorted(files.items())
            ]
            tree = self._repo.create_git_tree(elements, base_tree=parent.tree)
            commit = self._repo.create_git_commit(message, tree, [parent])
            ref.edit(commit.sha, force=False)  # a PATCH: not fast-forward if the branch moved meanwhile
            return commit.sha

        for attempt in range(1, 4):
            try:
                return retrying(once, f"commit to {branch}", sleep=self._sleep)
            except Conflict:
                if attempt == 3:
                    raise
                self._sleep(1.0)  # the branch moved: build the commit again on its new head
        raise AssertionError("unreachable")
