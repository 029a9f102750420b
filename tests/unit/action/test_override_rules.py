"""The override rules as pure functions: who, with which label, with what reason, for which commit."""

from __future__ import annotations

from cairn_action.action.override import (
    Anchor,
    OverrideFinding,
    anchors_line,
    find_override,
    is_override_label,
    label_reason,
    read_anchors,
    read_record,
    record_line,
    role_allows,
)
from cairn_action.gh.gateway import Comment, LabelEvent, Role
from cairn_action.report.models import OverrideRecord

ROLES = {
    "maint": Role("maintain", "write"),
    "dev": Role("write", "write"),
    "tri": Role("triage", "read"),
    "reader": Role("read", "read"),
    "custom": Role("release-manager", "write"),
    "custom-ro": Role("auditor", "read"),
}
HEAD = "b" * 40


def _labeled(label: str, actor: str, at: str = "2026-11-30T11:00:00Z") -> LabelEvent:
    return LabelEvent(event="labeled", label=label, actor=actor, at=at)


def _comment(cid: int, author: str, body: str, at: str = "2026-11-30T10:00:00Z") -> Comment:
    return Comment(id=cid, body=body, author=author, author_is_bot=False, url="", created_at=at)


def _find(
    labels: list[str],
    events: list[LabelEvent],
    comments: list[Comment] = (),  # type: ignore[assignment]
    *,
    anchors: tuple[Anchor, ...] = (),
    labeled_now: str | bool | None = True,
    author: str = "contributor",
    allow_self_override: bool = True,
) -> OverrideFinding:
    """`labeled_now=True`: this run is the one the first override label's `labeled` event started."""
    if labeled_now is True:
        labeled_now = next((x for x in labels if is_override_label(x, "cairn-override")), None)
    return find_override(
        prefix="cairn-override",
        labels=labels,
        events=events,
        comments=comments,
        role_of=ROLES.__getitem__,
        pr=7,
        head_sha=HEAD,
        anchors=anchors,
        labeled_now=labeled_now or None,
        author=author,
        allow_self_override=allow_self_override,
    )


def test_override__label_names__prefix_then_colon_reason() -> None:
    assert is_override_label("cairn-override", "cairn-override")
    assert is_override_label("Cairn-Override: flaky judge", "cairn-override")
    assert is_override_label("cairn-override : spaced", "cairn-override")
    assert not is_override_label("cairn-overridden", "cairn-override")
    assert not is_override_label("needs-cairn-override", "cairn-override")
    assert label_reason("cairn-override: prompt rewrite, judged by hand", "cairn-override") == (
        "prompt rewrite, judged by hand"
    )
    assert label_reason("cairn-override", "cairn-override") == ""


def test_override__roles__write_maintain_admin_and_custom_write() -> None:
    allowed = {name for name, role in ROLES.items() if role_allows(role)}
    assert allowed == {"maint", "dev", "custom"}
    assert role_allows(Role("admin", "admin"))


def test_override__reason_label_by_maintainer__applies_with_the_event_actor() -> None:
    label = "cairn-override: judged by hand"
    found = _find(["bug", label], [_labeled("bug", "tri"), _labeled(label, "maint")])
    assert found.override is not None
    assert (found.override.actor, found.override.reason, found.override.head_sha) == (
        "maint",
        "judged by hand",
        HEAD,
    )
    assert found.rejected == () and found.stale == ()


def test_override__triage_user__rejected_with_their_role() -> None:
    label = "cairn-override: judged by hand"
    found = _find([label], [_labeled(label, "tri")])
    assert found.override is None
    assert found.notes() == [
        f"label '{label}' applied by tri does not override: their role is triage; only "
        "write, maintain or admin can override"
    ]


def test_override__relabelled_by_triage__the_last_application_counts() -> None:
    label = "cairn-override: x"
    events = [
        _labeled(label, "maint", "2026-11-30T09:00:00Z"),
        LabelEvent(event="unlabeled", label=label, actor="tri", at="2026-11-30T09:30:00Z"),
        _labeled(label, "tri", "2026-11-30T10:00:00Z"),
    ]
    assert _find([label], events).override is None


def test_override__bare_label_without_reason__explained() -> None:
    found = _find(["cairn-override"], [_labeled("cairn-override", "maint")])
    assert found.override is None
    [note] = found.notes()
    assert "it carries no reason" in note and "/cairn-override <reason>" in note and "as maint" in note


def test_override__bare_label_and_comment_by_the_labeler__reason_from_the_comment() -> None:
    comments = [
        _comment(1, "maint", "LGTM\n/cairn-override: judge flaked on three cases"),
        _comment(2, "someone", "/cairn-override trust me"),
    ]
    found = _find(["cairn-override"], [_labeled("cairn-override", "maint")], comments)
    assert found.override is not None and found.override.reason == "judge flaked on three cases"


def test_override__comment_by_someone_else__does_not_count() -> None:
    comments = [_comment(2, "dev", "/cairn-override trust me")]
    assert _find(["cairn-override"], [_labeled("cairn-override", "maint")], comments).override is None


def test_override__comment_from_before_the_label_was_last_removed__does_not_count() -> None:
    events = [
        _labeled("cairn-override", "maint", "2026-11-30T09:00:00Z"),
        LabelEvent(
            event="unlabeled", label="cairn-override", actor="github-actions[bot]", at="2026-11-30T09:30:00Z"
        ),
        _labeled("cairn-override", "maint", "2026-11-30T10:00:00Z"),
    ]
    old = [_comment(1, "maint", "/cairn-override for the old commit", at="2026-11-30T09:05:00Z")]
    assert _find(["cairn-override"], events, old).override is None


def test_override__no_run_saw_it_applied__stale() -> None:
    label = "cairn-override: x"
    found = _find([label], [_labeled(label, "maint")], labeled_now=None)
    assert found.override is None and [s.label for s in found.stale] == [label]
    assert found.stale[0].given_for is None
    assert "covers only the commit it was given for" in found.notes()[0]


def test_override__anchored_to_another_head__stale_on_any_event() -> None:
    label = "cairn-override: x"
    anchor = Anchor(label=label, actor="maint", at="2026-11-30T11:00:00Z", head_sha="a" * 40)
    found = _find([label], [_labeled(label, "maint")], anchors=(anchor,), labeled_now=None)
    assert found.override is None and found.stale[0].given_for == "a" * 40
    assert "has changed since" in found.notes()[0]


def test_override__labeled_run__anchors_this_head_and_a_later_run_keeps_it() -> None:
    label = "cairn-override: x"
    first = _find([label], [_labeled(label, "maint")])
    assert first.override is not None
    assert first.anchors == (Anchor(label=label, actor="maint", at="2026-11-30T11:00:00Z", head_sha=HEAD),)
    later = _find([label], [_labeled(label, "maint")], anchors=first.anchors, labeled_now=None)
    assert later.override is not None and later.anchors == first.anchors


def test_override__anchor_of_an_earlier_application__does_not_carry_to_a_new_one() -> None:
    label = "cairn-override: x"
    old = Anchor(label=label, actor="maint", at="2026-11-29T11:00:00Z", head_sha=HEAD)
    found = _find([label], [_labeled(label, "maint")], anchors=(old,), labeled_now=None)
    assert found.override is None  # applied again later, and no run saw that application


def test_override__by_the_author__a_self_override_unless_forbidden() -> None:
    label = "cairn-override: x"
    mine = _find([label], [_labeled(label, "dev")], author="dev")
    assert mine.override is not None and mine.self_override
    assert not _find([label], [_labeled(label, "dev")], author="someone").self_override
    forbidden = _find([label], [_labeled(label, "dev")], author="DEV", allow_self_override=False)
    assert forbidden.override is None
    assert "allow_self_override = false forbids a self-override" in forbidden.notes()[0]


def test_override__anchors__round_trip_through_the_hidden_line() -> None:
    anchors = [Anchor(label="cairn-override: a --> b", actor="maint", at="t", head_sha=HEAD)]
    body = "<!-- cairn:gate config=default -->\ntext\n" + anchors_line(anchors) + "\n"
    assert read_anchors(body) == anchors
    assert read_anchors(body.replace("override-anchors ", "override-anchors !")) == []
    assert anchors_line([]) == ""


def test_override__record__round_trips_through_the_hidden_line() -> None:
    record = OverrideRecord(
        pr=7,
        actor="maint",
        label="cairn-override: a --> b <!--",
        reason="<b>x</b> -->",
        head_sha=HEAD,
        at="2026-11-30T11:00:00Z",
        overrode=["recall@5 fell"],
    )
    line = record_line(record)
    assert line.count("-->") == 1 and line.endswith("-->")
    assert read_record(f"<!-- cairn:gate config=default -->\n### x\n{line}\n") == record


def test_override__malformed_record__ignored() -> None:
    assert read_record("<!-- cairn:override-record bm90IGpzb24= -->") is None
    assert read_record("<!-- cairn:override-record !!! -->") is None
    assert read_record("no record") is None


def test_override__applier_comments_the_full_head_sha__anchors_that_head_without_a_label_run() -> None:
    label = "cairn-override"
    events = [_labeled(label, "maint")]
    said = _comment(9, "maint", f"/cairn-override {HEAD} judged by hand", at="2026-11-30T11:05:00Z")
    found = _find([label], events, [said], labeled_now=None)
    assert found.override is not None and found.override.head_sha == HEAD
    assert found.override.reason == "judged by hand"
    assert found.anchors == (Anchor(label=label, actor="maint", at="2026-11-30T11:00:00Z", head_sha=HEAD),)


def test_override__sha_comment_for_another_head__does_not_cover_this_one() -> None:
    label = "cairn-override: x"
    said = _comment(9, "maint", f"/cairn-override {'a' * 40} x", at="2026-11-30T11:05:00Z")
    found = _find([label], [_labeled(label, "maint")], [said], labeled_now=None)
    assert found.override is None and found.stale[0].given_for is None
    assert f"/cairn-override {HEAD} <reason>" in found.notes()[0]


def test_override__sha_comment_by_someone_else_short_or_before_the_label__anchors_nothing() -> None:
    label = "cairn-override: x"
    events = [_labeled(label, "maint")]
    for said in (
        _comment(9, "dev", f"/cairn-override {HEAD} x", at="2026-11-30T11:05:00Z"),  # not the applier
        _comment(9, "maint", f"/cairn-override {HEAD[:12]} x", at="2026-11-30T11:05:00Z"),  # short SHA
        _comment(9, "maint", f"/cairn-override {HEAD} x", at="2026-11-30T10:55:00Z"),  # before the label
    ):
        assert _find([label], events, [said], labeled_now=None).override is None, said.body


def test_override__self_override__off_unless_the_policy_allows_it() -> None:
    label = "cairn-override: x"
    found = find_override(
        prefix="cairn-override",
        labels=[label],
        events=[_labeled(label, "dev")],
        comments=[],
        role_of=ROLES.__getitem__,
        pr=7,
        head_sha=HEAD,
        anchors=(),
        labeled_now=label,
        author="dev",
    )
    assert found.override is None and "forbids a self-override" in found.notes()[0]
