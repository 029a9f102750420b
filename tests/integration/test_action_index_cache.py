"""The `index-cache` input end to end: the real entrypoint in a simulated runner, the folder the workflow's
actions/cache steps would restore and save (outside the workspace, as /github/home is)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from action_sim import CONFIG, LATEST, REPOSITORY, Sim, Template, new_sim
from fakes.github_server import FakeGitHub

pytestmark = pytest.mark.slow


@pytest.fixture
def sim(template: Template, tmp_path: Path, fake_github: FakeGitHub) -> Sim:
    return new_sim(template, tmp_path, fake_github)


def _folder(sim: Sim) -> Path:
    """Where /github/home/.cache/cairn-index would be: beside the checkout, not in it."""
    return sim.root / "github-home" / ".cache" / "cairn-index"


def _seeded(sim: Sim) -> Path:
    """The folder as a restore from the baseline's cache would leave it: the index `cairn eval` built
    for the base commit (the template's own, same corpus and config)."""
    folder = _folder(sim)
    shutil.copytree(sim.template.path / ".cairn" / "cache" / "index", folder / "index", symlinks=True)
    return folder


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every entry: its kind, its bytes (a link's target) and its mtime in ns, read without following."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        if path.is_symlink():
            found[str(path.relative_to(folder))] = ("link", os.readlink(path).encode(), info.st_mtime_ns)
        elif path.is_file():
            found[str(path.relative_to(folder))] = ("file", path.read_bytes(), info.st_mtime_ns)
        else:
            found[str(path.relative_to(folder))] = ("dir", b"", info.st_mtime_ns)
    return found


def _push(sim: Sim) -> dict[str, Any]:
    sha = sim.commit({"README.md": "docs only\n"}, "Merge pull request #7")
    sim.fake.seed_commit({LATEST: sim.template.baseline}, sha=sha, parents=(sim.base_sha,), branch="main")
    return {
        "ref": "refs/heads/main",
        "before": sim.base_sha,
        "after": sha,
        "repository": {"full_name": REPOSITORY, "default_branch": "main"},
        "sender": {"login": "maint"},
    }


def _pull_request(sim: Sim, folder: Path) -> Any:
    sim.open_pull(sim.commit({"README.md": "a docs change\n"}, "docs"))
    return sim.run("pull_request", sim.pr_event("opened"), inputs={"index-cache": str(folder)})


def test_action__index_cache__baseline_run__stores_the_index_and_the_next_run_rebuilds_nothing(
    sim: Sim,
) -> None:
    folder = _folder(sim)
    push = _push(sim)

    first = sim.run(
        "push", push, sha=push["after"], ref="refs/heads/main", inputs={"index-cache": str(folder)}
    )

    assert first.code == 0, first.stdout + first.stderr
    assert "holds no index yet" in first.stdout
    # the template's corpus is the sample and its config the default: the package's prebuilt entries
    assert "(chunks shipped, BM25 shipped)" in first.stdout
    stored = sorted(p.name for p in (folder / "index").iterdir())
    assert [n.split("-")[0] for n in stored] == ["bm25", "bm25", "bm25", "chunks"]
    assert stored == sorted(p.name for p in (sim.template.path / ".cairn/cache/index").iterdir())

    second = sim.run(
        "push", push, sha=push["after"], ref="refs/heads/main", inputs={"index-cache": str(folder)}
    )

    assert second.code == 0, second.stdout + second.stderr
    assert "index-cache: restored from" in second.stdout
    assert "(chunks cached, BM25 cached)" in second.stdout
    assert "0 files (0.0 MB) copied, 4 already there" in second.stdout  # nothing new to store


def test_action__index_cache__pull_request__restores_and_never_writes_back(sim: Sim) -> None:
    folder = _seeded(sim)
    before = _snapshot(folder)
    # A second config chunking differently: its index is built in this run, and would be new in the
    # folder if anything were written back.
    small = CONFIG.replace('name = "default"', 'name = "small"') + "\n[chunking]\nsize = 400\noverlap = 80\n"
    sim.open_pull(sim.commit({"small.toml": small}, "a config with smaller chunks"))

    result = sim.run(
        "pull_request",
        sim.pr_event("opened"),
        inputs={"index-cache": str(folder), "config": "cairn.toml\nsmall.toml"},
    )

    assert result.code == 0, result.stdout + result.stderr
    assert "index-cache: restored from" in result.stdout
    assert "(chunks cached, BM25 cached)" in result.stdout  # cairn.toml's index, from the folder
    assert "(chunks built, BM25 built)" in result.stdout  # small.toml's, built in the scratch cache
    assert "pr mode (a pull request's run, a fork's too) never writes back" in result.stdout
    assert _snapshot(folder) == before  # byte for byte, mtimes too, nothing added


def test_action__index_cache__symlink_in_the_folder__not_followed(sim: Sim) -> None:
    folder = _seeded(sim)
    # The chunks entry moved out of the folder and linked back in: a valid entry, reached only through
    # the link. Followed, the run would say `chunks cached` (not followed, the entry is the package's
    # prebuilt one for the sample: `shipped`).
    [chunks] = (folder / "index").glob("chunks-*.npz")
    elsewhere = sim.root / "elsewhere"
    elsewhere.mkdir()
    shutil.move(chunks, elsewhere / chunks.name)
    chunks.symlink_to(elsewhere / chunks.name)
    (folder / "index" / "embeddings").symlink_to(elsewhere, target_is_directory=True)

    result = _pull_request(sim, folder)

    assert result.code == 0, result.stdout + result.stderr
    assert "(chunks shipped, BM25 cached)" in result.stdout  # the BM25 entry is a real file: restored
    assert "::notice title=Cairn%3A index-cache::skipped 2 entries" in result.stdout
    assert f"{chunks.name}: a symbolic link, not followed" in result.stdout
    assert "embeddings: a symbolic link, not followed" in result.stdout


@pytest.mark.parametrize("where", ["workspace", "relative", "parent"])
def test_action__index_cache__folder_inside_the_workspace__refused(sim: Sim, where: str) -> None:
    value = {
        "workspace": str(sim.workspace / ".cache" / "cairn-index"),
        "relative": ".cache/cairn-index",
        "parent": str(sim.workspace.parent),
    }[where]

    result = _pull_request(sim, Path(value))

    assert result.code == 2, result.stdout + result.stderr
    assert "input 'index-cache'" in result.stdout
    assert "Traceback" not in result.stderr
    assert not (sim.workspace / ".cache").exists()
