"""The GitHub side's pure parts: the reason line in the notes, the event, which releases came before."""

from __future__ import annotations

import pytest

from cairn_action.action.release_history import earlier, notes_reason, release_event
from cairn_action.errors import CairnError
from cairn_action.gh.gateway import ReleaseInfo
from cairn_action.report.stamp import section_end, section_start


def _release(rid: int, tag: str, published: str, *, draft: bool = False) -> ReleaseInfo:
    return ReleaseInfo(
        id=rid,
        tag=tag,
        body="",
        draft=draft,
        prerelease=False,
        html_url="",
        created_at="2020-01-01T00:00:00Z",  # GitHub's created_at is the commit's date: never used to order
        published_at="" if draft else published,
    )


def test_notes_reason__a_line_of_its_own__found() -> None:
    notes = "## Changes\n\n  Cairn-Override:  accepted, see #12  \r\nmore"
    assert notes_reason(notes, "cairn-override") == "accepted, see #12"


def test_notes_reason__inside_a_cairn_section__ignored() -> None:
    section = f"{section_start('default')}\ncairn-override: echoed by a stamp\n{section_end('default')}"
    assert notes_reason("Notes\n\n" + section, "cairn-override") is None


def test_notes_reason__mid_sentence_or_empty__not_a_reason() -> None:
    assert notes_reason("we did not use cairn-override: here", "cairn-override") is None
    assert notes_reason("cairn-override:   \n", "cairn-override") is None


def test_notes_reason__custom_prefix() -> None:
    assert notes_reason("ship-it: hotfix", "ship-it") == "hotfix"
    assert notes_reason("cairn-override: x", "ship-it") is None


def test_release_event__published__id_tag_and_sender() -> None:
    payload = {"release": {"id": 7, "tag_name": "v1.0.0"}, "sender": {"login": "maintainer1"}}
    event = release_event("release", payload)
    assert (event.release_id, event.tag, event.actor, event.reason, event.via) == (
        7,
        "v1.0.0",
        "maintainer1",
        None,
        "release notes",
    )


def test_release_event__dispatch__tag_and_reason_from_the_inputs() -> None:
    payload = {"inputs": {"tag": " v1.1.0 ", "reason": " accepted "}, "sender": {"login": "m"}}
    event = release_event("workflow_dispatch", payload)
    assert (event.release_id, event.tag, event.reason, event.via) == (
        None,
        "v1.1.0",
        "accepted",
        "workflow_dispatch",
    )


def test_release_event__dispatch_blank_reason__none() -> None:
    assert release_event("workflow_dispatch", {"inputs": {"tag": "v1", "reason": " "}}).reason is None


@pytest.mark.parametrize(
    ("name", "payload", "message"),
    [
        ("release", {"release": {"tag_name": "v1"}}, "the release event has no release.id"),
        ("workflow_dispatch", {"inputs": {"reason": "x"}}, "workflow_dispatch: the `tag` input is empty"),
        ("push", {}, "`mode: release` runs on `release` or `workflow_dispatch` events, not `push`"),
    ],
)
def test_release_event__unusable__one_line_error(name: str, payload: dict[str, object], message: str) -> None:
    with pytest.raises(CairnError) as caught:
        release_event(name, payload)
    assert caught.value.message == message


def test_earlier__published_before__newest_first_drafts_left_out() -> None:
    current = _release(5, "v1.2.0", "2026-11-20T00:00:00Z")
    others = [
        _release(1, "v1.0.0", "2026-11-01T00:00:00Z"),
        _release(2, "v1.1.0", "2026-11-10T00:00:00Z"),
        _release(3, "v1.3.0", "2026-11-25T00:00:00Z"),
        _release(4, "v1.1.1", "", draft=True),
    ]
    assert [r.tag for r in earlier([*others, current], current)] == ["v1.1.0", "v1.0.0"]


def test_earlier__current_is_a_draft__every_published_release_came_before() -> None:
    current = _release(9, "v2.0.0", "", draft=True)
    others = [_release(1, "v1.0.0", "2026-11-01T00:00:00Z"), _release(3, "v1.3.0", "2026-11-25T00:00:00Z")]
    assert [r.tag for r in earlier([*others, current], current)] == ["v1.3.0", "v1.0.0"]
