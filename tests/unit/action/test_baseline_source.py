"""Reading the base commit's baseline: the contents API, and git (with safe.directory) when it fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from fakes.github_server import FakeGitHub

from cairn_action.action.baseline import git_show, read_base_copy
from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect, retry_policy

LATEST = "reports/latest/default.json"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "d",
        "GIT_AUTHOR_EMAIL": "d@x",
        "GIT_COMMITTER_NAME": "d",
        "GIT_COMMITTER_EMAIL": "d@x",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A checkout whose base commit has the baseline and whose head rewrote it."""
    ws = tmp_path / "workspace"
    (ws / "reports/latest").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", str(ws))
    (ws / LATEST).write_text('{"base": true}\n')
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "base")
    base = _git(ws, "rev-parse", "HEAD")
    (ws / LATEST).write_text('{"edited by the pull request": true}\n')
    _git(ws, "commit", "-q", "-am", "head")
    return ws, base, _git(ws, "rev-parse", "HEAD")


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the checkout to another user")
def test_gh_baseline__checkout_owned_by_the_runner_user__read_with_safe_directory(
    repo: tuple[Path, str, str],
) -> None:
    ws, base, _ = repo
    subprocess.run(["chown", "-R", "1001:1001", str(ws)], check=True)
    plain = subprocess.run(
        ["git", "-C", str(ws), "show", f"{base}:{LATEST}"],
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(ws.parent)},
    )
    assert plain.returncode == 128 and "dubious ownership" in plain.stderr  # the trap (actions/runner#2033)
    assert git_show(ws, base, LATEST) == b'{"base": true}\n'


def test_gh_baseline__file_absent_at_base__none(repo: tuple[Path, str, str]) -> None:
    ws, base, _ = repo
    assert git_show(ws, base, "reports/latest/other.json") is None


def test_gh_baseline__api_down__git_reads_the_base_not_the_head(
    repo: tuple[Path, str, str], fake_github: FakeGitHub
) -> None:
    ws, base, _ = repo
    fake_github.inject("GET", r".*/contents/.*", 502, times=100)
    # Every retry still happens; only the back-off between them (about 31 s in all) is skipped.
    client = connect("t", fake_github.url, throttle=False, retry=retry_policy(backoff_factor=0))
    gateway = PyGithubGateway(client, "acme/rag")
    copy = read_base_copy(gateway, path=LATEST, ref=base, workspace=ws)
    assert (copy.data, copy.via) == (b'{"base": true}\n', "git")


def test_gh_baseline__api_answers__no_git_needed(tmp_path: Path, fake_github: FakeGitHub) -> None:
    fake_github.put_file("c" * 40, LATEST, b"{}")
    gateway = PyGithubGateway(connect("t", fake_github.url, throttle=False), "acme/rag")
    copy = read_base_copy(gateway, path=LATEST, ref="c" * 40, workspace=tmp_path)  # not even a repository
    assert (copy.data, copy.via) == (b"{}", "contents API")


def test_base_tree__python_target_changed_in_the_pr__base_code_extracted_with_the_config_at_its_own_path(
    tmp_path: Path,
) -> None:
    from cairn_action.action.control import base_tree, why_not_base
    from cairn_action.config import Config, LoadedConfig

    ws = tmp_path / "workspace"
    (ws / "evals/pkg").mkdir(parents=True)
    _git(tmp_path, "init", "-q", "-b", "main", str(ws))
    (ws / "evals/pkg/target.py").write_text("def answer(q):\n    return 'base'\n")
    (ws / "evals/cairn.toml").write_text('target = "python:pkg.target:answer"\n')
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "base")
    base = _git(ws, "rev-parse", "HEAD")
    (ws / "evals/pkg/target.py").write_text("def answer(q):\n    return 'head'\n")
    _git(ws, "commit", "-q", "-am", "head")

    config = Config.model_validate({"target": "python:pkg.target:answer"})
    head = LoadedConfig(config=config, source=ws / "evals/cairn.toml", base_dir=ws / "evals")
    assert why_not_base(head, config, b"x", base) is None
    assert (
        why_not_base(head, config, b"x", None)
        == "a python: target's code at the base commit is not checked out here"
    )
    file = base_tree(ws, head, base, tmp_path / "tree")
    assert file == tmp_path / "tree/evals/cairn.toml"
    # The base code, not the pull request's, sits beside the base config.
    assert (file.parent / "pkg/target.py").read_text() == "def answer(q):\n    return 'base'\n"


def test_git_archive__commit_not_in_the_checkout__cairn_error_naming_it(repo: tuple[Path, str, str]) -> None:
    from cairn_action.action.baseline import git_archive
    from cairn_action.errors import CairnError

    ws, _, _ = repo
    with pytest.raises(CairnError, match="is not in the checkout"):
        git_archive(ws, "f" * 40, ws.parent / "tree", timeout=10)
