"""The baseline a pull request is compared with: `reports/latest/<config>.json` at the *base* commit.

Never the pull request's own copy, which it may have edited to make itself pass. The contents API reads
it at `pull_request.base.sha` (no git, any checkout depth). When the API cannot answer, git can, if the
checkout has the commit; `-c safe.directory=...` because the workspace belongs to the runner's user and
the container runs as root (docs/action/github-facts.md#safe-directory).
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import CairnError, InfrastructureError
from cairn_action.gh.gateway import GitHubGateway
from cairn_action.gh.pygithub_errors import NotFound, PermissionDenied


@dataclass(frozen=True, kw_only=True)
class BaseCopy:
    path: str
    ref: str
    data: bytes | None
    """None: the file does not exist at that commit (no baseline yet)."""
    via: str
    """`contents API` or `git`."""


def git_show(workspace: Path, ref: str, path: str, *, timeout: float = 60.0) -> bytes | None:
    """`git show <ref>:<path>` in the workspace; None when the commit is there and the file is not.

    Raises CairnError when git cannot tell (no git, not a repository, the commit was not fetched).
    """
    base = ["git", "-c", f"safe.directory={workspace}", "-C", str(workspace)]
    try:
        have = subprocess.run(
            [*base, "cat-file", "-e", f"{ref}^{{commit}}"], capture_output=True, timeout=timeout
        )
        if have.returncode != 0:
            # A shallow checkout lacks the base commit; fetch just it with the persisted credentials.
            subprocess.run(
                [*base, "fetch", "--no-tags", "--depth=1", "origin", ref],
                capture_output=True,
                timeout=timeout,
            )
            have = subprocess.run(
                [*base, "cat-file", "-e", f"{ref}^{{commit}}"], capture_output=True, timeout=timeout
            )
        if have.returncode != 0:
            raise CairnError(
                f"git: commit {ref[:12]} is not in the checkout at {workspace}",
                "check out with `fetch-depth: 0`, or let the action read the base via the API",
            )
        shown = subprocess.run([*base, "show", f"{ref}:{path}"], capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise CairnError(
            "git is not installed", "the action's image ships git; outside it, install git"
        ) from None
    except subprocess.TimeoutExpired:
        raise CairnError(f"git timed out reading {path} at {ref[:12]}", "re-run the job") from None
    if shown.returncode == 0:
        return shown.stdout
    err = shown.stderr.decode("utf-8", "replace")
    if "does not exist" in err or "exists on disk, but not in" in err:
        return None
    raise CairnError(f"git show {ref[:12]}:{path} failed: {err.strip()[:300]}", "check the checkout")


def read_base_copy(gateway: GitHubGateway, *, path: str, ref: str, workspace: Path) -> BaseCopy:
    """The file at the base commit: contents API first, git as the fallback when the API fails."""
    try:
        return BaseCopy(path=path, ref=ref, data=gateway.file_at(path, ref), via="contents API")
    except (InfrastructureError, PermissionDenied, NotFound) as api_error:
        try:
            data = git_show(workspace, ref, path)
        except CairnError:
            raise api_error from None
        return BaseCopy(path=path, ref=ref, data=data, via="git")
