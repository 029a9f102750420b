"""`GitHubGateway` over PyGithub: the one implementation, for the Action and `cairn release-stamp`.

Failures are mapped, and PATCH writes (the sticky comment, a ref) retried, in `pygithub_errors`.
`GET /user` is never called: it is refused to the workflow token (docs/action/github-facts.md#token-identity).
Releases have traps of their own (docs/action/github-facts.md#releases, #pygithub): `GET
/releases/tags/{tag}` does not find a draft, so a draft is looked up by id or in the list; PyGithub's
`update_release` resets `draft` and `prerelease` unless both are passed, so the notes are written with an
explicit PATCH of exactly `body`, `draft` and `prerelease`; and PATCH is not retried by PyGithub, so it goes
through `retrying`.
"""

from __future__ import annotations

import base64
import io
import re
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

import requests
from github import Auth, Github, GithubException, GithubRetry, InputGitTreeElement
from github.GithubObject import NotSet

from cairn_action import __version__
from cairn_action.errors import CairnError
from cairn_action.gh.gateway import Comment, LabelEvent, Pull, ReleaseInfo, Role, StatusState
from cairn_action.gh.pygithub_errors import Conflict, NotFound, guard, retrying, translate
from cairn_action.gh.pygithub_errors import PermissionDenied as PermissionDenied  # re-exported

_SHA = re.compile(r"[0-9a-f]{40}")
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
        # A commit SHA reads better short in a message; a branch or tag (the release gate's) is shown whole.
        shown = ref[:12] if _SHA.fullmatch(ref) else ref

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

    # ----- releases -----

    def release(self, release_id: int) -> ReleaseInfo | None:
        def read() -> ReleaseInfo | None:
            try:
                # Completed now: a lazy release takes its "tag" from the last part of its URL (the id).
                return _release(self._repo.get_release(release_id).complete())
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise

        return guard(read, f"read release {release_id}")

    def releases(self) -> list[ReleaseInfo]:
        return guard(lambda: [_release(r) for r in self._repo.get_releases()], "list the releases")

    def update_release(self, release_id: int, *, body: str, draft: bool, prerelease: bool) -> ReleaseInfo:
        url = f"{self._repo.url}/releases/{release_id}"
        fields = {"body": body, "draft": draft, "prerelease": prerelease}

        def patch() -> ReleaseInfo:
            _, data = self._gh.requester.requestJsonAndCheck("PATCH", url, input=fields)
            return _from_json(data)

        return retrying(patch, f"update the notes of release {release_id}", sleep=self._sleep)

    def _assets_named(self, release_id: int, name: str) -> tuple[Any, list[Any]]:
        release = guard(lambda: self._repo.get_release(release_id), f"read release {release_id}")
        found = guard(lambda: [a for a in release.get_assets() if a.name == name], "list the release assets")
        return release, found

    def asset_names(self, release_id: int) -> list[str]:
        release = guard(lambda: self._repo.get_release(release_id), f"read release {release_id}")
        return guard(lambda: [a.name for a in release.get_assets()], "list the release assets")

    def remove_asset(self, release_id: int, name: str) -> bool:
        _, found = self._assets_named(release_id, name)
        for asset in found:
            retrying(asset.delete_asset, f"delete the release asset {name}", sleep=self._sleep)
        return bool(found)

    def put_asset(self, release_id: int, *, name: str, data: bytes, content_type: str) -> str:
        # GitHub refuses a second asset of the same name (422 already_exists), so a re-run (a dispatch
        # over a refused draft) deletes the old one first.
        release, found = self._assets_named(release_id, name)
        for asset in found:
            retrying(asset.delete_asset, f"delete the old release asset {name}", sleep=self._sleep)

        def upload() -> str:
            asset = release.upload_asset_from_memory(io.BytesIO(data), len(data), name, content_type)
            return str(asset.browser_download_url or "")

        return retrying(upload, f"upload the release asset {name}", sleep=self._sleep)

    def files_under(self, folder: str, ref: str) -> list[str]:
        prefix = folder.strip("/") + "/"

        def read() -> list[str]:
            try:
                tree = self._repo.get_git_tree(ref, recursive=True)
            except GithubException as exc:
                if exc.status in (404, 409):  # no such ref, or an empty repository
                    return []
                raise
            if tree.truncated:
                raise CairnError(
                    f"the file tree at {ref} is too large for GitHub to list in one answer",
                    "keep reports in a smaller repository, or prune old reports/<config>-*.json files",
                )
            return sorted(e.path for e in tree.tree if e.type == "blob" and e.path.startswith(prefix))

        return guard(read, f"list {folder} at {ref}")

    def default_branch(self) -> str:
        return guard(lambda: self._repo.default_branch, "read the repository")


def _release(r: Any) -> ReleaseInfo:
    return ReleaseInfo(
        id=r.id,
        tag=r.tag_name,
        body=r.body or "",
        draft=bool(r.draft),
        prerelease=bool(r.prerelease),
        html_url=r.html_url or "",
        created_at=utc_iso(r.created_at),
        published_at=utc_iso(r.published_at),
    )


def _from_json(data: Mapping[str, Any]) -> ReleaseInfo:
    return ReleaseInfo(
        id=int(data["id"]),
        tag=str(data.get("tag_name") or ""),
        body=str(data.get("body") or ""),
        draft=bool(data.get("draft")),
        prerelease=bool(data.get("prerelease")),
        html_url=str(data.get("html_url") or ""),
        created_at=str(data.get("created_at") or ""),
        published_at=str(data.get("published_at") or ""),
    )
