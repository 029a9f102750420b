"""Where and as whom the evaluation child runs: a fresh scratch folder outside the workspace, another uid.

The run executes the system under test, which may be the pull request's own code. Two things follow:

- Nothing the run resumes or caches may come from the checkout. A committed `cairn-results/.../run.jsonl`
  would be resumed as if it had been measured, and committed `.cairn/cache` entries would answer the pull
  request's prompts. So the artifact, the response cache and the child's HOME and TMPDIR live in a fresh
  temporary folder that this process creates, outside GITHUB_WORKSPACE.
- The token must not reach that code. Removing it from the child's environment is not enough: a process
  of the same uid reads `/proc/<parent>/environ` (and, in the container, PID 1's, which holds
  ACTIONS_RUNTIME_TOKEN) and writes the runner's command files. So, when this process is root (a Docker
  action always is), the child runs as an unprivileged user (`cairn-eval`, made by the Dockerfile) with
  no supplementary groups and a minimal environment: what Python and HTTP need, plus only the variables
  the workflow lists in the `env` input (action/trust.py: never what the config, which the pull request can
  edit, names). A non-root process cannot switch uid; it says so in a notice.
"""

from __future__ import annotations

import os
import pwd
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import CairnError

EVAL_USER = "cairn-eval"
"""The unprivileged user the Dockerfile creates for the evaluation child."""
FALLBACK_USER = "nobody"
_PASSED = (
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
)
"""Not secrets, and what a provider call through a proxy or a private CA needs."""


@dataclass(frozen=True, kw_only=True)
class Identity:
    """Who the child runs as: another uid (`isolated`), or this process's own."""

    uid: int
    gid: int
    name: str
    isolated: bool


def eval_identity(*, euid: int | None = None) -> Identity:
    """`cairn-eval` (else `nobody`) when this process is root; this process's own uid otherwise."""
    euid = os.geteuid() if euid is None else euid
    if euid != 0:
        return Identity(uid=euid, gid=os.getegid(), name=str(euid), isolated=False)
    for name in (EVAL_USER, FALLBACK_USER):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        if entry.pw_uid != 0:
            return Identity(uid=entry.pw_uid, gid=entry.pw_gid, name=name, isolated=True)
    raise CairnError(
        f"running as root with neither a '{EVAL_USER}' nor a '{FALLBACK_USER}' user to run the "
        "evaluation as: the pull request's code would run as root",
        f"use the action's image (it creates '{EVAL_USER}'), or `useradd --system {EVAL_USER}`",
    )


def child_environment(env: Mapping[str, str], passed: Mapping[str, str], scratch: Scratch) -> dict[str, str]:
    """The child's whole environment: no GITHUB_*, INPUT_*, ACTIONS_* or runner file paths at all; the
    workflow's `passed` variables (trust.passed_variables), then HOME and TMPDIR in the scratch folder."""
    child = {k: env[k] for k in _PASSED if k in env}
    child.setdefault("PATH", os.defpath)
    child.update(passed)
    child.update(
        HOME=str(scratch.home),
        TMPDIR=str(scratch.tmp),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONSAFEPATH="1",
    )
    return child


class Scratch:
    """A fresh folder outside the workspace: `run/` (the child's: artifacts, cache, HOME, TMPDIR) owned
    by the child's user, the rest this process's. Removed by `close()`."""

    def __init__(self, identity: Identity, *, workspace: Path, parent: Path | None = None) -> None:
        self.identity = identity
        self.root = Path(tempfile.mkdtemp(prefix="cairn-scratch-", dir=parent))
        resolved, ws = self.root.resolve(), workspace.resolve()
        if resolved == ws or ws in resolved.parents:
            shutil.rmtree(self.root, ignore_errors=True)
            raise CairnError(
                f"the scratch folder {self.root} is inside the workspace {workspace}",
                "set TMPDIR to a folder outside GITHUB_WORKSPACE",
            )
        os.chmod(self.root, 0o711)  # the child may traverse to run/, but not list the rest
        self.run = self.root / "run"
        for path in (self.run, self.home, self.tmp, self.cache):
            path.mkdir(mode=0o700, exist_ok=True)
            if identity.isolated:
                os.chown(path, identity.uid, identity.gid)

    @property
    def home(self) -> Path:
        return self.run / "home"

    @property
    def tmp(self) -> Path:
        return self.run / "tmp"

    @property
    def cache(self) -> Path:
        return self.run / "cache"

    def artifact(self, config_name: str, file: str = "run.jsonl") -> Path:
        """Where the child writes this config's run; refused if something is there already."""
        path = self.run / config_name / file
        if path.exists():
            raise CairnError(
                f"{path}: a run artifact exists before the run; Cairn resumes nothing it did not measure "
                "in this job",
                "this is a fresh folder: report it as a bug",
            )
        return path

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
