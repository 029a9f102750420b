"""The one boundary between Cairn and the file system: every file it reads or writes goes through here.

Reading: a size limit per kind of file, strict UTF-8, and JSON with a nesting limit, a limit on the digits of
an integer and no NaN or Infinity (none of them is JSON, and none survives being written again). Writing:
atomically (a temporary file beside the target, fsynced, then `os.replace`), and output folders are checked
before a run starts, so a folder that is a file, read-only or unreachable stops the run before any provider
is paid. Every failure is a `DataError` whose message starts with the path: `file[:line]: what`, and a hint.
"""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from cairn_action.errors import DataError

KiB = 1024
MiB = 1024 * KiB

# Generous for real files, small enough that a mistaken path (a disk image, /dev/zero) is refused quickly.
LIMIT_CONFIG = 1 * MiB
LIMIT_VERSION = 4 * KiB
LIMIT_GOLDEN = 64 * MiB
LIMIT_DOCUMENT = 16 * MiB
LIMIT_REPORT = 256 * MiB
LIMIT_ARTIFACT = 1024 * MiB
LIMIT_CACHE_ENTRY = 64 * MiB
LIMIT_EVENT = 32 * MiB
"""GitHub caps a webhook payload, which the runner's event file holds, at 25 MB."""

MAX_JSON_DEPTH = 64
"""Nesting no Cairn file comes near; deeper is an attack or an accident (and recursion in the parser)."""
MAX_INT_DIGITS = 40
"""Digits of a JSON integer: 64-bit counts need 20; Python refuses more than 4,300 with a ValueError."""

HINT_PATH = "check the path: it must name a readable file"


def _umask_mode() -> int:
    """0666 less the process's umask (read once, at import, before any thread runs)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _umask_mode()

_REASONS = {
    errno.ENOENT: "not found",
    errno.EISDIR: "is a folder, not a file",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "too many symbolic links (a symlink loop?)",
    errno.ENAMETOOLONG: "the path is too long",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "no space left on the device",
    errno.EEXIST: "already exists",
    errno.EINVAL: "not a valid path",
}


def os_reason(exc: OSError) -> str:
    """What an OSError means, in a few words (never the exception's repr)."""
    return _REASONS.get(exc.errno or 0, exc.strerror or type(exc).__name__)


def _shown(path: Path) -> str:
    text = str(path)
    return text if len(text) <= 300 else text[:150] + "..." + text[-100:]


# Reading ------------------------------------------------------------------------------------------------


def read_bytes(path: Path, *, what: str, hint: str = HINT_PATH, limit: int) -> bytes:
    """The file's bytes; DataError `path: cannot read <what>: <reason>` for anything that is not a
    readable regular file of at most `limit` bytes."""
    path = Path(path)
    try:
        # stat before open: opening a FIFO would wait for a writer forever.
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder")
        if not stat.S_ISREG(mode):
            raise DataError(f"{_shown(path)}: cannot read {what}: not a regular file", hint)
        with path.open("rb") as handle:
            data = handle.read(limit + 1)
    except DataError:
        raise
    except FileNotFoundError:
        raise DataError(f"{_shown(path)}: {what} not found", hint) from None
    except OSError as exc:
        raise DataError(f"{_shown(path)}: cannot read {what}: {os_reason(exc)}", hint) from None
    except ValueError:  # a NUL in the path
        raise DataError(f"{_shown(path)!r}: cannot read {what}: not a valid path", hint) from None
    if len(data) > limit:
        raise DataError(f"{_shown(path)}: {what} is larger than {_size(limit)}", hint)
    return data


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB else f"{n // KiB} KiB"


def decode_utf8(data: bytes, where: str, hint: str = "save the file as UTF-8", *, bom: bool = True) -> str:
    """Strict UTF-8 (a leading BOM dropped when `bom`); DataError `where:line: not valid UTF-8`."""
    try:
        return data.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise DataError(f"{where}:{line}: not valid UTF-8 (byte {exc.start})", hint) from None


def read_text(path: Path, *, what: str, hint: str = HINT_PATH, limit: int, bom: bool = True) -> str:
    """`read_bytes`, then strict UTF-8."""
    data = read_bytes(path, what=what, hint=hint, limit=limit)
    return decode_utf8(data, _shown(Path(path)), bom=bom)


def exists(path: Path) -> bool:
    """`path.exists()` that says False for a path too long or otherwise unusable, instead of raising."""
    try:
        return Path(path).exists()
    except (OSError, ValueError):
        return False


def not_found(path: Path) -> str:
    """Why `exists(path)` said False, for the message: "not found", or, when a folder on the way cannot
    be searched, that it cannot be reached (the file may well be there)."""
    try:
        Path(path).lstat()
    except PermissionError:
        return "cannot be reached: permission denied on a folder on its path"
    except (OSError, ValueError):
        pass
    return "not found"


def is_dir(path: Path) -> bool:
    try:
        return Path(path).is_dir()
    except (OSError, ValueError):
        return False


def is_file(path: Path) -> bool:
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


# JSON ---------------------------------------------------------------------------------------------------


class JsonProblem(ValueError):
    """JSON that Cairn refuses: invalid, too deep, an integer too long, NaN or Infinity."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonProblem(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem(f"the number {text[:20]} is out of range")
    return value


def _parse_constant(name: str) -> float:
    raise JsonProblem(f"{name} is not a JSON number")


def _depth_exceeded(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def parse_json(
    text: str,
    *,
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """`json.loads` within Cairn's limits; raises JsonProblem (with line and column when JSON says)."""
    try:
        value = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
            object_pairs_hook=object_pairs_hook,
        )
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonProblem(f"nested more than {max_depth} levels deep") from None
    if _depth_exceeded(value, max_depth):
        raise JsonProblem(f"nested more than {max_depth} levels deep")
    return value


# Writing ------------------------------------------------------------------------------------------------


@contextmanager
def os_errors_as_data_errors(what: str, hint: str = HINT_PATH) -> Iterator[None]:
    """An OSError in the block (a folder that cannot be listed, a file that cannot be read or written)
    becomes a DataError naming the path: a user's folder is bad input, not a bug with a traceback."""
    try:
        yield
    except OSError as exc:
        where = _shown(Path(exc.filename)) if exc.filename else "?"
        raise DataError(f"{where}: cannot {what}: {os_reason(exc)}", hint) from None


def _write_error(path: Path, what: str, exc: OSError, hint: str) -> DataError:
    return DataError(f"{_shown(path)}: cannot write {what}: {os_reason(exc)}", hint)


HINT_WRITE = "choose a path in a folder you can write to"


def check_output_dir(path: Path, *, what: str, hint: str = HINT_WRITE) -> None:
    """Refuse, before any work, a folder that cannot be created or written: a file in its place or on
    its way, no write permission on the nearest existing folder, a path too long or looping."""
    path = Path(path)
    for candidate in (path, *path.parents):
        try:
            info = candidate.stat()
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            continue  # some part above is a file: found on the way up
        except (OSError, ValueError) as exc:
            reason = os_reason(exc) if isinstance(exc, OSError) else "not a valid path"
            raise DataError(f"{_shown(path)}: cannot use as {what}: {reason}", hint) from None
        if not stat.S_ISDIR(info.st_mode):
            where = "it is a file" if candidate == path else f"{_shown(candidate)} is a file"
            raise DataError(f"{_shown(path)}: cannot use as {what}: {where}, not a folder", hint)
        if not os.access(candidate, os.W_OK | os.X_OK):
            where = "" if candidate == path else f" ({_shown(candidate)})"
            raise DataError(f"{_shown(path)}: cannot write {what}: the folder{where} is read-only", hint)
        return


def check_output_file(path: Path, *, what: str, hint: str = HINT_WRITE) -> None:
    """Refuse, before any work, a file that could not be written atomically: a folder in its place, or a
    folder for it that `check_output_dir` refuses."""
    path = Path(path)
    if is_dir(path):
        raise DataError(f"{_shown(path)}: cannot write {what}: it is a folder, not a file", hint)
    try:
        # Replacing a device or a FIFO (as root, /dev/null itself) with a regular file would be a disaster.
        if not stat.S_ISREG(path.stat().st_mode):
            raise DataError(f"{_shown(path)}: cannot write {what}: not a regular file", hint)
    except (FileNotFoundError, NotADirectoryError):
        pass  # a new file (a part of the path that is a file is found by check_output_dir below)
    except OSError as exc:  # a symlink loop, a name too long, ...
        raise DataError(f"{_shown(path)}: cannot write {what}: {os_reason(exc)}", hint) from None
    except ValueError:
        raise DataError(f"{_shown(path)!r}: cannot write {what}: not a valid path", hint) from None
    if len(path.name.encode()) > 200:  # the temporary file beside it adds a prefix and a suffix
        raise DataError(f"{_shown(path)}: cannot write {what}: the file name is too long", hint)
    check_output_dir(path.parent, what=f"the folder for {what}", hint=hint)


def fsync_dir(folder: Path) -> None:
    """Make a created or replaced file's directory entry durable; not possible on every platform."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_writer(
    path: Path, *, prefix: str | None = None, suffix: str = ".tmp", durable: bool = True
) -> Iterator[IO[bytes]]:
    """A binary handle on a temporary file beside `path` that becomes `path` (fsynced, then `os.replace`)
    when the block ends; on any exception the temporary file is removed and `path` is left as it was.
    `durable=False` skips the fsync: a crash or a kill still leaves the old file or the whole new one,
    but a power cut before the kernel writes it back may leave neither. OSErrors of the file system
    propagate (`write_bytes` turns them into DataError)."""
    fd, tmp = tempfile.mkstemp(prefix=prefix or f".{path.name[:100]}.", suffix=suffix, dir=path.parent)
    try:
        # mkstemp makes the file 0600; the file Cairn leaves gets the mode an ordinary write would give
        # it (the old file's, else what the umask allows): a sealed set's questions or a report in a
        # checkout must stay readable to whoever reads the checkout, as git would check them out.
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = _NEW_FILE_MODE
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_bytes(
    path: Path, data: bytes, *, what: str = "the file", hint: str = HINT_WRITE, durable: bool = True
) -> None:
    """Write `data` to `path` atomically, creating its folder; DataError (path first) when it cannot.
    `durable=False` (a scratch file, a corpus generated again on demand) skips the fsyncs."""
    path = Path(path)
    check_output_file(path, what=what, hint=hint)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path, durable=durable) as handle:
            handle.write(data)
    except OSError as exc:
        raise _write_error(path, what, exc, hint) from None
    if durable:
        fsync_dir(path.parent)


def write_text(
    path: Path, text: str, *, what: str = "the file", hint: str = HINT_WRITE, durable: bool = True
) -> None:
    """`write_bytes` of UTF-8 text with `\\n` line ends."""
    write_bytes(path, text.encode("utf-8"), what=what, hint=hint, durable=durable)


def append_text(path: Path, text: str, *, what: str, hint: str = HINT_WRITE) -> None:
    """Append UTF-8 text to `path` (created if absent): for files another program owns and reads as a log,
    such as the runner's GITHUB_OUTPUT, where replacing the file would lose what others wrote."""
    path = Path(path)
    try:
        with path.open("a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise _write_error(path, what, exc, hint) from None


def make_dirs(path: Path, *, what: str, hint: str = HINT_WRITE) -> None:
    """`mkdir -p`, with a DataError naming the path instead of an OSError."""
    check_output_dir(path, what=what, hint=hint)
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(Path(path), what, exc, hint) from None
