"""`cairn init [DIR]`: a project Cairn runs in at once, to edit into your own.

It writes a commented cairn.toml, an example document under docs/, a golden set for it (golden.jsonl and
golden.version), my_rag.py (a stand-in target to replace with your system), the pull-request,
baseline and release workflows, and the two-job variant of the gate (inactive until moved). It never
overwrites: if any of those files exists, nothing is written.
Afterwards `cairn golden check` and `cairn eval` run there as they are.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.errors import CairnError, ExitCode
from cairn_action.files import (
    LIMIT_CONFIG,
    LIMIT_DOCUMENT,
    check_output_dir,
    os_errors_as_data_errors,
    read_bytes,
    read_text,
    write_bytes,
)

if TYPE_CHECKING:
    import argparse

PACKAGE = Path(__file__).resolve().parents[1]
SCAFFOLD = PACKAGE / "scaffold"
WORKFLOWS = ("cairn-pr.yml", "cairn-fork-comment.yml", "cairn-baseline.yml", "release-stamp.yml")
"""The examples copied into .github/workflows/ (the gate, the comment stage for fork pull requests that
the gate names, the baseline refresh, the release stamp), fitted to the project (`fit_workflow`)."""
TWO_JOBS = ("cairn-two-jobs.yml", "cairn-two-jobs-fork-gate.yml")
TWO_JOBS_DIR = ".github/cairn-two-jobs"
"""The two-job variant of the gate (and its fork stage) goes here, not into .github/workflows/: GitHub runs
every file there, and the one-job and two-job gates side by side would each evaluate and comment on every
pull request. Each file's header says when to use which, and how to switch."""
EXAMPLE_CORPUS = "corpus"
EXAMPLE_BRANCH = "main"


def _workflow_dir() -> Path:
    """The example workflows: inside the installed wheel, or in the checkout's examples/workflows/."""
    for candidate in (PACKAGE / "_embedded_workflows", PACKAGE.parent / "examples" / "workflows"):
        if all((candidate / name).is_file() for name in (*WORKFLOWS, *TWO_JOBS)):
            return candidate
    raise CairnError(
        "the example workflows are missing from this installation of Cairn",
        "reinstall Cairn (`pip install --force-reinstall ...`), or copy them from its examples/workflows/",
    )


def fit_workflow(text: str, *, corpus: str, branch: str) -> str:
    """An example workflow made to fit the project: its index cache keyed on the project's corpus folder
    (the examples say `corpus/`), and its branch filters on the repository's default branch."""
    text = text.replace(f"hashFiles('{EXAMPLE_CORPUS}/**'", f"hashFiles('{corpus}/**'")
    return text.replace(f"branches: [{EXAMPLE_BRANCH}]", f"branches: [{branch}]")


def default_branch(folder: Path) -> str:
    """The repository's default branch when `folder` is in a git checkout that says (origin's HEAD, else
    the checked-out branch), else `main`."""
    for argv in (
        ["symbolic-ref", "--short", "refs/remotes/origin/HEAD"],
        ["symbolic-ref", "--short", "HEAD"],
    ):
        try:
            done = subprocess.run(
                ["git", "-C", str(folder), *argv], capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return EXAMPLE_BRANCH  # no git here
        name = done.stdout.strip().removeprefix("origin/")
        if done.returncode == 0 and re.fullmatch(r"[A-Za-z0-9._/-]{1,100}", name):
            return name
    return EXAMPLE_BRANCH


def scaffold_files(branch: str = EXAMPLE_BRANCH) -> dict[str, bytes]:
    """Every file `cairn init` writes, by its path relative to DIR."""
    files = {
        p.relative_to(SCAFFOLD).as_posix(): read_bytes(p, what="the scaffold", limit=LIMIT_DOCUMENT)
        for p in sorted(SCAFFOLD.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    corpus = tomllib.loads(files["cairn.toml"].decode("utf-8"))["corpus"]["path"]
    workflows = _workflow_dir()
    placed = [(".github/workflows", name) for name in WORKFLOWS] + [(TWO_JOBS_DIR, name) for name in TWO_JOBS]
    files.update(
        {
            f"{folder}/{name}": fit_workflow(
                read_text(workflows / name, what="the example workflow", limit=LIMIT_CONFIG),
                corpus=corpus,
                branch=branch,
            ).encode("utf-8")
            for folder, name in placed
        }
    )
    return files


NEXT_STEPS = """\
wrote a Cairn project in {dir}: {n} files
  cairn.toml                 the config (every key commented)
  docs/                      an example document: replace it with your documents
  golden/golden.jsonl        5 cases about it, with golden.version: write your own, bump the version
  my_rag.py                  the system under test (a keyword stand-in): call your own RAG system here
  .github/workflows/         the pull-request gate (and its comment stage for forks), the baseline
                             refresh, the release stamp
  .github/cairn-two-jobs/    the two-job gate, for a system with its own packages or services: move it
                             into workflows/ in place of cairn-pr.yml and cairn-fork-comment.yml
next:
  {cd}cairn golden check      every support quote found in its document
  cairn eval                 run, score and write reports/latest/my-rag.json
then commit reports/latest/my-rag.json: it is the baseline every pull request is gated against
(replace `owner/cairn@v1` in the workflows with where you got Cairn)"""


def _write_scaffold(target: Path, files: dict[str, bytes]) -> None:
    """Write `files` under `target`, or nothing if any of them is there already."""
    present = [rel for rel in files if (target / rel).exists()]
    if present:
        shown = ", ".join(present[:5]) + (f" and {len(present) - 5} more" if len(present) > 5 else "")
        raise CairnError(
            f"{target}: already has {shown}; nothing was written",
            "`cairn init` never overwrites: run it in a new or empty folder, or move those files aside",
        )
    for rel, data in files.items():
        write_bytes(target / rel, data, what=rel)


def cmd_init(args: argparse.Namespace) -> int:
    target = Path(args.dir)
    if target.exists() and not target.is_dir():
        raise CairnError(f"{target}: exists and is not a folder", "pass a folder (new or existing) to init")
    files = scaffold_files(default_branch(target if target.is_dir() else target.parent))
    with os_errors_as_data_errors("write the project there", "pass a folder you can read and write to init"):
        check_output_dir(target, what="the project folder")
        _write_scaffold(target, files)
    here = target.resolve() == Path.cwd().resolve()
    cd = "" if here else f"cd {args.dir} && "
    print(NEXT_STEPS.format(dir=target, n=len(files), cd=cd), file=sys.stdout)
    return ExitCode.PASS
