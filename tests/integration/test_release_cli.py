"""`cairn release-stamp`: the release gate for CI systems other than GitHub Actions, through `cli.main`,
against the loopback fake GitHub. Exit 0 stamped, 1 refused, 2 bad input, 3 GitHub unreachable."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.github_server import FakeGitHub
from release_builders import release_report
from release_repo import ReleaseRepo

from cairn_action.cli import main
from cairn_action.report.stamp import extract_stamp

pytestmark = pytest.mark.slow  # `cairn release` in a subprocess each


@pytest.fixture
def repo(fake_github: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReleaseRepo:
    fake_github.roles.update({"maintainer1": "maintain", "reader1": "read"})
    fake_github.token = "t0k3n"
    monkeypatch.setenv("GITHUB_TOKEN", "t0k3n")
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    monkeypatch.delenv("GITHUB_ACTOR", raising=False)
    repo = ReleaseRepo(fake_github, tmp_path)
    repo.tag("v1.0.0", release_report(created_at="2026-11-01T09:00:00Z"))
    return repo


def _cli(repo: ReleaseRepo, *args: str) -> int:
    base = ["release-stamp", "--repo", "acme/rag", "--api-url", repo.fake.url]
    return main([*base, "--server-url", "https://github.example", *args])


def test_release_cli__first_release__stamped_and_the_section_written(
    repo: ReleaseRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    summary = tmp_path / "stamp.md"
    assert _cli(repo, "--tag", "v1.0.0", "--summary", str(summary)) == 0
    body = str(repo.state(rid)["body"])
    assert extract_stamp(body, "default") is not None
    assert summary.read_text().rstrip("\n") in body
    out = capsys.readouterr().out
    assert "release-status: stamped" in out and "::" not in out, "plain lines outside GitHub Actions"
    assert "/repos/acme/rag" in {r.path for r in repo.fake.requests}, "default branch asked of GitHub"


def test_release_cli__critical_recall_fell__exit_1_and_draft(repo: ReleaseRepo) -> None:
    repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    assert _cli(repo, "--tag", "v1.0.0") == 0
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid = repo.release("v1.1.0", "Notes", at="2026-11-21T10:00:00Z", prerelease=True)
    assert _cli(repo, "--release-id", str(rid), "--branch", "main") == 1
    assert repo.state(rid)["draft"] is True and repo.state(rid)["prerelease"] is True


def test_release_cli__reason_by_a_maintainer__exit_0(repo: ReleaseRepo) -> None:
    repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    assert _cli(repo, "--tag", "v1.0.0") == 0
    repo.tag("v1.1.0", release_report(created_at="2026-11-20T09:00:00Z", safety=0.5))
    rid = repo.release("v1.1.0", "Notes", at="2026-11-21T10:00:00Z")
    assert _cli(repo, "--tag", "v1.1.0", "--actor", "maintainer1", "--reason", "known, tracked in #9") == 0
    stamp = extract_stamp(str(repo.state(rid)["body"]), "default")
    assert stamp is not None and stamp.published_over is not None and stamp.published_over.via == "--reason"


def test_release_cli__no_token__exit_2_with_a_hint(
    repo: ReleaseRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    assert _cli(repo, "--tag", "v1.0.0") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: $GITHUB_TOKEN is not set\nhint: ") and "Traceback" not in err


def test_release_cli__no_release_named__exit_2(repo: ReleaseRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert _cli(repo) == 2
    assert "neither --tag nor --release-id" in capsys.readouterr().err


def test_release_cli__malformed_report_at_the_tag__exit_2_naming_the_field(
    repo: ReleaseRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    repo.fake.put_file("v1.0.0", "reports/latest/default.json", '{"cairn_version": "0.1.0"}')
    repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    assert _cli(repo, "--tag", "v1.0.0") == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "error: reports/latest/default.json at v1.0.0: not a readable report: 'config_name'"
    )


@pytest.mark.slow  # the real backoff between attempts: 1 + 2 + 4 seconds
def test_release_cli__github_keeps_failing_the_write__exit_3(
    repo: ReleaseRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    rid = repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    repo.fake.inject("PATCH", rf"/repos/acme/rag/releases/{rid}", 502, times=10)
    assert _cli(repo, "--tag", "v1.0.0") == 3
    patches = [r for r in repo.fake.requests if r.method == "PATCH"]
    assert len(patches) == 4, "PATCH is retried (PyGithub does not), then given up"
    assert "GitHub answered 502" in capsys.readouterr().err


def test_release_cli__one_failed_write__retried_and_stamped(repo: ReleaseRepo) -> None:
    rid = repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    repo.fake.inject("PATCH", rf"/repos/acme/rag/releases/{rid}", 502, times=1)
    assert _cli(repo, "--tag", "v1.0.0") == 0
    assert extract_stamp(str(repo.state(rid)["body"]), "default") is not None


def test_release_cli__bad_token__exit_2(repo: ReleaseRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "wrong")
    repo.release("v1.0.0", "Notes", at="2026-11-01T10:00:00Z")
    assert _cli(repo, "--tag", "v1.0.0") == 2
