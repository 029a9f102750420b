"""The GitHub side of the release gate: the release, the releases before it, the overrides merged since
the last stamp, the publisher's role, and writing the notes back.

Traps this module exists to avoid (docs/action/github-facts.md#releases, #pygithub): `GET
/releases/tags/{tag}` does not find a
draft, so a draft is looked up by id or in the list; PyGithub's `update_release` resets `draft` and
`prerelease` unless both are passed, so the notes are written with an explicit PATCH of exactly `body`,
`draft` and `prerelease`; and PATCH is not retried by PyGithub, so it goes through `retrying`.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from github import GithubException
from pydantic import ValidationError

from cairn_action.errors import CairnError
from cairn_action.gate.release import OverrideClaim, PreviousRelease
from cairn_action.gh.gateway import Role
from cairn_action.gh.override import MAX_REASON, role_allows
from cairn_action.gh.pygithub_errors import guard, retrying
from cairn_action.gh.pygithub_gateway import PyGithubGateway, utc_iso
from cairn_action.render.stamp import author_notes
from cairn_action.report.io import timestamp_slug
from cairn_action.report.models import OverrideRecord, Report
from cairn_action.report.stamp import read_stamp


@dataclass(frozen=True, kw_only=True)
class ReleaseInfo:
    id: int
    tag: str
    body: str
    draft: bool
    prerelease: bool
    html_url: str
    created_at: str
    published_at: str
    """'' for a draft."""

    @property
    def when(self) -> str:
        """When it became a release people can see; GitHub's `created_at` is the commit's date."""
        return self.published_at or self.created_at


class ReleaseGateway(Protocol):
    """What the release gate asks of GitHub, on one repository."""

    def release(self, release_id: int) -> ReleaseInfo | None: ...

    def releases(self) -> list[ReleaseInfo]:
        """Every release, drafts included (the token can see them with `contents: write`)."""
        ...

    def update_release(self, release_id: int, *, body: str, draft: bool, prerelease: bool) -> ReleaseInfo: ...

    def put_asset(self, release_id: int, *, name: str, data: bytes, content_type: str) -> str:
        """Attach `data` as the release's asset `name`, replacing one of that name; its download URL."""
        ...

    def remove_asset(self, release_id: int, name: str) -> bool:
        """Delete the release's asset `name`; False when it had none."""
        ...

    def asset_names(self, release_id: int) -> list[str]: ...

    def file_at(self, path: str, ref: str) -> bytes | None: ...

    def files_under(self, folder: str, ref: str) -> list[str]:
        """Paths of the files under `folder` at `ref` (recursive), sorted."""
        ...

    def role(self, login: str) -> Role: ...

    def default_branch(self) -> str: ...


def _release(r: Any) -> ReleaseInfo:
    return ReleaseInfo(
        id=r.id,
        tag=r.tag_name,
        body=r.body or "",
        draft=bool(r.draft),
        prerelease=bool(r.prerelease),
        html_url=r.html_url or "",
        created_at=utc_iso(r.created_at),
        published_at=utc_iso(r.published_at),
    )


class PyGithubReleases(PyGithubGateway):
    """`ReleaseGateway` over PyGithub, for one repository: the gateway's file and role reads, plus
    the releases and the file tree."""

    @classmethod
    def over(cls, gateway: object) -> PyGithubReleases:
        """Over the Action's `PyGithubGateway`, sharing its client (token, base URL, retry policy)."""
        if not isinstance(gateway, PyGithubGateway):
            raise TypeError(f"release mode needs a PyGithubGateway, not {type(gateway).__name__}")
        return gateway.sibling(cls)

    def release(self, release_id: int) -> ReleaseInfo | None:
        def read() -> ReleaseInfo | None:
            try:
                # Completed now: a lazy release takes its "tag" from the last part of its URL (the id).
                return _release(self._repo.get_release(release_id).complete())
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise

        return guard(read, f"read release {release_id}")

    def releases(self) -> list[ReleaseInfo]:
        return guard(lambda: [_release(r) for r in self._repo.get_releases()], "list the releases")

    def update_release(self, release_id: int, *, body: str, draft: bool, prerelease: bool) -> ReleaseInfo:
        url = f"{self._repo.url}/releases/{release_id}"
        fields = {"body": body, "draft": draft, "prerelease": prerelease}

        def patch() -> ReleaseInfo:
            _, data = self._gh.requester.requestJsonAndCheck("PATCH", url, input=fields)
            return _from_json(data)

        return retrying(patch, f"update the notes of release {release_id}", sleep=self._sleep)

    def _assets_named(self, release_id: int, name: str) -> tuple[Any, list[Any]]:
        release = guard(lambda: self._repo.get_release(release_id), f"read release {release_id}")
        found = guard(lambda: [a for a in release.get_assets() if a.name == name], "list the release assets")
        return release, found

    def asset_names(self, release_id: int) -> list[str]:
        release = guard(lambda: self._repo.get_release(release_id), f"read release {release_id}")
        return guard(lambda: [a.name for a in release.get_assets()], "list the release assets")

    def remove_asset(self, release_id: int, name: str) -> bool:
        _, found = self._assets_named(release_id, name)
        for asset in found:
            retrying(asset.delete_asset, f"delete the release asset {name}", sleep=self._sleep)
        return bool(found)

    def put_asset(self, release_id: int, *, name: str, data: bytes, content_type: str) -> str:
        # GitHub refuses a second asset of the same name (422 already_exists), so a re-run (a dispatch
        # over a refused draft) deletes the old one first.
        release, found = self._assets_named(release_id, name)
        for asset in found:
            retrying(asset.delete_asset, f"delete the old release asset {name}", sleep=self._sleep)

        def upload() -> str:
            asset = release.upload_asset_from_memory(io.BytesIO(data), len(data), name, content_type)
            return str(asset.browser_download_url or "")

        return retrying(upload, f"upload the release asset {name}", sleep=self._sleep)

    def file_at(self, path: str, ref: str) -> bytes | None:
        return self._file_at(path, ref, shown=ref)  # a branch name: shown whole

    def files_under(self, folder: str, ref: str) -> list[str]:
        prefix = folder.strip("/") + "/"

        def read() -> list[str]:
            try:
                tree = self._repo.get_git_tree(ref, recursive=True)
            except GithubException as exc:
                if exc.status in (404, 409):  # no such ref, or an empty repository
                    return []
                raise
            if tree.truncated:
                raise CairnError(
                    f"the file tree at {ref} is too large for GitHub to list in one answer",
                    "keep reports in a smaller repository, or prune old reports/<config>-*.json files",
                )
            return sorted(e.path for e in tree.tree if e.type == "blob" and e.path.startswith(prefix))

        return guard(read, f"list {folder} at {ref}")

    def default_branch(self) -> str:
        return guard(lambda: self._repo.default_branch, "read the repository")


def _from_json(data: Mapping[str, Any]) -> ReleaseInfo:
    return ReleaseInfo(
        id=int(data["id"]),
        tag=str(data.get("tag_name") or ""),
        body=str(data.get("body") or ""),
        draft=bool(data.get("draft")),
        prerelease=bool(data.get("prerelease")),
        html_url=str(data.get("html_url") or ""),
        created_at=str(data.get("created_at") or ""),
        published_at=str(data.get("published_at") or ""),
    )


# ----- the gate's questions -----


def find_release(gateway: ReleaseGateway, *, release_id: int | None, tag: str | None) -> ReleaseInfo:
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
    gateway: ReleaseGateway, *, branch: str, reports_dir: str, config_name: str, since: str, until: str
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
    gateway: ReleaseGateway, *, actor: str, reason: str | None, at: str, via: str
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
