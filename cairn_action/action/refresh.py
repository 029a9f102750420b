"""Baseline mode: on a push to the default branch, measure it and commit the reports as the new baseline.

Writes `reports/<config>-<UTC>.json`, `reports/latest/<config>.json` and `reports/leaderboard.md`, copies
the merged pull request's override record (if any) into the report's notes, and commits the files in
one commit through the Git data API (`contents: write`), which needs no git credentials in the container
and works with any checkout depth. When nothing changed (same config, same cases, same metrics apart
from timings) and there is no override to record, nothing is committed: history stays readable.
A commit made with the workflow token starts no new workflow run, so this cannot loop.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn_action.action.explorer import write_explorer
from cairn_action.action.override import read_record, role_allows
from cairn_action.action.pr import REPORTS_DIR
from cairn_action.action.runtime import ConfigResult, Runtime
from cairn_action.action.trust import Trusted
from cairn_action.config import LoadedConfig, config_hash
from cairn_action.errors import CairnError
from cairn_action.files import LIMIT_REPORT, read_bytes
from cairn_action.gate.compare import compare
from cairn_action.gh.comments import find_sticky
from cairn_action.render.comment_view import marker
from cairn_action.report.io import read_latest_reports, read_report, write_report, write_text_atomic
from cairn_action.report.leaderboard import render_leaderboard
from cairn_action.report.models import OverrideRecord, Report

LEADERBOARD = "leaderboard.md"


def merged_overrides(rt: Runtime, config_name: str) -> list[OverrideRecord]:
    """The override records of the pull request(s) this push merged, verified against the API.

    A record counts when it sits in the bot's sticky comment for this config, names that pull request
    and its final head commit (an override given for an earlier commit was not what got merged), and
    GitHub's own label events show that person applying that label at that time, with a role that may
    override. The bot's comment alone is not believed: a leaked token writes the same comments.
    """
    records = []
    for pull in rt.gateway.pulls_for_commit(rt.context.sha):
        if not pull.merged:
            continue
        sticky = find_sticky(rt.gateway, pull.number, marker(config_name))
        record = read_record(sticky.body) if sticky else None
        if record is None or record.pr != pull.number or record.head_sha != pull.head_sha:
            continue
        if _applied_as_recorded(rt, record):
            records.append(record)
        else:
            rt.workflow.warning(
                f"the sticky comment of pull request #{pull.number} records an override by "
                f"{record.actor} that GitHub's label events do not show: not recorded",
                title=f"Cairn ({config_name}): override record not believed",
            )
    return records


def _applied_as_recorded(rt: Runtime, record: OverrideRecord) -> bool:
    """GitHub's label events show `record.actor` applying `record.label` at `record.at`, and their role
    allows an override."""
    shown = any(
        e.event == "labeled"
        and e.label.lower() == record.label.lower()
        and e.actor.lower() == record.actor.lower()
        and e.at == record.at
        for e in rt.gateway.label_events(record.pr)
    )
    return shown and role_allows(rt.gateway.role(record.actor))


def _unchanged(previous: Report | None, report: Report) -> bool:
    if previous is None or previous.config_hash != report.config_hash:
        return False
    comparison = compare(previous, report, critical_tags=[])
    return (
        comparison.comparable
        and not comparison.cases_changed
        and not comparison.moved(machine_dependent=False)
    )


def _branch(rt: Runtime) -> str:
    """The default branch, which this run must be on: a baseline measured elsewhere is not the base."""
    ref, default = rt.context.ref, rt.context.default_branch
    if ref != f"refs/heads/{default}":
        raise CairnError(
            f"baseline mode refreshes the default branch ({default}), and this run's ref is '{ref}'",
            f"run `mode: baseline` on `push` to {default} (`on: push: branches: [{default}]`)",
        )
    return default


def refresh_config(rt: Runtime, loaded: LoadedConfig) -> tuple[ConfigResult, dict[str, bytes]]:
    """Evaluate one config and write its reports; returns the result and the files to commit."""
    name = loaded.config.name
    latest = rt.workdir / REPORTS_DIR / "latest" / f"{name}.json"
    previous = read_report(latest) if latest.is_file() else None
    with rt.workflow.group(f"Cairn: evaluate {name}"):
        # On the default branch the checkout is the trusted side: its own judge and endpoints.
        report = rt.evaluate(loaded, trusted=Trusted(config=loaded.config, where=str(loaded.source or name)))
    explorer = write_explorer(rt, report)
    overrides = merged_overrides(rt, name)
    for record in overrides:
        rt.workflow.notice(
            f"pull request #{record.pr} was merged with an override by {record.actor} "
            f"('{record.label}'): {record.reason}",
            title=f"Cairn ({name}): override recorded",
        )
    report.notes.overrides.extend(overrides)
    if not overrides and _unchanged(previous, report):
        rt.workflow.notice(
            f"the baseline of {name} is unchanged (config {config_hash(loaded.config)}, same cases "
            "and metrics apart from timings): nothing to commit",
            title=f"Cairn ({name})",
        )
        unchanged = ConfigResult.of(
            report,
            verdict="pass",
            exit_code=0,
            headline="baseline unchanged",
            report_path=rt.display(latest),
            explorer_path=explorer,
        )
        return unchanged, {}
    kept, latest = write_report(report, rt.workdir / REPORTS_DIR)
    files = {
        rt.repo_path(f"{REPORTS_DIR}/{p.relative_to(rt.workdir / REPORTS_DIR).as_posix()}"): read_bytes(
            p, what="the report", limit=LIMIT_REPORT
        )
        for p in (kept, latest)
    }
    refreshed = ConfigResult.of(
        report,
        verdict="pass",
        exit_code=0,
        headline="baseline refreshed",
        report_path=rt.display(latest),
        explorer_path=explorer,
    )
    return refreshed, files


def run_baseline_mode(rt: Runtime, configs: Sequence[LoadedConfig]) -> list[ConfigResult]:
    branch = _branch(rt)
    results, files = [], {}
    for loaded in configs:
        result, written = refresh_config(rt, loaded)
        results.append(result)
        files.update(written)
    if not files:
        return results
    board = rt.workdir / REPORTS_DIR / LEADERBOARD
    write_text_atomic(
        board, render_leaderboard([r for _, r in read_latest_reports(rt.workdir / REPORTS_DIR, cases=False)])
    )
    files[rt.repo_path(f"{REPORTS_DIR}/{LEADERBOARD}")] = read_bytes(
        board, what="the leaderboard", limit=LIMIT_REPORT
    )
    names = ", ".join(r.config_name for r in results if r.headline == "baseline refreshed")
    message = f"cairn: baseline for {names} at {rt.context.sha[:7]} [skip ci]"
    sha = rt.gateway.commit_files(branch, files, message)
    rt.workflow.notice(
        f"committed {len(files)} files to {branch} as {sha[:12]}: {', '.join(sorted(files))}",
        title="Cairn: baseline refreshed",
    )
    rt.workflow.set_output("baseline-commit", sha)
    return results
