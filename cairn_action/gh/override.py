"""Who may override a failing gate, with what, and for which commit.

An override is a label whose name is the prefix and a reason (`cairn-override: prompt rewrite, judged by
hand`), or the bare prefix label plus a comment `/cairn-override <reason>` by the person who applied it.
Who applied a label comes from the issue events API, not the payload's sender (a later event's sender is
whoever did *that*); their role comes from `role_name`, because triage can label but must not override.
An override covers the commit it was given for: after new commits it is stale, like an approving review.

The record of an applied override travels in the sticky comment as a hidden, base64 JSON line, so the
baseline run after the merge can copy it into the report's notes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from cairn_action.gate.models import Override
from cairn_action.gate.policy import is_override_label as is_override_label  # the rule lives with the gate
from cairn_action.gh.gateway import Comment, LabelEvent, Role
from cairn_action.report.models import OverrideRecord

ALLOWED_ROLES = frozenset({"admin", "maintain", "write"})
_BUILTIN_ROLES = frozenset({"admin", "maintain", "write", "triage", "read", "none"})
MAX_REASON = 500
_RECORD = re.compile(r"^<!-- cairn:override-record ([A-Za-z0-9+/=]+) -->$", re.MULTILINE)


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
    """The head SHA it was given for, when the earlier run recorded it."""


@dataclass(frozen=True, kw_only=True)
class OverrideFinding:
    override: Override | None = None
    rejected: tuple[Rejected, ...] = ()
    stale: tuple[Stale, ...] = ()

    def notes(self) -> list[str]:
        """One sentence per label that did not override, for the comment and the log."""
        lines = [
            f"label '{r.label}' applied by {r.actor or 'unknown'} does not override: {r.why}"
            for r in self.rejected
        ]
        lines += [stale_note(s) for s in self.stale]
        return lines


def stale_note(stale: Stale) -> str:
    given = f"commit {stale.given_for[:7]}" if stale.given_for else "an earlier commit"
    return (
        f"label '{stale.label}' by {stale.actor} was given for {given}; new commits were pushed since, and "
        "an override covers only the commit it was given for (like a stale review). A maintainer can "
        "apply it again to override this commit"
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
        if match and match.group(1).strip():
            return match.group(1).strip()
    return None


def find_override(
    *,
    prefix: str,
    labels: Sequence[str],
    events: Sequence[LabelEvent],
    comments: Sequence[Comment],
    role_of: Callable[[str], Role],
    pr: int,
    head_sha: str,
    new_commits: bool,
    previous: OverrideRecord | None,
) -> OverrideFinding:
    """The override the pull request's current labels carry, and why each other one does not count.

    `new_commits`: this run was started by a push (`synchronize`), so every label predates the head.
    `previous`: the override recorded by an earlier run; it tells which commit a label was given for.
    """
    valid: list[Override] = []
    rejected: list[Rejected] = []
    stale: list[Stale] = []
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
        given_for = (
            previous.head_sha if previous and previous.label == label and previous.at == applied.at else None
        )
        if new_commits or (given_for is not None and given_for != head_sha):
            stale.append(Stale(label=label, actor=actor, at=applied.at, given_for=given_for))
            continue
        valid.append(
            Override(
                actor=actor, label=label, reason=reason[:MAX_REASON], at=applied.at, pr=pr, head_sha=head_sha
            )
        )
    chosen = max(valid, key=lambda o: o.at, default=None)
    return OverrideFinding(override=chosen, rejected=tuple(rejected), stale=tuple(stale))


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
