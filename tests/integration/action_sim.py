"""A simulated GitHub Actions runner for the Action's integration tests.

A git repository with a base commit (config, corpus, golden set, the committed baseline) and head
commits made per test; the event JSON, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files; and the real
entrypoint, `python -P -m cairn_action action`, run as a subprocess against the loopback fake GitHub.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import secrets
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakes.github_server import FakeGitHub

REPO = Path(__file__).resolve().parents[2]
REPOSITORY = "acme/rag"
PR = 7
LATEST = "reports/latest/default.json"
COMMAND_FILES = {
    "GITHUB_OUTPUT": "set_output",
    "GITHUB_STEP_SUMMARY": "step_summary",
    "GITHUB_ENV": "set_env",
    "GITHUB_PATH": "add_path",
    "GITHUB_STATE": "save_state",
}
"""The runner's file commands (docs/action/github-facts.md#outputs): the step's only ways to change the job
besides stdout."""

CONFIG = """name = "default"

[corpus]
path = "corpus"

[golden]
path = "golden/golden.jsonl"
"""
# The demo's deliberately worse variant: one chunk for the answerer, chunks that split passages.
WORSE_CONFIG = (
    CONFIG
    + """
[retrieval]
top_k = 1

[chunking]
size = 200
overlap = 0
"""
)


def _reachable_by_others(path: Path, *, need: int = 0o001) -> bool:
    """Whether another uid can reach `path` (every folder on the way searchable, by the path as written
    and as resolved: a symlink is followed from where it is) and use it (`need`: the mode bits for
    others, execute by default)."""
    for route in {path.absolute(), path.resolve()}:
        if not all(p.stat().st_mode & 0o001 for p in route.parents):
            return False
    return path.resolve().stat().st_mode & need == need


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)  # a hard link is reachable by where it is, and costs nothing
    except OSError:
        shutil.copy2(src, dst)  # another filesystem


def _readable_site(here: Path, folder: Path) -> Path:
    """`here` (this environment's packages) as the evaluation user can read it. As it is, unless a folder
    on the way is private (a clone in a 0700 folder, root's home): then a copy in `folder`, hard-linked
    where it can be, whose editable installs (a .pth naming a private source folder) are copied too, as
    their importable packages only."""
    if _reachable_by_others(here, need=0o005):
        return here
    site = folder / "readable-site"
    shutil.copytree(here, site, symlinks=True, copy_function=_link_or_copy)
    for pth in site.glob("*.pth"):
        lines = []
        for line in pth.read_text(encoding="utf-8").splitlines():
            source = Path(line.strip())
            if line.startswith(("import ", "#")) or not source.is_absolute() or not source.is_dir():
                lines.append(line)
                continue
            if not _reachable_by_others(source, need=0o005):
                copy = folder / "readable-editable" / pth.stem
                copy.mkdir(parents=True)
                for package in source.iterdir():
                    if (package / "__init__.py").is_file():
                        shutil.copytree(package, copy / package.name, copy_function=_link_or_copy)
                source = copy
            lines.append(str(source))
        pth.unlink()  # a hard link to the environment's own file: write a new one, never through it
        pth.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return site


@functools.cache
def interpreter() -> str:
    """The Python that runs the Action. As root, the Action runs the evaluation as another user, who must
    be able to execute it and import its packages: a pyenv Python under /root (mode 0700), or a venv in a
    clone in a private folder, cannot be used so. A venv over the system's Python of the same minor
    version, seeing this environment's packages (a readable copy of them when they are private), stands in
    (as the image's /usr/local/bin/python does)."""
    here = Path(sysconfig.get_paths()["purelib"])
    if os.geteuid() != 0 or (
        _reachable_by_others(Path(sys.executable)) and _reachable_by_others(here, need=0o005)
    ):
        return sys.executable
    base = Path(f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}")
    if not base.is_file():
        return sys.executable  # the uid-separated runs will say they cannot start the evaluation
    folder = Path(tempfile.mkdtemp(prefix="cairn-sim-python-"))
    folder.chmod(0o755)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    subprocess.run([str(base), "-m", "venv", "--without-pip", str(folder)], check=True, capture_output=True)
    [site] = folder.glob("lib/python*/site-packages")
    readable = _readable_site(here, folder)
    (site / "cairn_sim.pth").write_text(
        f"import site; site.addsitedir({str(readable)!r})\n", encoding="utf-8"
    )
    return str(folder / "bin" / "python")


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.invalid",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.invalid",
    }
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def cairn(cwd: Path, *args: str) -> None:
    subprocess.run(
        [sys.executable, "-P", "-m", "cairn_action", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=600,
    )


@dataclass(frozen=True)
class Template:
    """Built once per session: the base commit and two ready-made reports."""

    path: Path
    base_sha: str
    baseline: bytes
    """reports/latest/default.json of the base commit."""
    worse: bytes
    """The report of the worse config (what a regressing pull request would commit as its own copy)."""


def build_template(root: Path) -> Template:
    from cairn_action.sample.generate import generate_corpus

    repo = root / "template"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "cairn.toml").write_text(CONFIG, encoding="utf-8")
    (repo / ".gitignore").write_text(".cairn/\nreports/runs/\ncairn-results/\n", encoding="utf-8")
    generate_corpus(repo / "corpus")
    shutil.copytree(REPO / "golden", repo / "golden")
    cairn(repo, "eval", "--no-progress")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base: config, corpus, golden set, baseline")
    base_sha = git(repo, "rev-parse", "HEAD")
    # The worse config's report, measured in a scratch copy (its cache stays out of the template).
    scratch = root / "worse"
    shutil.copytree(repo, scratch, ignore=shutil.ignore_patterns(".git", ".cairn"))
    (scratch / "cairn.toml").write_text(WORSE_CONFIG, encoding="utf-8")
    cairn(scratch, "eval", "--no-progress")
    return Template(
        path=repo,
        base_sha=base_sha,
        baseline=(repo / LATEST).read_bytes(),
        worse=(scratch / LATEST).read_bytes(),
    )


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str


def parse_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name=value` lines and `name<<DELIM` blocks."""
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
            i += 1
        else:
            i += 1
    return outputs


@dataclass
class Sim:
    root: Path
    workspace: Path
    fake: FakeGitHub
    template: Template
    token: str = field(default_factory=lambda: "ghs_" + secrets.token_hex(18))
    api_key: str = field(default_factory=lambda: "sk-test-" + secrets.token_hex(16))
    runtime_token: str = field(default_factory=lambda: "rt_" + secrets.token_hex(18))
    runs: int = 0

    @property
    def base_sha(self) -> str:
        return self.template.base_sha

    def commit(self, files: Mapping[str, str | bytes], message: str, *, force: bool = False) -> str:
        """A new commit on the checked-out branch with `files` written (`force`: even the ignored ones,
        as `git add -f` does); its SHA."""
        for name, content in files.items():
            path = self.workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode() if isinstance(content, str) else content)
        git(self.workspace, "add", "-A")
        if force:
            git(self.workspace, "add", "-f", "--", *files)
        git(self.workspace, "commit", "-q", "-m", message)
        return git(self.workspace, "rev-parse", "HEAD")

    def open_pull(self, head_sha: str, *, fork: bool = False, labels: tuple[str, ...] = ()) -> None:
        self.fake.add_pull(PR, head_sha=head_sha, base_sha=self.base_sha, fork=fork, labels=list(labels))
        self.sync_files()

    def move_head(self, head_sha: str) -> None:
        """The pull request's head is now `head_sha` (a push), with its changed files."""
        self.fake.pulls[PR]["head"]["sha"] = head_sha
        self.sync_files()

    def sync_files(self) -> None:
        """The fake's `GET /pulls/7/files`: what `git diff base...head` names, as GitHub lists it."""
        head = self.fake.pulls[PR]["head"]["sha"]
        changed = git(self.workspace, "diff", "--name-only", f"{self.base_sha}...{head}")
        self.fake.pull_files[PR] = [p for p in changed.splitlines() if p]

    def pr_event(
        self, action: str, *, sender: str = "contributor", label: str | None = None
    ) -> dict[str, Any]:
        pr = self.fake.pull_json(PR)
        payload: dict[str, Any] = {
            "action": action,
            "number": PR,
            "pull_request": {
                "number": PR,
                "head": pr["head"],
                "base": pr["base"],
                "labels": pr["labels"],
                "user": pr["user"],
            },
            "repository": {"full_name": REPOSITORY, "default_branch": "main"},
            "sender": {"login": sender, "type": "User"},
        }
        if label is not None:
            payload["label"] = {"name": label}
        return payload

    def run(
        self,
        event_name: str,
        payload: Mapping[str, Any],
        *,
        inputs: Mapping[str, str] | None = None,
        sha: str = "",
        ref: str = "refs/pull/7/merge",
        api_suffix: str = "",
        background: bool = False,
        workspace: Path | None = None,
        extra_env: Mapping[str, str] | None = None,
    ) -> Result | subprocess.Popen[str]:
        """Run the entrypoint for `event_name`; `extra_env`: variables the step's `env:` adds."""
        workspace = workspace or self.workspace
        if (workspace / ".git").exists():  # each job checks out afresh: no untracked results survive
            git(workspace, "clean", "-fdqx", "--", "cairn-results")
        self.runs += 1
        runner = self.root / "runner" / f"run{self.runs}"
        runner.mkdir(parents=True)
        event = runner / "event.json"
        event.write_text(json.dumps(payload), encoding="utf-8")
        for name in COMMAND_FILES.values():  # the runner creates them before the step starts
            (runner / name).touch(mode=0o644)
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(runner),
            "LANG": "C.UTF-8",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": self.fake.url + api_suffix,
            "GITHUB_SERVER_URL": "https://github.example",
            "GITHUB_RUN_ID": str(1000 + self.runs),
            "GITHUB_WORKSPACE": str(workspace),
            "GITHUB_SHA": sha,
            "GITHUB_REF": ref,
            **{var: str(runner / name) for var, name in COMMAND_FILES.items()},
            "ACTIONS_RUNTIME_TOKEN": self.runtime_token,
            "OPENAI_API_KEY": self.api_key,
            "INPUT_GITHUB-TOKEN": self.token,
            "INPUT_CONFIG": "cairn.toml",
            "INPUT_MODE": "auto",
            "INPUT_OVERRIDE-LABEL": "cairn-override",
            "INPUT_COMMENT": "true",
            "INPUT_STATUS": "false",
            "INPUT_WORKING-DIRECTORY": ".",
        }
        env.update({f"INPUT_{k.upper()}": v for k, v in (inputs or {}).items()})
        env.update(extra_env or {})
        cmd = [interpreter(), "-P", "-m", "cairn_action", "action"]
        proc = subprocess.Popen(
            cmd, cwd=workspace, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        proc.runner_dir = runner  # type: ignore[attr-defined]
        return proc if background else self.wait(proc)

    def wait(self, proc: subprocess.Popen[str]) -> Result:
        stdout, stderr = proc.communicate(timeout=600)
        runner: Path = proc.runner_dir  # type: ignore[attr-defined]
        out, summary = runner / "set_output", runner / "step_summary"
        return Result(
            code=proc.returncode,
            stdout=stdout,
            stderr=stderr,
            outputs=parse_outputs(out.read_text(encoding="utf-8")) if out.exists() else {},
            summary=summary.read_text(encoding="utf-8") if summary.exists() else "",
        )

    def secrets_in_files(self) -> list[str]:
        """Files under the simulation that contain the token or the API key (there must be none)."""
        found = []
        needles = (self.token.encode(), self.api_key.encode(), self.runtime_token.encode())
        for path in self.root.rglob("*"):
            if path.is_file() and ".git" not in path.parts and any(n in path.read_bytes() for n in needles):
                found.append(str(path))
        return found

    def comments(self) -> list[dict[str, Any]]:
        return sorted(self.fake.issue_comments(PR), key=lambda c: c["id"])

    def sticky(self) -> list[dict[str, Any]]:
        return [c for c in self.comments() if c["body"].startswith("<!-- cairn:gate config=default -->")]


@functools.cache
def _shared_root() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="cairn-sims-"))
    folder.chmod(0o711)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def sim_root(tmp_path: Path) -> Path:
    """Where a simulated runner keeps its checkout and files. As root, the Action runs the evaluation as
    another user, who must reach the checkout as on a real runner (/home/runner/work is traversable):
    pytest's folders are not (and a concurrent pytest resets them to 0700), so a folder of our own."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return tmp_path
    root = Path(tempfile.mkdtemp(prefix="sim-", dir=_shared_root()))
    root.chmod(0o711)
    link = tmp_path / "sim-root"
    if not link.exists():
        link.symlink_to(root)  # for a look after a failure
    return root


def new_sim(template: Template, tmp_path: Path, fake: FakeGitHub, *, seed_baseline: bool = True) -> Sim:
    tmp_path = sim_root(tmp_path)
    workspace = tmp_path / "workspace"
    shutil.copytree(template.path, workspace, symlinks=True)
    files = {LATEST: template.baseline} if seed_baseline else {"README.md": b"no reports yet\n"}
    files["cairn.toml"] = (template.path / "cairn.toml").read_bytes()
    fake.seed_commit(files, sha=template.base_sha, branch="main")
    return Sim(root=tmp_path, workspace=workspace, fake=fake, template=template)
