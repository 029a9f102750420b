"""Files of this repository as a test should see them, wherever the clone is.

- `committed_copy`: the committed version of tracked files, not the working tree's. `cairn eval` (the
  README's first command) rewrites reports/latest/default.json with new timings; tests that pin committed
  files (the leaderboard is `cairn bench` of the committed reports) must read what git holds, or the
  README's second command fails after its first.
- `sample_project`: a fresh project holding the repository's config, calibration and golden set.
- `handbook_corpus`: the Sourcegraph handbook, in full when ../shared/corpora sits beside the clone (the
  development machines), else the excerpt vendored under tests/data/handbook/excerpt (a user's clone).
  Never a skip: either way the test runs on real, messy documents.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FULL_HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"
HANDBOOK_EXCERPT = REPO / "tests" / "data" / "handbook" / "excerpt"
HANDBOOK_GOLDEN = REPO / "tests" / "data" / "handbook" / "golden.jsonl"


def handbook_corpus() -> Path:
    """The full handbook when present beside the repository, else the vendored excerpt."""
    return FULL_HANDBOOK if FULL_HANDBOOK.is_dir() else HANDBOOK_EXCERPT


def sample_project(folder: Path) -> Path:
    """A project in `folder` as a user's clone has it: the repository's cairn.toml, its calibration and its
    golden set (the sample corpus is generated on the first `cairn eval`)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("cairn.toml", "cairn.calibration.json"):
        shutil.copy(REPO / name, folder / name)
    shutil.copytree(REPO / "golden", folder / "golden")
    return folder


def _git(repo: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=False, check=False)
    except FileNotFoundError:  # no git at all: a tarball, not a checkout
        return None
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def _committed_files(repo: Path, rel: str) -> list[str] | None:
    """Tracked files at HEAD under `rel` (a file or a folder), or None outside a git checkout of `repo`."""
    top = _git(repo, "rev-parse", "--show-toplevel")
    if top is None or Path(top.strip()).resolve() != repo.resolve():  # not a checkout, or inside another
        return None
    listed = _git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", rel)
    return None if listed is None else [line for line in listed.splitlines() if line]


def committed_copy(rel: str, dest: Path, repo: Path = REPO) -> Path:
    """Copy the committed `rel` (file or folder, relative to the repository) under `dest`; `dest / rel`.

    In a git checkout, HEAD's blobs (a path not committed yet falls back to the working tree, so a new
    config can be tested before its first commit); outside one, the working tree's files.
    """
    files = _committed_files(repo, rel)
    if files:
        for name in files:
            blob = subprocess.run(
                ["git", "-C", str(repo), "show", f"HEAD:{name}"], capture_output=True, check=True
            ).stdout
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob)
        return dest / rel
    source, target = repo / rel, dest / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    elif source.exists():
        shutil.copy2(source, target)
    return target
