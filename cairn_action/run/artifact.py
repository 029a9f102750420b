"""The run artifact on disk: JSONL, a header line, then one record per case.

Records are appended and flushed to the operating system as each case finishes, so a crash of Cairn or a
`kill -9` loses at most the line being written: the kernel holds every flushed line and writes it whatever
happens to the process. What an `fsync` adds is survival of a power cut or a kernel crash, and it costs a
disk round trip (on the sample, 72 per-record fsyncs were 0.4 s of a 1.6 s run), so the appender groups
them: one per `SYNC_EVERY` records or `SYNC_SECONDS`, whichever comes first, and one on close. A power cut
can then lose the last few records; their provider calls are still in the response cache (each cache entry
is fsynced on its own, run/cache.py), so the rerun re-reads them and pays for none twice.

Reading validates every line: a corrupt line is a `DataError` naming the file
and line. The one exception is an incomplete last line (no line end), which is what a kill mid-write
leaves: a reader resuming the run may drop it, and says so; any other reader refuses it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ValidationError

from cairn_action.errors import DataError
from cairn_action.files import (
    HINT_WRITE,
    LIMIT_ARTIFACT,
    JsonProblem,
    atomic_writer,
    check_output_file,
    fsync_dir,
    is_file,
    os_reason,
    parse_json,
    read_bytes,
)
from cairn_action.run.models import RUN_SCHEMA_VERSION, CaseRecord, RunHeader

SYNC_EVERY = 64
"""Records appended between two fsyncs of the artifact, at most. Calls that cost money take long enough
for `SYNC_SECONDS` to decide; the count only matters when records come fast (the stub, cache hits),
where a power cut costs nothing to redo: the sample's 72 records get one fsync mid-run and one on close
(five at 16, 30 ms each on a loaded disk)."""
SYNC_SECONDS = 1.0
"""Seconds an appended record waits for its fsync, at most (checked at the next append or on close)."""

HINT_DAMAGED = (
    "the artifact was edited or damaged: restore it, or delete it and run `cairn eval` again "
    "(cached provider results make the rerun cheap)"
)
HINT_INTERRUPTED = (
    "the run that wrote it was interrupted: run the same `cairn eval` command again to finish it"
)


@dataclass(frozen=True)
class DroppedLine:
    """An incomplete last line left by a kill mid-write."""

    line: int
    length: int
    """Bytes in the incomplete line."""


@dataclass(frozen=True)
class RunArtifact:
    """A run artifact as read: its header and its records in file order."""

    path: Path
    header: RunHeader
    records: tuple[CaseRecord, ...]
    dropped: DroppedLine | None = None
    """The incomplete last line, when the reader was allowed to drop one."""


def _line(model: BaseModel) -> bytes:
    return (model.model_dump_json() + "\n").encode("utf-8")


def _describe(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"]) or "(line)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"'{where}': {err['msg']}{more}"


def _parse(path: Path, number: int, raw: bytes, first: bool) -> RunHeader | CaseRecord:
    where = f"{path}:{number}"
    try:
        obj = parse_json(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DataError(f"{where}: not valid UTF-8 (byte {exc.start})", HINT_DAMAGED) from None
    except JsonProblem as exc:
        column = f" (column {exc.column})" if exc.column else ""
        raise DataError(f"{where}: {exc.message}{column}", HINT_DAMAGED) from None
    if not isinstance(obj, dict):
        raise DataError(f"{where}: expected a JSON object", HINT_DAMAGED)
    kind = obj.get("kind")
    if first and kind != "header":
        raise DataError(f"{where}: the first line must be the run header, found kind {kind!r}", HINT_DAMAGED)
    if not first and kind != "case":
        raise DataError(f"{where}: expected a case record, found kind {kind!r}", HINT_DAMAGED)
    if first and obj.get("schema_version") != RUN_SCHEMA_VERSION:
        raise DataError(
            f"{where}: run artifact schema_version {obj.get('schema_version')!r}, this Cairn reads "
            f"{RUN_SCHEMA_VERSION}",
            "run `cairn eval` again with this version of Cairn",
        )
    model: type[RunHeader] | type[CaseRecord] = RunHeader if first else CaseRecord
    try:
        return model.model_validate(obj, strict=True)
    except ValidationError as exc:
        raise DataError(
            f"{where}: invalid {'header' if first else 'case record'}: {_describe(exc)}", HINT_DAMAGED
        ) from None


def read_artifact(path: Path, *, drop_incomplete_tail: bool = False) -> RunArtifact:
    """Read and validate every line of a run artifact.

    Raises DataError (`path:line: ...`) for a missing or empty file, a corrupt line, a duplicate case,
    or an incomplete last line, unless `drop_incomplete_tail` (resuming), in which case that line is
    dropped and reported in `RunArtifact.dropped`.
    """
    path = Path(path)
    data = read_bytes(
        path, what="run artifact", hint="check the path, or run `cairn eval`", limit=LIMIT_ARTIFACT
    )
    if not data:
        raise DataError(f"{path}: empty run artifact (no header line)", HINT_INTERRUPTED)
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a line end, else the incomplete last line
    dropped: DroppedLine | None = None
    if tail:
        number = len(lines) + 1
        if not drop_incomplete_tail or number == 1:
            raise DataError(
                f"{path}:{number}: incomplete last line ({len(tail)} bytes, no line end)", HINT_INTERRUPTED
            )
        dropped = DroppedLine(line=number, length=len(tail))
    header: RunHeader | None = None
    records: list[CaseRecord] = []
    first_line: dict[tuple[str, int], int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            raise DataError(f"{path}:{number}: blank line", HINT_DAMAGED)
        parsed = _parse(path, number, raw, first=number == 1)
        if isinstance(parsed, RunHeader):
            header = parsed
            continue
        key = (parsed.case_id, parsed.sample)
        earlier = first_line.get(key)
        if earlier is not None:
            which = f" sample {parsed.sample}" if parsed.sample else ""
            raise DataError(
                f"{path}:{number}: case {parsed.case_id}{which} appears twice (first on line {earlier})",
                HINT_DAMAGED,
            )
        first_line[key] = number
        records.append(parsed)
    if header is None:  # only possible when the header line itself was the dropped tail
        raise DataError(f"{path}:1: incomplete header line", HINT_INTERRUPTED)
    return RunArtifact(
        path=path,
        header=header,
        records=tuple(records),
        dropped=dropped,
    )


def read_header(path: Path) -> RunHeader | None:
    """The header of an artifact, or None when its first line is not a valid header (for discovery)."""
    if not is_file(path):  # a FIFO would block the open; a folder or a device is no artifact
        return None
    try:
        with Path(path).open("rb") as handle:
            first = handle.readline()
    except OSError:
        return None
    if not first.endswith(b"\n"):
        return None
    try:
        parsed = _parse(Path(path), 1, first, first=True)
    except DataError:
        return None
    return parsed if isinstance(parsed, RunHeader) else None


def write_artifact(path: Path, header: RunHeader, records: Iterable[CaseRecord]) -> None:
    """Write a whole artifact atomically: a temporary file beside `path`, fsynced, then `os.replace`."""
    path = Path(path)
    check_output_file(path, what="the run artifact")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path) as handle:
            handle.write(_line(header))
            for record in records:
                handle.write(_line(record))
    except OSError as exc:
        raise DataError(f"{path}: cannot write the run artifact: {os_reason(exc)}", HINT_WRITE) from None
    fsync_dir(path.parent)


class ArtifactAppender:
    """Appends case records to an artifact: each one flushed to the OS before `append` returns (a killed
    process loses none), fsynced in groups (module docstring)."""

    def __init__(
        self,
        path: Path,
        *,
        sync_every: int = SYNC_EVERY,
        sync_seconds: float = SYNC_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Open an existing artifact (header already written) for appending."""
        self.path = Path(path)
        self.sync_every = max(1, sync_every)
        self.sync_seconds = sync_seconds
        self.syncs = 0
        """fsyncs made so far (what the offline-floor benchmark reports)."""
        self._clock = clock
        self._unsynced = 0
        self._synced_at = clock()
        try:
            self._handle: IO[bytes] = self.path.open("ab")
        except OSError as exc:
            raise DataError(
                f"{path}: cannot append to the run artifact: {os_reason(exc)}", HINT_WRITE
            ) from None

    @classmethod
    def create(cls, path: Path, header: RunHeader) -> ArtifactAppender:
        """Start a new artifact holding only `header`."""
        write_artifact(path, header, ())
        return cls(path)

    def append(self, record: CaseRecord) -> None:
        self._handle.write(_line(record))
        self._handle.flush()
        self._unsynced += 1
        if self._unsynced >= self.sync_every or self._clock() - self._synced_at >= self.sync_seconds:
            self.sync()

    def sync(self) -> None:
        """fsync what was appended since the last one (nothing to do when nothing was)."""
        if self._unsynced:
            os.fsync(self._handle.fileno())
            self.syncs += 1
            self._unsynced = 0
        self._synced_at = self._clock()

    def close(self) -> None:
        if not self._handle.closed:
            try:
                self.sync()
            finally:
                self._handle.close()

    def __enter__(self) -> ArtifactAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
