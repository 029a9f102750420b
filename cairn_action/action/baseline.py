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
from cairn_action.files import write_bytes
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


def _git(workspace: Path) -> list[str]:
    return ["git", "-c", f"safe.directory={workspace}", "-C", str(workspace)]


def _have_commit(workspace: Path, ref: str, timeout: float) -> None:
    """Make sure the commit is in the checkout, fetching just it when the checkout is shallow; CairnError
    when it cannot be had. FileNotFoundError (no git) and TimeoutExpired pass to the caller."""
    base = _git(workspace)
    check = [*base, "cat-file", "-e", f"{ref}^{{commit}}"]
    have = subprocess.run(check, capture_output=True, timeout=timeout)
    if have.returncode != 0:
        # A shallow checkout lacks the base commit; fetch just it with the persisted credentials.
        subprocess.run(
            [*base, "fetch", "--no-tags", "--depth=1", "origin", ref], capture_output=True, timeout=timeout
        )
        have = subprocess.run(check, capture_output=True, timeout=timeout)
    if have.returncode != 0:
        raise CairnError(
            f"git: commit {ref[:12]} is not in the checkout at {workspace}",
            "check out with `fetch-depth: 0`, or let the action read the base via the API",
        )


def _at_commit(
    workspace: Path, ref: str, args: list[str], timeout: float, what: str
) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` once the commit is in the checkout; CairnError when git is missing or times out."""
    try:
        _have_commit(workspace, ref, timeout)
        return subprocess.run([*_git(workspace), *args], capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise CairnError(
            "git is not installed", "the action's image ships git; outside it, install git"
        ) from None
    except subprocess.TimeoutExpired:
        raise CairnError(f"{what} timed out", "re-run the job") from None


def git_archive(workspace: Path, ref: str, dest: Path, *, timeout: float = 120.0) -> Path:
    """The tree of commit `ref` extracted into `dest` (`git archive`), read as data: regular files and
    folders only, readable by the evaluation's user (0644 / 0755); a link (which could point out of the
    folder) or a path leaving it is skipped. CairnError when git cannot give the commit."""
    import io
    import tarfile

    made = _at_commit(workspace, ref, ["archive", "--format=tar", ref], timeout, f"git archive of {ref[:12]}")
    if made.returncode != 0:
        err = made.stderr.decode("utf-8", "replace").strip()[:300]
        raise CairnError(f"git archive {ref[:12]} failed: {err}", "check the checkout")
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    # an uncompressed tar in memory (git archive --format=tar): the TarFile constructor, no file opened
    with tarfile.TarFile(fileobj=io.BytesIO(made.stdout)) as tar:
        for member in tar.getmembers():
            path = (root / member.name).resolve()
            if not path.is_relative_to(root) or not (member.isfile() or member.isdir()):
                continue
            if member.isdir():
                path.mkdir(parents=True, exist_ok=True)
                path.chmod(0o755)
                continue
            data = tar.extractfile(member)
            write_bytes(
                path, data.read() if data is not None else b"", what="the base tree's file", durable=False
            )
            path.chmod(0o644)
    return dest


def git_show(workspace: Path, ref: str, path: str, *, timeout: float = 60.0) -> bytes | None:
    """`git show <ref>:<path>` in the workspace; None when the commit is there and the file is not.

    Raises CairnError when git cannot tell (no git, not a repository, the commit was not fetched).
    """
    shown = _at_commit(
        workspace, ref, ["show", f"{ref}:{path}"], timeout, f"git reading {path} at {ref[:12]}"
    )
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
