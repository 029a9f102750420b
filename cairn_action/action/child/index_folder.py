"""The `index-cache` input: the index cache (chunks, BM25 matrix, embeddings) carried between jobs by the
workflow's `actions/cache` steps, through a folder outside the workspace.

The evaluation child gets a fresh cache folder on every run (sandbox.py: nothing the run caches may come
from the checkout), so without this the index is rebuilt, and for dense or hybrid re-embedded, every time.
With it, this process (the trusted parent) copies the folder's `index/` into the child's scratch cache
before the run, and in baseline mode only (a push to the default branch, the base branch's own code and
corpus) copies the child's `index/` back after a successful run, for `actions/cache/save` to store. A
pull request's run never writes back: what it built came from the pull request.

Copies are of regular files only: no symbolic link is followed or copied, nor a device, FIFO or socket,
each directory and file is opened relative to its parent with O_NOFOLLOW (a link swapped in after the
listing is refused too), and sizes and counts are bounded. Copying back, a file must belong to the
child's user and have one link (a hard link to a file the child cannot read would otherwise be copied
by root). Entries are content-addressed (retrieval/index_cache.py), so a stale restore costs only the
rebuild of what changed, and a file whose name and size are already there is left as it is.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from cairn_action.action.child.sandbox import Scratch
from cairn_action.errors import CairnError
from cairn_action.gh.workflow import Workflow

CONTAINER_FOLDER = "/github/home/.cache/cairn-index"
"""The documented folder: the runner mounts `${{ runner.temp }}/_github_home` at /github/home."""
MAX_BYTES = 4 * 1024**3
"""All files of one copy together; GitHub keeps at most 10 GB of caches per repository."""
MAX_FILES = 20_000
LIMIT = f"{MAX_BYTES >> 30} GiB"
"""The byte limit as the log names it."""
MAX_DEPTH = 4
"""index/embeddings/<model>/vectors-*.npz is three levels down."""
TEMP_PREFIX = ".tmp-"
"""Half-written files (retrieval's atomic writes, and this module's): never copied."""
SHOWN = 5
"""Skipped entries named in the notice; the rest are counted."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True, kw_only=True)
class Owner:
    """Who the copied files and folders belong to; None: left as this process creates them."""

    uid: int
    gid: int


@dataclass(frozen=True, kw_only=True)
class SourceRule:
    """What a source file must be besides regular: owned by `uid` (when set) and singly linked."""

    uid: int | None = None
    single_link: bool = False


@dataclass
class Copied:
    files: int = 0
    bytes: int = 0
    kept: int = 0
    """Already at the destination with the same size (content-addressed: the same entry)."""
    skipped: list[str] = field(default_factory=list)


def resolve_folder(value: str, workspace: Path) -> Path | None:
    """The `index-cache` folder, resolved; None when the input is empty. Inside (or holding) the
    workspace is refused: a pull request's checkout could plant the cache there."""
    if not value:
        return None
    path = Path(value).expanduser()
    hint = (
        f"use a folder outside the checkout, e.g. {CONTAINER_FOLDER} (on the runner "
        "`${{ runner.temp }}/_github_home/.cache/cairn-index`, the path the actions/cache steps name)"
    )
    if not path.is_absolute():
        raise CairnError(f"input 'index-cache': '{value}' is not an absolute path", hint)
    resolved, ws = path.resolve(), workspace.resolve()
    if resolved == ws or ws in resolved.parents or resolved in ws.parents:
        raise CairnError(
            f"input 'index-cache': {value} is inside the workspace {workspace} (or holds it), where a "
            "pull request could plant the cache",
            hint,
        )
    return resolved


def _open_dir(name: str, dir_fd: int | None) -> int:
    return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)


def _make_dir(name: str, dir_fd: int, owner: Owner | None) -> int:
    """The destination's subfolder `name`, made if missing; a link or file there raises OSError."""
    try:
        os.mkdir(name, 0o755, dir_fd=dir_fd)
    except FileExistsError:
        return _open_dir(name, dir_fd)
    fd = _open_dir(name, dir_fd)
    if owner is not None:
        os.fchown(fd, owner.uid, owner.gid)
    return fd


def _same_size(name: str, dir_fd: int, size: int) -> bool:
    try:
        found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size == size


class _Copy:
    def __init__(self, rule: SourceRule, owner: Owner | None) -> None:
        self.rule, self.owner = rule, owner
        self.done = Copied()

    def skip(self, where: str, why: str) -> None:
        self.done.skipped.append(f"{where}: {why}")

    def tree(self, src_fd: int, dst_fd: int, where: str, depth: int) -> None:
        with os.scandir(src_fd) as listing:
            entries = sorted(listing, key=lambda e: e.name)
        for entry in entries:
            path = f"{where}{entry.name}"
            if entry.name.startswith(TEMP_PREFIX):
                continue
            if entry.is_symlink():
                self.skip(path, "a symbolic link, not followed")
            elif entry.is_dir(follow_symlinks=False):
                self.folder(entry.name, src_fd, dst_fd, path, depth)
            elif entry.is_file(follow_symlinks=False):
                self.file(entry.name, src_fd, dst_fd, path)
            else:
                self.skip(path, "not a regular file")

    def folder(self, name: str, src_fd: int, dst_fd: int, path: str, depth: int) -> None:
        if depth >= MAX_DEPTH:
            self.skip(path + "/", f"deeper than {MAX_DEPTH} levels")
            return
        try:
            inner = _open_dir(name, src_fd)
        except OSError as exc:  # replaced by a link since the listing (ELOOP, ENOTDIR)
            self.skip(path + "/", f"not opened as a folder ({errno.errorcode.get(exc.errno or 0, exc)})")
            return
        try:
            try:
                target = _make_dir(name, dst_fd, self.owner)
            except OSError:
                self.skip(path + "/", "the destination holds something else than a folder there")
                return
            try:
                self.tree(inner, target, path + "/", depth + 1)
            finally:
                os.close(target)
        finally:
            os.close(inner)

    def file(self, name: str, src_fd: int, dst_fd: int, path: str) -> None:
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=src_fd)
        except OSError:
            self.skip(path, "not opened as a regular file")
            return
        with os.fdopen(fd, "rb") as source:
            found = os.fstat(source.fileno())
            why = self._refused(found)
            if why:
                self.skip(path, why)
            elif _same_size(name, dst_fd, found.st_size):
                self.done.kept += 1
            elif self._write(source, name, dst_fd, found.st_size):
                self.done.files += 1
                self.done.bytes += found.st_size
            else:
                self.skip(path, "changed while it was copied")

    def _refused(self, found: os.stat_result) -> str:
        """Why a source file is not copied, or ''."""
        if not stat.S_ISREG(found.st_mode):
            return "not a regular file"
        if self.rule.uid is not None and found.st_uid != self.rule.uid:
            return "not the evaluation user's file"
        if self.rule.single_link and found.st_nlink != 1:
            return "a hard link"
        if self.done.files >= MAX_FILES or self.done.bytes + found.st_size > MAX_BYTES:
            return f"over the limit ({MAX_FILES} files, {LIMIT})"
        return ""

    def _write(self, source: BinaryIO, name: str, dst_fd: int, size: int) -> bool:
        """`size` bytes written whole under a temporary name, then renamed over `name` (a link there is
        replaced, never followed); False, and nothing written, when the file shrank meanwhile."""
        tmp = f"{TEMP_PREFIX}cairn-{secrets.token_hex(6)}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        out = os.open(tmp, flags, 0o644, dir_fd=dst_fd)
        try:
            with os.fdopen(out, "wb") as target:
                left = size
                while left > 0:
                    sent = os.sendfile(target.fileno(), source.fileno(), None, min(left, 1 << 26))
                    if sent == 0:
                        break
                    left -= sent
                if self.owner is not None:
                    os.fchown(target.fileno(), self.owner.uid, self.owner.gid)
                os.fchmod(target.fileno(), 0o644)
            if left > 0:
                os.unlink(tmp, dir_fd=dst_fd)
                return False
            os.replace(tmp, name, src_dir_fd=dst_fd, dst_dir_fd=dst_fd)
        except BaseException:
            os.unlink(tmp, dir_fd=dst_fd)
            raise
        return True


def copy_index(src: Path, dst: Path, *, rule: SourceRule, owner: Owner | None) -> Copied:
    """Copy the regular files under `src` into `dst` (made, with its missing parents, owned by
    `owner`); what was copied, kept and skipped. `src` itself must be a real folder."""
    missing = []
    for folder in [dst, *dst.parents]:
        if folder.exists() or folder.is_symlink():
            break
        missing.append(folder)
    for folder in reversed(missing):
        folder.mkdir(mode=0o755)
        if owner is not None:
            os.chown(folder, owner.uid, owner.gid, follow_symlinks=False)
    copy = _Copy(rule, owner)
    try:
        src_fd = _open_dir(str(src), None)
    except OSError:
        copy.skip(str(src), "not a folder (a symbolic link is not followed)")
        return copy.done
    try:
        try:
            dst_fd = _open_dir(str(dst), None)
        except OSError:
            copy.skip(str(dst), "the destination is not a folder (a symbolic link is not followed)")
            return copy.done
        try:
            copy.tree(src_fd, dst_fd, "", 0)
        finally:
            os.close(dst_fd)
    finally:
        os.close(src_fd)
    return copy.done


def _folder_owner(folder: Path) -> Owner | None:
    """As root, files written back belong to whoever owns the folder (or its nearest existing parent),
    the runner's user: its `actions/cache/save` reads them and its cleanup removes them."""
    if os.geteuid() != 0:
        return None
    for path in [folder, *folder.parents]:
        if path.exists():
            found = path.stat()
            return Owner(uid=found.st_uid, gid=found.st_gid)
    return None


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _report(workflow: Workflow, done: Copied, what: str) -> None:
    workflow.info(
        f"index-cache: {what}: {done.files} files ({_megabytes(done.bytes)}) copied, "
        f"{done.kept} already there"
    )
    if done.skipped:
        more = len(done.skipped) - SHOWN
        workflow.notice(
            f"skipped {len(done.skipped)} entries: "
            + "; ".join(done.skipped[:SHOWN])
            + (f"; and {more} more" if more > 0 else ""),
            title="Cairn: index-cache",
        )


def _index_dir() -> str:
    from cairn_action.run.evaluation import INDEX_CACHE_DIR  # here: the module costs 0.4 s to import

    return INDEX_CACHE_DIR


def restore_index(folder: Path, scratch: Scratch, workflow: Workflow, *, mode: str) -> None:
    """Before the run: the folder's `index/` into the child's scratch cache, owned by the child."""
    index = _index_dir()
    source = folder / index
    if not source.is_dir() or source.is_symlink():
        workflow.info(f"index-cache: {source} holds no index yet (a cache miss); the run builds it")
    else:
        identity = scratch.identity
        owner = Owner(uid=identity.uid, gid=identity.gid) if identity.isolated else None
        done = copy_index(source, scratch.cache / index, rule=SourceRule(), owner=owner)
        _report(workflow, done, f"restored from {source}")
    if mode != "baseline":
        workflow.info(
            f"index-cache: {mode} mode (a pull request's run, a fork's too) never writes back to {folder}: "
            "only a baseline run (a push to the default branch) stores the index for later runs"
        )


def save_index(folder: Path, scratch: Scratch, workflow: Workflow, exit_codes: Sequence[int]) -> None:
    """After a successful baseline run: the child's `index/` back into the folder, for the workflow's
    `actions/cache/save` step."""
    index = _index_dir()
    if any(exit_codes):
        workflow.info(f"index-cache: the run did not succeed; nothing is written to {folder}")
        return
    source = scratch.cache / index
    if not source.is_dir():
        workflow.info("index-cache: the run built no index (nothing retrieved); nothing to store")
        return
    identity = scratch.identity
    rule = SourceRule(uid=identity.uid if identity.isolated else None, single_link=True)
    done = copy_index(source, folder / index, rule=rule, owner=_folder_owner(folder))
    _report(workflow, done, f"stored in {folder / index} for actions/cache/save")
