"""Who may override a failing gate, with what, and for which commit.

An override is a label whose name is the prefix and a reason (`cairn-override: prompt rewrite, judged by
hand`), or the bare prefix label plus a comment `/cairn-override <reason>` by the person who applied it.
Who applied a label comes from the issue events API, not the payload's sender (a later event's sender is
whoever did *that*); their role comes from `role_name`, because triage can label but must not override.
An override covers the commit it was given for, whatever event starts a later run (a push, a reopen),
and only on evidence GitHub records against that commit:
- a comment `/<prefix> <full head SHA> [reason]` by the person who applied the label, made after they
  applied it (the only anchor a fork pull request has: its trusted stage runs later, from `workflow_run`,
  and cannot know which head the label was given for otherwise); or
- in a same-repository pull request, the run started by the `labeled` event itself, which records the
  event payload's head as an *anchor*.
Any other head is not overridden. Commit dates are the pusher's to forge, so nothing here compares them
with the label's time, and no time window stands in for evidence.

The anchors and the record of an applied override travel in the bot's sticky comment as hidden, base64
JSON lines (only the bot writes that comment), so later runs, and the baseline run after the merge,
can read them.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from cairn_action.gate.models import Override
from cairn_action.gate.policy import is_override_label as is_override_label  # the rule lives with the gate
from cairn_action.gh.gateway import Comment, LabelEvent, Role
from cairn_action.report.models import OverrideRecord

ALLOWED_ROLES = frozenset({"admin", "maintain", "write"})
_BUILTIN_ROLES = frozenset({"admin", "maintain", "write", "triage", "read", "none"})
MAX_REASON = 500
_RECORD = re.compile(r"^<!-- cairn:override-record ([A-Za-z0-9+/=]+) -->$", re.MULTILINE)
_ANCHORS = re.compile(r"^<!-- cairn:override-anchors ([A-Za-z0-9+/=]+) -->$", re.MULTILINE)
MAX_ANCHORS = 50
_SHA = re.compile(r"^[0-9a-fA-F]{40}\b")


class Anchor(BaseModel):
    """The head an override label was given for: seen by the run its `labeled` event started."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str
    actor: str
    at: str
    """The `labeled` event's time (GitHub's clock), which with the label names the event."""
    head_sha: str


_ANCHOR_LIST = TypeAdapter(list[Anchor])


@dataclass(frozen=True, kw_only=True)
class Rejected:
    """An override label that does not count, and exactly why (shown in the comment)."""

    label: str
    actor: str
    why: str


@dataclass(frozen=True, kw_only=True)
class Stale:
    """A valid override given before the current head: removed if the gate still fails."""

    label: str
    actor: str
    at: str
    given_for: str | None
    """The head SHA it was given for; None when no run saw it applied (no anchor)."""
    head_sha: str = ""
    """The head being gated now, which the note tells the maintainer how to override."""
    prefix: str = ""


@dataclass(frozen=True, kw_only=True)
class OverrideFinding:
    override: Override | None = None
    rejected: tuple[Rejected, ...] = ()
    stale: tuple[Stale, ...] = ()
    anchors: tuple[Anchor, ...] = ()
    """Every anchor known after this run (the earlier runs' and this run's own), to write back."""
    self_override: bool = False
    """The override's actor is the pull request's author."""

    def notes(self) -> list[str]:
        """One sentence per label that did not override, for the comment and the log."""
        lines = [
            f"label '{r.label}' applied by {r.actor or 'unknown'} does not override: {r.why}"
            for r in self.rejected
        ]
        lines += [stale_note(s) for s in self.stale]
        return lines


def stale_note(stale: Stale) -> str:
    how = "A maintainer can apply it again to override this commit"
    if stale.head_sha and stale.prefix:
        how = (
            f"To override this commit, {stale.actor} (or another maintainer, with the label) comments "
            f"`/{stale.prefix} {stale.head_sha} <reason>`"
        )
    if stale.given_for is None:
        return (
            f"label '{stale.label}' by {stale.actor} names no commit: no comment of theirs gives the SHA it "
            "was given for, and no run started by the label recorded it, so it overrides no commit (an "
            f"override covers only the commit it was given for). {how}"
        )
    return (
        f"label '{stale.label}' by {stale.actor} was given for commit {stale.given_for[:7]}; the pull "
        "request's head has changed since, and an override covers only the commit it was given for "
        f"(like a stale review). {how}"
    )


def label_reason(name: str, prefix: str) -> str:
    """The reason a label carries after `prefix:`; '' for the bare prefix."""
    rest = name[len(prefix) :].lstrip()
    return rest[1:].strip() if rest.startswith(":") else ""


def role_allows(role: Role) -> bool:
    """write, maintain or admin; a custom role counts when its base permission is write or admin."""
    if role.role_name in _BUILTIN_ROLES:
        return role.role_name in ALLOWED_ROLES
    return role.permission in ("write", "admin")


def _last_applied(events: Sequence[LabelEvent], label: str) -> LabelEvent | None:
    for event in reversed(events):
        if event.label.lower() == label.lower():
            return event if event.event == "labeled" else None
    return None


def _last_removed_at(events: Sequence[LabelEvent], label: str) -> str:
    removed = [e.at for e in events if e.event == "unlabeled" and e.label.lower() == label.lower()]
    return max(removed, default="")


def comment_reason(comments: Sequence[Comment], actor: str, command: str, not_before: str) -> str | None:
    """The reason in `actor`'s latest `/<prefix> <reason>` comment made after `not_before`, if any."""
    pattern = re.compile(rf"^\s*{re.escape(command)}\b[:\s]*(.*)$", re.IGNORECASE | re.MULTILINE)
    for comment in sorted(comments, key=lambda c: c.id, reverse=True):
        if comment.author.lower() != actor.lower() or comment.created_at < not_before:
            continue
        match = pattern.search(comment.body)
        reason = _SHA.sub("", match.group(1).strip()).strip() if match else ""
        if reason:
            return reason
    return None


def sha_named(comments: Sequence[Comment], actor: str, command: str, head_sha: str, not_before: str) -> bool:
    """`actor` commented `<command> <head_sha> ...` at or after `not_before` (the full SHA: a short one
    could be matched by a commit made to collide with it)."""
    pattern = re.compile(
        rf"^\s*{re.escape(command)}[:\s]+([0-9a-fA-F]{{40}})\b", re.IGNORECASE | re.MULTILINE
    )
    return any(
        comment.author.lower() == actor.lower()
        and comment.created_at >= not_before
        and head_sha.lower() in (m.lower() for m in pattern.findall(comment.body))
        for comment in comments
    )


def find_override(
    *,
    prefix: str,
    labels: Sequence[str],
    events: Sequence[LabelEvent],
    comments: Sequence[Comment],
    role_of: Callable[[str], Role],
    pr: int,
    head_sha: str,
    anchors: Sequence[Anchor],
    labeled_now: str | None,
    author: str,
    allow_self_override: bool = False,
) -> OverrideFinding:
    """The override the pull request's current labels carry, and why each other one does not count.

    `anchors`: the heads earlier runs saw labels given for. `labeled_now`: the label whose `labeled`
    event started this run, so `head_sha` is the head it was given for (None on any other event).
    `author`: the pull request's author, whose own override is a self-override.
    """
    valid: list[Override] = []
    rejected: list[Rejected] = []
    stale: list[Stale] = []
    known = list(anchors)
    for label in labels:
        if not is_override_label(label, prefix):
            continue
        applied = _last_applied(events, label)
        if applied is None:
            rejected.append(Rejected(label=label, actor="", why="no `labeled` event says who applied it"))
            continue
        actor = applied.actor
        role = role_of(actor)
        if not role_allows(role):
            rejected.append(
                Rejected(
                    label=label,
                    actor=actor,
                    why=f"their role is {role.role_name}; only write, maintain or admin can override",
                )
            )
            continue
        if author and actor.lower() == author.lower() and not allow_self_override:
            rejected.append(
                Rejected(
                    label=label,
                    actor=actor,
                    why="they opened this pull request, and the baseline's [gate] allow_self_override = "
                    "false forbids a self-override: someone else with the write role must apply it",
                )
            )
            continue
        reason = label_reason(label, prefix)
        if not reason:
            found = comment_reason(comments, actor, f"/{prefix}", _last_removed_at(events, label))
            if found is None:
                rejected.append(
                    Rejected(
                        label=label,
                        actor=actor,
                        why=f"it carries no reason: use a label "
                        f"'{prefix}: <reason>', or comment '/{prefix} <reason>' as {actor}",
                    )
                )
                continue
            reason = found
        anchor = next(
            (
                a
                for a in known
                if a.label.lower() == label.lower() and a.at == applied.at and a.actor == actor
            ),
            None,
        )
        named = sha_named(comments, actor, f"/{prefix}", head_sha, applied.at)
        labeled_here = labeled_now is not None and labeled_now.lower() == label.lower()
        if (anchor is None or anchor.head_sha != head_sha) and (named or labeled_here):
            anchor = Anchor(label=label, actor=actor, at=applied.at, head_sha=head_sha)
            known.append(anchor)
        if anchor is None or anchor.head_sha != head_sha:
            given = anchor.head_sha if anchor else None
            stale.append(
                Stale(
                    label=label, actor=actor, at=applied.at, given_for=given, head_sha=head_sha, prefix=prefix
                )
            )
            continue
        valid.append(
            Override(
                actor=actor, label=label, reason=reason[:MAX_REASON], at=applied.at, pr=pr, head_sha=head_sha
            )
        )
    chosen = max(valid, key=lambda o: o.at, default=None)
    return OverrideFinding(
        override=chosen,
        rejected=tuple(rejected),
        stale=tuple(stale),
        anchors=tuple(known[-MAX_ANCHORS:]),
        self_override=bool(chosen and author and chosen.actor.lower() == author.lower()),
    )


def anchors_line(anchors: Sequence[Anchor]) -> str:
    """The hidden line that carries the anchors in the sticky comment ('' for none)."""
    if not anchors:
        return ""
    payload = base64.b64encode(_ANCHOR_LIST.dump_json(list(anchors))).decode()
    return f"<!-- cairn:override-anchors {payload} -->"


def read_anchors(body: str) -> list[Anchor]:
    """The anchors a sticky comment's body carries; none when malformed."""
    match = _ANCHORS.search(body)
    if match is None:
        return []
    try:
        return _ANCHOR_LIST.validate_json(base64.b64decode(match.group(1), validate=True))
    except (binascii.Error, ValueError, ValidationError):
        return []


def record_line(record: OverrideRecord) -> str:
    """The hidden line that carries an applied override in the sticky comment (base64: nothing in it can
    close the HTML comment or render)."""
    payload = base64.b64encode(record.model_dump_json().encode()).decode()
    return f"<!-- cairn:override-record {payload} -->"


def read_record(body: str) -> OverrideRecord | None:
    """The override recorded in a sticky comment's body, None when there is none or it is malformed."""
    match = _RECORD.search(body)
    if match is None:
        return None
    try:
        return OverrideRecord.model_validate(json.loads(base64.b64decode(match.group(1), validate=True)))
    except (binascii.Error, ValueError, ValidationError):
        return None
