"""One run at a time per artifact: an exclusive `flock` on a lock file beside it.

Two `cairn eval` of the same config and split at once would otherwise share one artifact (the second
"resumes" the first's unfinished file) and pay for every call twice. The lock file records who holds it
(pid, host, since when), so the refusal names the other process. The kernel drops a `flock` when its holder
dies, even by `kill -9`, so a lock is never stale: the file may stay, the lock does not.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from cairn_action.errors import DataError
from cairn_action.files import os_reason


def lock_path_for(artifact: Path) -> Path:
    """`reports/runs/x.jsonl` → `reports/runs/.x.jsonl.lock`."""
    return artifact.with_name(f".{artifact.name}.lock")


class RunLock:
    """An exclusive, non-blocking lock held for the life of a run (a context manager)."""

    def __init__(self, path: Path, *, what: str) -> None:
        self.path = Path(path)
        self.what = what
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock; DataError (exit 2) naming the holder when another process has it."""
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise DataError(
                    f"{self.path}: cannot create the run's lock file: {os_reason(exc)}",
                    "run from a folder you can write to, or pass --artifact in one",
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise DataError(
                    f"{self.path}: {self.what} is already running ({holder}); a second run would pay for "
                    "its calls twice",
                    "wait for it to finish (or stop it), then run the same command again: it resumes",
                ) from None
            # The holder before us may have unlinked the file after we opened it: lock the live file.
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        record = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(record).encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)  # while still holding it: see acquire's inode check
        except OSError:
            pass
        os.close(self._fd)  # closing drops the flock
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
        since = time.strftime("%H:%M:%S UTC", time.gmtime(float(data["since"])))
        return f"pid {int(data['pid'])} on {str(data['host'])[:64]}, since {since}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"
