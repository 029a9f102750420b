"""Release mode: stamp a release with its accuracy, or refuse it (shared by `mode: release` and
`cairn release-stamp`; the questions it asks GitHub are in `release_history`).

It reads everything at the release's tag (the config, the golden set, `reports/latest/<config>.json`),
finds the last stamped release and the overrides merged since, lets the pure gate decide, and writes the
notes back: stamped, published over a regression with who and why, or refused and put back to draft
(its prerelease flag kept). Exit 0 stamped or published over a regression, 1 refused.
"""

from __future__ import annotations

import hashlib
import posixpath
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pydantic import ValidationError

from cairn_action.action.pr import REPORTS_DIR
from cairn_action.action.release_history import (
    collect_overrides,
    find_release,
    last_stamped,
    notes_reason,
    override_claim,
    release_event,
)
from cairn_action.action.runtime import Runtime
from cairn_action.config import Config, config_hash, embedded_default, embedded_golden_path, parse_config
from cairn_action.errors import CairnError, DataError
from cairn_action.files import LIMIT_GOLDEN, LIMIT_VERSION, read_bytes
from cairn_action.gate.release_decision import Evaluation, ReleaseDecision, decide_release
from cairn_action.gh.gateway import GitHubGateway, ReleaseInfo
from cairn_action.gh.workflow import WorkflowLog
from cairn_action.golden.load import GOLDEN_FILE, VERSION_FILE, hash_version
from cairn_action.golden.sealed import KEY_FILE, QUESTIONS_FILE, pair_hash
from cairn_action.render.stamp import render_stamp, stamp_notes
from cairn_action.report.models import Report
from cairn_action.report.served import ServedStamp, from_stamp, stamp_json


@dataclass(frozen=True, kw_only=True)
class ReleaseRequest:
    """Which release, who asked, and where things live in the repository (paths relative to its root)."""

    repository: str
    server_url: str = "https://github.com"
    release_id: int | None = None
    tag: str | None = None
    actor: str = ""
    """Who published the release, or ran the dispatch: the one whose reason counts."""
    reason: str | None = None
    """A reason given outside the notes (the dispatch's input); else a `<prefix>: <reason>` notes line."""
    via: str = "release notes"
    config_paths: tuple[str, ...] = ("cairn.toml",)
    """Each config gets its own section; the release is refused when any of them is."""
    config_is_default: bool = True
    """No config was named: a missing cairn.toml means the embedded default."""
    reports_dir: str = "reports"
    default_branch: str | None = None
    """Where merged reports (and their overrides) live; None asks GitHub for the default branch."""
    override_prefix: str = "cairn-override"
    commit: str | None = None
    """The commit the release's tag names, for the served stamp (the Action's GITHUB_SHA)."""


@dataclass(frozen=True, kw_only=True)
class _AtTag:
    config: Config
    config_hash: str
    golden_hash: str | None
    golden_version: str | None


def _config_at(gateway: GitHubGateway, path: str, tag: str, *, default: bool) -> tuple[Config, bool]:
    """The config at the tag, and whether it is the embedded default (no cairn.toml, none named)."""
    data = gateway.file_at(path, tag)
    if data is None:
        if default:
            return embedded_default(Path.cwd()).config, True
        raise CairnError(
            f"{path} does not exist at {tag}",
            "pass the config path relative to the repository root (`config:` / `--config`)",
        )
    try:
        text = data.decode("utf-8")
        parsed = tomllib.loads(text)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise DataError(f"{path} at {tag}: unreadable config: {exc}", "fix the file") from None
    return parse_config(parsed, Path(f"{path}@{tag}"), text), False


def _golden_files(config: Config, config_path: str) -> tuple[str, str] | None:
    """(golden.jsonl, golden.version) as repository paths, None when the config points outside it."""
    configured = config.golden.path
    if posixpath.isabs(configured):
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(config_path), configured))
    if path.startswith("../"):
        return None
    jsonl = path if path.endswith(".jsonl") else posixpath.join(path, GOLDEN_FILE)
    return jsonl, posixpath.join(posixpath.dirname(jsonl), VERSION_FILE)


def _version(content: bytes | None, golden_hash: str) -> str:
    text = content.decode("utf-8-sig", "replace").strip() if content is not None else ""
    return text if text and "\n" not in text else hash_version(golden_hash)


def _sealed_hash(gateway: GitHubGateway, folder: str, tag: str) -> str | None:
    """The content hash of a sealed golden set in `folder` at `tag` (golden/sealed.py: it covers the
    questions and the key), None when the folder holds no sealed set."""
    key = gateway.file_at(posixpath.join(folder, KEY_FILE), tag)
    questions = gateway.file_at(posixpath.join(folder, QUESTIONS_FILE), tag) if key is not None else None
    return pair_hash(questions, key) if key is not None and questions is not None else None


def _at_tag(gateway: GitHubGateway, request: ReleaseRequest, path: str, tag: str, notes: list[str]) -> _AtTag:
    """The config at the tag and the golden set it names, which the tag's report must have measured."""
    config, embedded = _config_at(gateway, path, tag, default=request.config_is_default)
    if embedded:
        jsonl = embedded_golden_path()
        data = (
            read_bytes(jsonl, what="the shipped golden set", limit=LIMIT_GOLDEN) if jsonl.is_file() else None
        )
        version = jsonl.parent / VERSION_FILE
        version_bytes = (
            read_bytes(version, what="its version", limit=LIMIT_VERSION) if data is not None else None
        )
    else:
        files = _golden_files(config, path)
        if files is None:
            notes.append(f"the golden set ({config.golden.path}) is outside the repository; not checked")
            return _AtTag(
                config=config, config_hash=config_hash(config), golden_hash=None, golden_version=None
            )
        data = gateway.file_at(files[0], tag)
        sealed = None
        if data is None or posixpath.basename(files[0]) == QUESTIONS_FILE:  # golden/sealed.py's rule
            sealed = _sealed_hash(gateway, posixpath.dirname(files[0]), tag)
        version_bytes = gateway.file_at(files[1], tag) if data is not None else None
        if sealed is not None:
            return _AtTag(
                config=config,
                config_hash=config_hash(config),
                golden_hash=sealed,
                golden_version=_version(version_bytes, sealed),
            )
        if data is None:
            notes.append(f"{files[0]} does not exist at {tag}; the golden set was not checked")
    golden_hash = hashlib.sha256(data).hexdigest() if data is not None else None
    version = _version(version_bytes, golden_hash) if golden_hash is not None else None
    return _AtTag(
        config=config, config_hash=config_hash(config), golden_hash=golden_hash, golden_version=version
    )


def _report_at(gateway: GitHubGateway, path: str, tag: str) -> Report | None:
    data = gateway.file_at(path, tag)
    if data is None:
        return None
    try:
        return Report.model_validate_json(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise DataError(
            f"{path} at {tag}: not a readable report: '{where}': {err['msg']}",
            "regenerate it with `cairn eval` and commit it",
        ) from None


@dataclass(frozen=True, kw_only=True)
class _Seen:
    """What every config's decision shares: the release, all releases, the branch, the time."""

    release: ReleaseInfo
    releases: list[ReleaseInfo]
    branch: str
    now: str


def decide(
    request: ReleaseRequest, config_path: str, seen: _Seen, *, gateway: GitHubGateway
) -> ReleaseDecision:
    """One config's decision, from everything read at the tag and from the releases; nothing written."""
    notes: list[str] = []
    release, now = seen.release, seen.now
    tag = release.tag
    at_tag = _at_tag(gateway, request, config_path, tag, notes)
    name = at_tag.config.name
    report_path = posixpath.join(request.reports_dir, "latest", f"{name}.json")
    report = _report_at(gateway, report_path, tag)
    previous, passed_over = last_stamped(seen.releases, release, name)
    notes += passed_over
    overrides, unreadable = collect_overrides(
        gateway,
        branch=seen.branch,
        reports_dir=request.reports_dir,
        config_name=name,
        since=previous.stamp.report_created_at if previous is not None else "",
        until=report.created_at if report is not None else now,
    )
    notes += unreadable
    reason = request.reason or notes_reason(release.body, request.override_prefix)
    claim = override_claim(gateway, actor=request.actor, reason=reason, at=now, via=request.via)
    evaluation = Evaluation(
        report=report,
        report_path=report_path,
        expected_config_hash=at_tag.config_hash,
        expected_golden_hash=at_tag.golden_hash,
        expected_golden_version=at_tag.golden_version,
    )
    url = f"{request.server_url}/{request.repository}/blob/{quote(tag, safe='')}/{quote(report_path)}"
    return decide_release(
        release_tag=tag,
        config_name=name,
        evaluation=evaluation,
        previous=previous,
        overrides=overrides,
        claim=claim,
        report_url=url,
        stamped_at=now,
        notes=notes,
    )


_SEVERITY = {"stamped": 0, "published_over_regression": 1, "refused": 2}
_VERDICT = {"stamped": "pass", "published_over_regression": "overridden", "refused": "regression"}
"""The Action's `verdict` output in the words the pull-request gate uses."""


def _log(workflow: WorkflowLog, tag: str, decision: ReleaseDecision) -> None:
    stamp = decision.stamp
    subject = f"release {tag} ({stamp.config_name})"
    if stamp.status == "refused":
        workflow.error(f"{subject} refused: " + "; ".join(stamp.reasons), title="Cairn release gate")
    elif stamp.published_over is not None:
        workflow.warning(
            f"{subject} published over the gate by {stamp.published_over.actor}: " + "; ".join(stamp.reasons),
            title="Cairn release gate",
        )
    else:
        workflow.notice(f"{subject} stamped", title="Cairn release gate")
    for note in stamp.notes:
        workflow.info(f"note: {note}")


def asset_names(config_name: str) -> tuple[str, str]:
    """The release assets a config's served stamp travels as: its JSON (`load_served_stamp` reads it)
    and its one line."""
    return f"cairn-stamp-{config_name}.json", f"cairn-stamp-{config_name}.txt"


def _travel(
    gateway: GitHubGateway,
    release: ReleaseInfo,
    decision: ReleaseDecision,
    *,
    commit: str | None,
    present: set[str],
    rewrite: bool,
) -> ServedStamp | None:
    """Attach the served stamp to the release as its two assets (the release gate spec: the stamp
    travels with the served system); a refused config's assets are removed, so a draft never carries
    an earlier run's claim. Unchanged notes mean an unchanged stamp, so a rerun writes only what is
    missing. The served stamp, or None when refused."""
    names = asset_names(decision.stamp.config_name)
    if decision.status == "refused":
        for name in names:
            if name in present:
                gateway.remove_asset(release.id, name)
        return None
    served = from_stamp(decision.stamp, commit=commit)
    contents = (
        (stamp_json(served).encode(), "application/json"),
        ((served.line() + "\n").encode(), "text/plain"),
    )
    for name, (data, content_type) in zip(names, contents, strict=True):
        if rewrite or name not in present:
            gateway.put_asset(release.id, name=name, data=data, content_type=content_type)
    return served


def run_release(
    request: ReleaseRequest, *, gateway: GitHubGateway, workflow: WorkflowLog, now: Callable[[], str]
) -> int:
    """Stamp (or refuse) the release for each config and write its notes once; the exit code."""
    release = find_release(gateway, release_id=request.release_id, tag=request.tag)
    seen = _Seen(
        release=release,
        releases=gateway.releases(),
        branch=request.default_branch or gateway.default_branch(),
        now=now(),
    )
    decisions = [decide(request, path, seen, gateway=gateway) for path in request.config_paths]
    names = [d.stamp.config_name for d in decisions]
    if len(set(names)) != len(names):
        raise CairnError(
            f"two configs are named alike ({', '.join(names)}); each needs its own stamp",
            "give each config its own `name`",
        )
    body = release.body
    for decision in decisions:
        body = stamp_notes(body, decision.stamp, override_prefix=request.override_prefix)
    worst = max(decisions, key=lambda d: _SEVERITY[d.status])
    # A refusal puts the release back to draft; otherwise it is published (a dispatch over a refused
    # draft publishes it). Both flags are sent explicitly, so the prerelease flag never changes.
    draft = worst.status == "refused"
    if body != release.body or draft != release.draft:
        gateway.update_release(release.id, body=body, draft=draft, prerelease=release.prerelease)
    present = set(gateway.asset_names(release.id))
    rewrite = body != release.body or draft != release.draft
    served = [
        _travel(gateway, release, d, commit=request.commit, present=present, rewrite=rewrite)
        for d in decisions
    ]
    workflow.set_output("verdict", _VERDICT[worst.status])
    workflow.set_output("release-status", worst.status)
    # The first config's, like the other per-config outputs; empty when it was refused.
    first = served[0]
    workflow.set_output("stamp", first.line() if first is not None else "")
    workflow.set_output("stamp-json", first.model_dump_json() if first is not None else "")
    for decision in decisions:
        workflow.add_summary(render_stamp(decision.stamp, override_prefix=request.override_prefix))
        _log(workflow, release.tag, decision)
    if draft:
        workflow.error(f"release {release.tag} was put back to draft", title="Cairn release gate")
    return max(int(d.exit_code) for d in decisions)


def run_release_mode(rt: Runtime, payload: Mapping[str, Any]) -> int:
    """`mode: release` of the Action: on `release: published`, or `workflow_dispatch` with `tag` (and an
    optional `reason`) inputs. Configs and reports are where the PR and baseline modes keep them."""
    event = release_event(rt.context.event_name, payload)
    request = ReleaseRequest(
        repository=rt.context.repository,
        server_url=rt.context.server_url,
        release_id=event.release_id,
        tag=event.tag,
        actor=event.actor or rt.context.sender,
        reason=event.reason,
        via=event.via,
        config_paths=tuple(rt.repo_path(c) for c in rt.inputs.config),
        config_is_default=rt.inputs.config_is_default,
        reports_dir=rt.repo_path(REPORTS_DIR),
        default_branch=rt.context.default_branch,
        override_prefix=rt.inputs.override_label,
        commit=rt.context.sha or None,
    )
    return run_release(
        request,
        gateway=rt.gateway,
        workflow=rt.workflow,
        now=lambda: rt.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
    )
