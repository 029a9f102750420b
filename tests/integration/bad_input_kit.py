"""The CLI in-process against a scratch workspace, for the bad-input tests and the property suite.

`cli(argv, cwd)` runs `cairn_action.cli.main` with captured streams (and argparse's SystemExit turned into its
code), so hundreds of malformed inputs run in seconds instead of spawning hundreds of interpreters.
`Workspace` is a tiny corpus, golden set, config, run artifact and reports that each test may break.
`as_unprivileged` runs a function in a child process that has dropped root (CI runs as root, and root reads
and writes through any permission bit).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes.eval_kit import TINY

from cairn_action.cli import main

REPO = Path(__file__).resolve().parents[2]
REPORTS = REPO / "tests" / "data" / "reports"


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    @property
    def error_line(self) -> str:
        """The `error: ...` line (the first line of stderr that is one), or ''."""
        return next((line for line in self.err.splitlines() if line.startswith("error: ")), "")


def cli(argv: list[str], cwd: Path) -> Ran:
    """`cairn ARGV` run in `cwd`, in this process."""
    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: --help exits 0, a usage error exits 2
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException:  # cli.main must never let one out; show it as a crash would look
                err.write(traceback.format_exc())
                code = -1
    finally:
        os.chdir(before)
    return Ran(code=code, out=out.getvalue(), err=err.getvalue())


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under `folder` (relative path → sha256), symlinks as their target: to see what changed."""
    found: dict[str, str] = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            try:
                path.lstat()
            except OSError:  # in a folder that can be listed but not searched: cannot be looked at
                found[rel] = "unsearchable"
                continue
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
                continue
            if not path.is_file():  # a FIFO: reading it would wait for a writer
                found[rel] = "special"
                continue
            try:
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as exc:
                found[rel] = f"unreadable {exc.errno}"
    return found


def assert_user_error(ran: Ran, *names: str | Path) -> None:
    """Exit 2, no traceback, and the error line names one of `names` (a file, or a flag)."""
    assert ran.code == 2, f"exit {ran.code}\n{ran.err}"
    assert "Traceback" not in ran.err, ran.err
    line = ran.error_line or ran.err.strip().splitlines()[-1]
    assert any(str(n) in line for n in names), f"{line!r} names none of {names}"


class Workspace:
    """A scratch project: cairn.toml over a copy of the tiny corpus and golden set, and two reports."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.corpus = root / "corpus"
        self.golden_dir = root / "golden"
        self.golden = self.golden_dir / "golden.jsonl"
        self.config = root / "cairn.toml"
        self.baseline = root / "baseline.json"
        self.candidate = root / "candidate.json"
        shutil.copytree(TINY / "corpus", self.corpus)
        self.golden_dir.mkdir()
        shutil.copy(TINY / "golden.jsonl", self.golden)
        shutil.copy(TINY / "golden.version", self.golden_dir / "golden.version")
        self.write_config("")
        shutil.copy(REPORTS / "baseline.json", self.baseline)
        shutil.copy(REPORTS / "baseline.json", self.candidate)

    def write_config(self, body: str, *, name: str = "tiny") -> Path:
        self.config.write_text(
            f'name = "{name}"\n{body.strip()}\n\n[corpus]\npath = "corpus"\n\n[golden]\npath = "golden"\n',
            encoding="utf-8",
        )
        return self.config

    def report(self) -> dict[str, Any]:
        return json.loads(self.baseline.read_text(encoding="utf-8"))

    def eval_args(self, *extra: str) -> list[str]:
        return ["eval", "--config", str(self.config), "--no-progress", "--split", "all", *extra]


def nobody_can_import_cairn() -> bool:
    """Whether `nobody` can read this environment's packages and Cairn's source. Not so from a clone in
    a private folder (a `mktemp -d` folder, root's home): a child that became `nobody` could not import
    the modules the command it runs imports late."""
    import sysconfig

    import cairn_action

    def reachable(path: Path) -> bool:
        real = path.resolve()
        return all(p.stat().st_mode & 0o001 for p in [*real.parents, real]) and bool(
            real.stat().st_mode & 0o004
        )

    package = Path(cairn_action.__file__).parent
    return reachable(Path(sysconfig.get_paths()["purelib"])) and reachable(package)


def _drop_capabilities() -> None:
    """Keep uid 0 but give up every capability: the permission bits then apply to this process as to any
    user (mode 000 cannot be read, a 0555 folder cannot be written), while the files of the private
    clone, which root owns, stay readable through their owner bits."""
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    libc = ctypes.CDLL(None, use_errno=True)
    header = Header(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3: two Data, all zero
    if libc.capset(ctypes.byref(header), (Data * 2)()) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def as_unprivileged(function: Callable[[], Any]) -> Any:
    """`function()` in a forked child that dropped root for `nobody` (or, when `nobody` cannot import
    Cairn, kept uid 0 without any capability); its JSON-able result comes back.

    A fork, not `subprocess.run(user=...)`: the interpreter may live where `nobody` cannot execute it (a
    pyenv build under /root), but a forked child already runs it. Run as a non-root user, it just calls.
    """
    if os.geteuid() != 0:
        return function()
    import codecs
    import pwd

    # The child cannot import what the parent has not: the standard library may sit where `nobody`
    # cannot read it. zipfile (numpy's .npz of the index cache) looks up cp437 lazily.
    codecs.lookup("cp437")
    codecs.lookup("utf-8-sig")  # the config reader's, for a file that starts with a BOM

    nobody = pwd.getpwnam("nobody")
    as_nobody = nobody_can_import_cairn()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop privileges for good, run, report, and leave without cleanup
        try:
            os.close(read_end)
            if as_nobody:
                os.setgroups([])
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
            else:  # see nobody_can_import_cairn: root without its privileges instead
                _drop_capabilities()
            payload = json.dumps({"result": function()})
        except BaseException:
            payload = json.dumps({"crash": traceback.format_exc()})
        with os.fdopen(write_end, "w") as handle:
            handle.write(payload)
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    reply = json.loads(data)
    assert "crash" not in reply, reply.get("crash")
    return reply["result"]


def give_to_nobody(path: Path) -> None:
    """`chown -R nobody` (as root), so the unprivileged child owns the workspace it writes to (when that
    child is root without privileges, see `as_unprivileged`, root keeps owning it)."""
    if os.geteuid() != 0 or not nobody_can_import_cairn():
        return
    import pwd

    nobody = pwd.getpwnam("nobody")
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            os.lchown(Path(root) / name, nobody.pw_uid, nobody.pw_gid)
    os.chown(path, nobody.pw_uid, nobody.pw_gid)
