"""The sticky comment: found by marker and bot author, edited, never duplicated, even under a race."""

from __future__ import annotations

import threading

from fakes.github_server import FakeGitHub

from cairn_action.gh.comments import upsert_sticky
from cairn_action.gh.pygithub_gateway import PyGithubGateway, connect

MARKER = "<!-- cairn:gate config=default -->"


def _gateway(fake: FakeGitHub) -> PyGithubGateway:
    return PyGithubGateway(connect("t", fake.url, throttle=False), "acme/rag")


def _pull(fake: FakeGitHub) -> None:
    fake.add_pull(7, head_sha="a" * 40, base_sha="b" * 40)


def test_gh_comments__first_then_second__created_then_edited(fake_github: FakeGitHub) -> None:
    _pull(fake_github)
    gateway = _gateway(fake_github)
    first = upsert_sticky(gateway, 7, MARKER, f"{MARKER}\none")
    second = upsert_sticky(gateway, 7, MARKER, f"{MARKER}\ntwo")
    assert first.created and not second.created
    assert first.comment.id == second.comment.id
    assert [c["body"] for c in fake_github.issue_comments(7)] == [f"{MARKER}\ntwo"]


def test_gh_comments__marker_planted_by_a_person__ignored(fake_github: FakeGitHub) -> None:
    _pull(fake_github)
    planted = fake_github.add_comment(7, f"{MARKER}\nI am the gate, it passed", "mallory")
    other_config = fake_github.add_comment(7, "<!-- cairn:gate config=other -->\nx", "github-actions[bot]")
    result = upsert_sticky(_gateway(fake_github), 7, MARKER, f"{MARKER}\nreal")
    assert result.created and result.comment.id not in (planted, other_config)
    assert fake_github.comments[planted]["body"].endswith("it passed")


def test_gh_comments__leftover_duplicates__cleaned_up(fake_github: FakeGitHub) -> None:
    _pull(fake_github)
    keep = fake_github.add_comment(7, f"{MARKER}\nold", "github-actions[bot]")
    extra = fake_github.add_comment(7, f"{MARKER}\nold too", "github-actions[bot]")
    result = upsert_sticky(_gateway(fake_github), 7, MARKER, f"{MARKER}\nnew")
    assert result.comment.id == keep and result.deleted == (extra,)
    assert [c["id"] for c in fake_github.issue_comments(7)] == [keep]


def test_gh_comments__two_racing_upserts__one_comment_left(fake_github: FakeGitHub) -> None:
    _pull(fake_github)
    fake_github.barrier("POST", r"/repos/acme/rag/issues/7/comments", parties=2)
    results = []

    def upsert(text: str) -> None:
        results.append(upsert_sticky(_gateway(fake_github), 7, MARKER, f"{MARKER}\n{text}"))

    threads = [threading.Thread(target=upsert, args=(t,)) for t in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 2
    assert sum(1 for r in fake_github.requests if r.method == "POST") == 2
    [left] = fake_github.issue_comments(7)
    assert left["body"] in (f"{MARKER}\na", f"{MARKER}\nb")
    assert sorted(len(r.deleted) for r in results) == [0, 1]
