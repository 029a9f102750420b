"""The override rules as pure functions: who, with which label, with what reason, for which commit."""

from __future__ import annotations

from cairn_action.gh.gateway import Comment, LabelEvent, Role
from cairn_action.gh.override import (
    OverrideFinding,
    find_override,
    is_override_label,
    label_reason,
    read_record,
    record_line,
    role_allows,
)
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
    new_commits: bool = False,
    previous: OverrideRecord | None = None,
) -> OverrideFinding:
    return find_override(
        prefix="cairn-override",
        labels=labels,
        events=events,
        comments=comments,
        role_of=ROLES.__getitem__,
        pr=7,
        head_sha=HEAD,
        new_commits=new_commits,
        previous=previous,
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


def test_override__after_a_push__stale() -> None:
    label = "cairn-override: x"
    found = _find([label], [_labeled(label, "maint")], new_commits=True)
    assert found.override is None and [s.label for s in found.stale] == [label]
    assert "covers only the commit it was given for" in found.notes()[0]


def test_override__recorded_for_another_head__stale_on_any_event() -> None:
    label = "cairn-override: x"
    previous = OverrideRecord(
        pr=7, actor="maint", label=label, reason="x", head_sha="a" * 40, at="2026-11-30T11:00:00Z"
    )
    found = _find([label], [_labeled(label, "maint")], previous=previous)
    assert found.override is None and found.stale[0].given_for == "a" * 40


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
