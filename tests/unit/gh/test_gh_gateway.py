"""The PyGithub gateway over real HTTP to the loopback fake: reads, writes, retries, error mapping."""

from __future__ import annotations

import pytest
from fakes.github_server import FakeGitHub

from cairn_action.errors import ExitCode, InfrastructureError
from cairn_action.gh.gateway import Role
from cairn_action.gh.pygithub_gateway import PermissionDenied, PyGithubGateway, connect


def _gateway(fake: FakeGitHub, suffix: str = "") -> PyGithubGateway:
    slept: list[float] = []
    gateway = PyGithubGateway(
        connect("t0k3n", fake.url + suffix, throttle=False), "acme/rag", sleep=slept.append
    )
    gateway.slept = slept  # type: ignore[attr-defined]
    return gateway


def test_gh_gateway__pull_labels_events_roles__as_frozen_values(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40, fork=True, labels=["bug"])
    fake_github.add_label(7, "cairn-override: x", "maint", at="2026-11-30T11:00:00Z")
    fake_github.roles["maint"] = "maintain"
    gateway = _gateway(fake_github, "/api/v3")
    pull = gateway.pull(7)
    assert (pull.head_sha, pull.head_repo, pull.labels) == (
        "a" * 40,
        "contributor/rag",
        ("bug", "cairn-override: x"),
    )
    [event] = gateway.label_events(7)
    assert (event.event, event.label, event.actor, event.at) == (
        "labeled",
        "cairn-override: x",
        "maint",
        "2026-11-30T11:00:00Z",
    )
    assert gateway.role("maint") == Role("maintain", "write")
    assert gateway.role("stranger") == Role("read", "read")


def test_gh_gateway__file_at__base64_missing_and_over_a_megabyte(fake_github: FakeGitHub) -> None:
    big = b"x" * (1024 * 1024 + 10)
    fake_github.put_file("c" * 40, "reports/latest/default.json", b'{"a": 1}')
    fake_github.put_file("c" * 40, "big.json", big)
    gateway = _gateway(fake_github)
    assert gateway.file_at("reports/latest/default.json", "c" * 40) == b'{"a": 1}'
    assert gateway.file_at("reports/latest/other.json", "c" * 40) is None
    assert gateway.file_at("big.json", "c" * 40) == big
    assert any("/git/blobs/" in r.path for r in fake_github.requests)


def test_gh_gateway__edit__patch_retried_on_502_and_secondary_rate_limit(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)
    cid = fake_github.add_comment(7, "old", "github-actions[bot]")
    fake_github.inject("PATCH", r".*/issues/comments/\d+", 502)
    fake_github.inject(
        "PATCH",
        r".*/issues/comments/\d+",
        403,
        headers={"Retry-After": "3"},
        message="You have exceeded a secondary rate limit",
    )
    gateway = _gateway(fake_github)
    edited = gateway.edit_comment(7, cid, "new")
    assert edited is not None and edited.body == "new" and fake_github.comments[cid]["body"] == "new"
    assert gateway.slept == [1.0, 3.0]  # type: ignore[attr-defined]


def test_gh_gateway__edit__gone_comment__none(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)
    assert _gateway(fake_github).edit_comment(7, 999, "new") is None


def test_gh_gateway__persistent_502__infrastructure_error(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)
    cid = fake_github.add_comment(7, "old", "github-actions[bot]")
    fake_github.inject("PATCH", r".*/issues/comments/\d+", 502, times=10)
    with pytest.raises(InfrastructureError) as caught:
        _gateway(fake_github).edit_comment(7, cid, "new")
    assert caught.value.exit_code == ExitCode.INFRASTRUCTURE and "502" in caught.value.message
    assert "t0k3n" not in caught.value.message


def test_gh_gateway__read_only_token__permission_denied(fake_github: FakeGitHub) -> None:
    fake_github.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)
    fake_github.read_only = True
    with pytest.raises(PermissionDenied, match="Resource not accessible by integration"):
        _gateway(fake_github).create_comment(7, "hi")


def test_gh_gateway__commit_files__one_fast_forward_commit(fake_github: FakeGitHub) -> None:
    head = fake_github.seed_commit({"README.md": "hi\n"}, branch="main")
    sha = _gateway(fake_github).commit_files("main", {"reports/latest/a.json": b"{}\n"}, "cairn: baseline")
    assert fake_github.refs["heads/main"] == sha
    assert fake_github.commits[sha]["parents"] == [head]
    assert fake_github.tree_at("main") == {"README.md": b"hi\n", "reports/latest/a.json": b"{}\n"}


def test_gh_gateway__commit_files__branch_moved__rebuilt_on_the_new_head(fake_github: FakeGitHub) -> None:
    first = fake_github.seed_commit({"README.md": "hi\n"}, branch="main")
    moved = fake_github.seed_commit({"README.md": "hi\n", "NEW": "x"}, parents=(first,), message="other")
    fake_github.inject("PATCH", r".*/git/refs/heads/main", 422, message="Update is not a fast forward")
    fake_github.refs["heads/main"] = moved  # someone pushed between our read and our update
    sha = _gateway(fake_github).commit_files("main", {"r.json": b"1"}, "m")
    assert fake_github.refs["heads/main"] == sha
    assert fake_github.tree_at("main") == {"README.md": b"hi\n", "NEW": b"x", "r.json": b"1"}
