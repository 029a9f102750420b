"""The release gate's questions to GitHub: which release, the releases before it, the last stamped one,
the overrides merged since it, and who may publish over a refusal with which reason.

The GitHub calls themselves (and their traps: a draft is not found by tag, PyGithub's `update_release`
resets flags, PATCH is not retried) are in `gh/pygithub_gateway.py`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from cairn_action.action.override import MAX_REASON, role_allows
from cairn_action.errors import CairnError
from cairn_action.gate.release_decision import OverrideClaim, PreviousRelease
from cairn_action.gh.gateway import GitHubGateway, ReleaseInfo
from cairn_action.render.stamp import author_notes
from cairn_action.report.io import timestamp_slug
from cairn_action.report.models import OverrideRecord, Report
from cairn_action.report.stamp import read_stamp


def find_release(gateway: GitHubGateway, *, release_id: int | None, tag: str | None) -> ReleaseInfo:
    """The release by id (the event's), else by tag among all releases: drafts are not found by tag."""
    if release_id is not None:
        found = gateway.release(release_id)
        if found is not None:
            return found
    if tag:
        for candidate in gateway.releases():
            if candidate.tag == tag:
                return candidate
    what = f"id {release_id}" if release_id is not None else f"tag '{tag}'"
    raise CairnError(
        f"no release with {what} in this repository",
        "create the release first (a draft is fine), then run the release stamp with its tag",
    )


def earlier(releases: Sequence[ReleaseInfo], current: ReleaseInfo) -> list[ReleaseInfo]:
    """Published releases before `current`, newest first. A draft current release comes after all."""
    cutoff = current.published_at if not current.draft else ""
    before = [
        r
        for r in releases
        if not r.draft and r.id != current.id and (not cutoff or (r.when, r.id) < (cutoff, current.id))
    ]
    return sorted(before, key=lambda r: (r.when, r.id), reverse=True)


def last_stamped(
    releases: Sequence[ReleaseInfo], current: ReleaseInfo, config_name: str
) -> tuple[PreviousRelease | None, list[str]]:
    """The newest earlier release carrying a stamp that can be compared, and notes on the ones passed
    over (unreadable, or never passed)."""
    notes = []
    for release in earlier(releases, current):
        found = read_stamp(release.body, config_name)
        if found.problem:
            notes.append(f"release {release.tag} was passed over: {found.problem}")
            continue
        if found.stamp is None:
            continue
        if not found.stamp.can_be_compared_with:
            notes.append(f"release {release.tag} was passed over: its stamp has no comparable figures")
            continue
        return PreviousRelease(release_tag=release.tag, url=release.html_url, stamp=found.stamp), notes
    return None, notes


def collect_overrides(
    gateway: GitHubGateway, *, branch: str, reports_dir: str, config_name: str, since: str, until: str
) -> tuple[list[OverrideRecord], list[str]]:
    """Every override recorded in this config's kept reports on `branch` made after `since` and up to
    `until` (report creation times; `since` '' means from the start), each once, oldest first."""
    kept = re.compile(rf"^{re.escape(config_name)}-(\d{{8}}T\d{{6}}Z)\.json$")
    low, high = (timestamp_slug(since) if since else ""), timestamp_slug(until)
    found: dict[tuple[object, ...], OverrideRecord] = {}
    notes = []
    for path in gateway.files_under(reports_dir, branch):
        match = kept.match(path.rsplit("/", 1)[-1])
        if match is None or not (low < match.group(1) <= high):
            continue
        data = gateway.file_at(path, branch)
        if data is None:
            continue
        try:
            report = Report.model_validate_json(data)
        except ValidationError as exc:
            notes.append(
                f"{path} on {branch} is not a readable report, so its overrides are not listed: "
                f"{exc.errors()[0]['msg']}"
            )
            continue
        if not (since < report.created_at <= until):
            continue
        for o in report.notes.overrides:
            found.setdefault((o.pr, o.actor, o.label, o.at, o.head_sha), o)
    return sorted(found.values(), key=lambda o: (o.at, o.pr or 0)), notes


def notes_reason(notes: str, prefix: str) -> str | None:
    """The reason on a `<prefix>: <reason>` line the author wrote (never one inside a Cairn section)."""
    pattern = re.compile(rf"^[ \t]*{re.escape(prefix)}[ \t]*:[ \t]*(\S.*?)[ \t]*\r?$", re.I | re.M)
    match = pattern.search(author_notes(notes))
    return match.group(1) if match else None


def override_claim(
    gateway: GitHubGateway, *, actor: str, reason: str | None, at: str, via: str
) -> OverrideClaim | None:
    """The publisher's request to publish over the gate, with their role as GitHub reports it."""
    if not reason or not reason.strip():
        return None
    if not actor:
        return OverrideClaim(actor="unknown", role="none", allowed=False, reason=reason, at=at, via=via)
    role = gateway.role(actor)
    return OverrideClaim(
        actor=actor,
        role=role.role_name,
        allowed=role_allows(role),
        reason=reason.strip()[:MAX_REASON],
        at=at,
        via=via,
    )


@dataclass(frozen=True, kw_only=True)
class ReleaseEvent:
    """What the event says about the release to stamp and who asked."""

    release_id: int | None
    tag: str | None
    actor: str
    reason: str | None
    """The dispatch's `reason` input; None on `release: published` (the notes carry it there)."""
    via: str


def release_event(event_name: str, payload: Mapping[str, Any]) -> ReleaseEvent:
    """From `release` (published) or `workflow_dispatch` (inputs `tag`, optional `reason`)."""
    sender = payload.get("sender")
    actor = str(sender.get("login") or "") if isinstance(sender, Mapping) else ""
    if event_name == "release":
        release = payload.get("release")
        rid = release.get("id") if isinstance(release, Mapping) else None
        tag = release.get("tag_name") if isinstance(release, Mapping) else None
        if not isinstance(rid, int):
            raise CairnError(
                "the release event has no release.id", "run `mode: release` on `release: published`"
            )
        return ReleaseEvent(
            release_id=rid,
            tag=tag if isinstance(tag, str) else None,
            actor=actor,
            reason=None,
            via="release notes",
        )
    if event_name == "workflow_dispatch":
        inputs = payload.get("inputs")
        inputs = inputs if isinstance(inputs, Mapping) else {}
        tag, reason = inputs.get("tag"), inputs.get("reason")
        if not isinstance(tag, str) or not tag.strip():
            raise CairnError(
                "workflow_dispatch: the `tag` input is empty",
                "declare `on: workflow_dispatch: inputs: tag:` (and `reason:`) as the README's release "
                "workflow does, and give the release's tag",
            )
        return ReleaseEvent(
            release_id=None,
            tag=tag.strip(),
            actor=actor,
            reason=reason.strip() if isinstance(reason, str) and reason.strip() else None,
            via="workflow_dispatch",
        )
    raise CairnError(
        f"`mode: release` runs on `release` or `workflow_dispatch` events, not `{event_name}`",
        "see the README's release workflow",
    )
