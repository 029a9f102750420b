"""What Cairn asks of GitHub, as one small protocol (pull requests, comments, labels, files, statuses,
releases); its one implementation, over PyGithub, is `pygithub_gateway.PyGithubGateway`.

The protocol speaks in frozen values (no PyGithub objects leak out), so the rules above it (sticky
comment, override, baseline) are plain functions of what GitHub said. Errors come out as CairnErrors:
GitHub unreachable or failing after retries is exit 3, a refused write is `PermissionDenied`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol


@dataclass(frozen=True, kw_only=True)
class Comment:
    id: int
    body: str
    author: str
    author_is_bot: bool
    url: str
    created_at: str


@dataclass(frozen=True, kw_only=True)
class LabelEvent:
    event: Literal["labeled", "unlabeled"]
    label: str
    actor: str
    at: str
    """ISO 8601 UTC with a Z."""


@dataclass(frozen=True, kw_only=True)
class Pull:
    number: int
    state: str
    merged: bool
    head_sha: str
    base_sha: str
    head_repo: str | None
    base_repo: str
    labels: tuple[str, ...]
    merge_commit_sha: str | None
    author: str = ""


@dataclass(frozen=True)
class Role:
    role_name: str
    """The real role (admin, maintain, write, triage, read, or a custom role's name)."""
    permission: str
    """The legacy base permission: maintain maps to write and triage to read."""


@dataclass(frozen=True, kw_only=True)
class ReleaseInfo:
    id: int
    tag: str
    body: str
    draft: bool
    prerelease: bool
    html_url: str
    created_at: str
    published_at: str
    """'' for a draft."""

    @property
    def when(self) -> str:
        """When it became a release people can see; GitHub's `created_at` is the commit's date."""
        return self.published_at or self.created_at


StatusState = Literal["success", "failure", "error", "pending"]


class GitHubGateway(Protocol):
    """The GitHub operations Cairn performs on one repository: the Action and `cairn release-stamp`."""

    def pull(self, number: int) -> Pull: ...

    def comments(self, number: int) -> list[Comment]:
        """The pull request's issue comments, oldest first."""
        ...

    def create_comment(self, number: int, body: str) -> Comment: ...

    def edit_comment(self, number: int, comment_id: int, body: str) -> Comment | None:
        """None when the comment no longer exists."""
        ...

    def delete_comment(self, number: int, comment_id: int) -> None: ...

    def label_events(self, number: int) -> list[LabelEvent]:
        """`labeled` and `unlabeled` events, oldest first, from the issue events API."""
        ...

    def remove_label(self, number: int, label: str) -> bool:
        """False when the label was not on the pull request."""
        ...

    def role(self, login: str) -> Role: ...

    def file_at(self, path: str, ref: str) -> bytes | None:
        """The file's bytes at `ref` (a commit SHA or branch), None when it does not exist there."""
        ...

    def pull_files(self, number: int) -> list[str]:
        """The paths the pull request changes (added, modified, removed; a rename's both names)."""
        ...

    def create_status(
        self, sha: str, *, state: StatusState, context: str, description: str, target_url: str
    ) -> None: ...

    def pulls_for_commit(self, sha: str) -> list[Pull]:
        """Pull requests associated with a commit (the one a push to the default branch merged)."""
        ...

    def commit_files(self, branch: str, files: Mapping[str, bytes], message: str) -> str:
        """One commit on top of `branch` adding or replacing `files`; returns its SHA."""
        ...

    # ----- releases (the release gate) -----

    def release(self, release_id: int) -> ReleaseInfo | None: ...

    def releases(self) -> list[ReleaseInfo]:
        """Every release, drafts included (the token can see them with `contents: write`)."""
        ...

    def update_release(self, release_id: int, *, body: str, draft: bool, prerelease: bool) -> ReleaseInfo: ...

    def put_asset(self, release_id: int, *, name: str, data: bytes, content_type: str) -> str:
        """Attach `data` as the release's asset `name`, replacing one of that name; its download URL."""
        ...

    def remove_asset(self, release_id: int, name: str) -> bool:
        """Delete the release's asset `name`; False when it had none."""
        ...

    def asset_names(self, release_id: int) -> list[str]: ...

    def files_under(self, folder: str, ref: str) -> list[str]:
        """Paths of the files under `folder` at `ref` (recursive), sorted."""
        ...

    def default_branch(self) -> str: ...
