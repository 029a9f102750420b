"""PR mode: evaluate the checked-out head, compare it with the base commit's baseline, gate, tell.

Per config: the candidate report; the baseline read at `pull_request.base.sha` (never the pull request's
copy); the override the labels carry, if any; the gate under the baseline's policy; the comment, the job
summary, the step outputs, the files for the fork artifact, and the exit code. A fork's token is
read-only: the gate still runs and the job still fails, and the comment stage posts what it wrote.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.config import LoadedConfig
from cairn_action.errors import ExitCode
from cairn_action.gate import run_gate
from cairn_action.gate.models import GateResult
from cairn_action.gh.attack_section import attack_section
from cairn_action.gh.baseline import read_base_copy
from cairn_action.gh.comments import MAX_COMMENT_CHARS, is_sticky, upsert_sticky
from cairn_action.gh.context import PullRequestEvent
from cairn_action.gh.explorer import explorer_link, write_explorer
from cairn_action.gh.gateway import Comment, LabelEvent, StatusState
from cairn_action.gh.handoff import Handoff, Verdict, write_handoff
from cairn_action.gh.messages import (
    NO_BASELINE_HEADLINE,
    no_baseline_comment,
    no_baseline_hint,
    removal_comment,
)
from cairn_action.gh.override import (
    OverrideFinding,
    Stale,
    find_override,
    is_override_label,
    read_record,
    record_line,
)
from cairn_action.gh.pygithub_errors import PermissionDenied
from cairn_action.gh.runtime import ConfigResult, Runtime
from cairn_action.render.escape import safe_token
from cairn_action.render.markdown import render_comment
from cairn_action.render.trend import build_trend
from cairn_action.render.view import marker
from cairn_action.report.io import dumps, read_report, write_text_atomic
from cairn_action.report.models import OverrideRecord, Report

REPORTS_DIR = "reports"
_STATE: dict[str, StatusState] = {
    "pass": "success",
    "no-baseline": "success",
    "overridden": "success",
    "regression": "failure",
    "refused": "error",
}


@dataclass(frozen=True, kw_only=True)
class LabelState:
    """The pull request's labels now (the payload's may be stale on a re-run), and, when one of them is
    an override label, who applied what and the comments that may carry a reason."""

    labels: tuple[str, ...]
    events: tuple[LabelEvent, ...] = ()
    comments: tuple[Comment, ...] = ()

    def has_override_label(self, prefix: str) -> bool:
        return any(is_override_label(label, prefix) for label in self.labels)


def read_label_state(rt: Runtime, pull: PullRequestEvent) -> LabelState:
    live = rt.gateway.pull(pull.number)
    if live.head_sha != pull.head_sha:
        rt.workflow.warning(
            f"pull request #{pull.number} has moved on to {live.head_sha[:12]}; this run gates "
            f"{pull.head_sha[:12]}, the commit it checked out"
        )
    state = LabelState(labels=live.labels)
    if not state.has_override_label(rt.inputs.override_label):
        return state
    return LabelState(
        labels=live.labels,
        events=tuple(rt.gateway.label_events(pull.number)),
        comments=tuple(rt.gateway.comments(pull.number)),
    )


def _with_notes(result: GateResult, notes: list[str]) -> GateResult:
    if not notes:
        return result
    decision = result.decision.model_copy(update={"notes": [*result.decision.notes, *notes]})
    return result.model_copy(update={"decision": decision})


def _history(rt: Runtime, name: str) -> list[Report]:
    """This config's committed reports in the checkout, for the trend chart only (never for gating)."""
    found = []
    for path in sorted((rt.workdir / REPORTS_DIR).glob(f"{name}-*.json"))[-50:]:
        try:
            found.append(read_report(path))
        except Exception:  # a broken history file costs a point on the chart, not the gate
            continue
    return found


def _log(rt: Runtime, name: str, result: GateResult) -> None:
    decision = result.decision
    title = f"Cairn ({name})"
    if decision.status == "regression":
        for reason in decision.reasons[:10]:
            rt.workflow.error(reason.message, title=f"{title}: gate failed")
    elif decision.status == "refused":
        hints = {r.code: r.hint for r in result.comparison.refusals}
        for reason in decision.reasons[:10]:
            rt.workflow.error(
                f"{reason.message}. {hints.get(reason.code, '')}".strip(), title=f"{title}: refused"
            )
    elif decision.status == "overridden" and decision.override:
        o = decision.override
        rt.workflow.warning(
            f"gate overridden by {o.actor} with label '{o.label}' at {o.at} for {o.head_sha}: {o.reason}",
            title=f"{title}: overridden",
        )
    else:
        rt.workflow.notice(decision.headline, title=f"{title}: passed")
    for note in decision.notes:
        rt.workflow.warning(note, title=title)


def _deliver(
    rt: Runtime, pull: PullRequestEvent, handoff: Handoff, decision_json: str | None
) -> tuple[str, str]:
    """Write the artifact files and the summary; post comment, removals and status where allowed.
    Returns (comment path, comment URL)."""
    paths = write_handoff(handoff, rt.results_dir, decision_json=decision_json)
    rt.workflow.add_summary(handoff.comment)
    url = ""
    if pull.is_fork:
        return rt.display(paths["comment"]), url
    try:
        if rt.inputs.comment:
            url = upsert_sticky(rt.gateway, pull.number, handoff.marker, handoff.comment).comment.url
            rt.workflow.info(f"comment: {url}")
        for label in handoff.remove_labels:
            if rt.gateway.remove_label(pull.number, label):
                rt.workflow.warning(f"removed the stale override label '{label}'")
        if handoff.remove_labels and handoff.removal_note:
            rt.gateway.create_comment(pull.number, handoff.removal_note)
        if rt.inputs.status:
            rt.gateway.create_status(
                pull.head_sha,
                state=_STATE[handoff.verdict],
                context=f"cairn/{safe_token(handoff.config_name)}",
                description=f"{handoff.verdict}: {handoff.headline}",
                target_url=rt.context.run_url,
            )
    except PermissionDenied as exc:
        rt.workflow.warning(f"{exc.message}. {exc.hint}", title="Cairn could not write to the pull request")
    return rt.display(paths["comment"]), url


def _handoff(
    rt: Runtime,
    pull: PullRequestEvent,
    name: str,
    verdict: Verdict,
    exit_code: int,
    headline: str,
    comment: str,
    *,
    remove_labels: list[str] | None = None,
    removal_note: str = "",
    override: OverrideRecord | None = None,
) -> Handoff:
    return Handoff(
        repository=rt.context.repository,
        pr_number=pull.number,
        head_sha=pull.head_sha,
        config_name=name,
        verdict=verdict,
        exit_code=exit_code,
        headline=headline[:300],
        marker=marker(name),
        comment=comment,
        remove_labels=remove_labels or [],
        removal_note=removal_note,
        override=override,
    )


def gate_config(
    rt: Runtime, pull: PullRequestEvent, loaded: LoadedConfig, labels: LabelState
) -> ConfigResult:
    name = loaded.config.name
    folder = rt.results_dir / name
    with rt.workflow.group(f"Cairn: evaluate {name}"):
        report = rt.evaluate(loaded)
    base_path = rt.repo_path(f"{REPORTS_DIR}/latest/{name}.json")
    base = read_base_copy(rt.gateway, path=base_path, ref=pull.base_sha, workspace=rt.context.workspace)
    if base.data is None:
        report_path = folder / "report.json"
        write_text_atomic(report_path, dumps(report))
        hint = no_baseline_hint(name, pull.base_ref)
        rt.workflow.notice(
            f"{base_path} does not exist at the base commit {pull.base_sha[:12]}, so the gate "
            f"passes. To gate the next pull request, {hint}",
            title=f"Cairn ({name}): no baseline",
        )
        explorer = write_explorer(rt, report)
        comment = no_baseline_comment(report, base_ref=pull.base_ref, base_sha=pull.base_sha)
        comment += explorer_link(rt) if explorer else ""
        handoff = _handoff(rt, pull, name, "no-baseline", 0, NO_BASELINE_HEADLINE, comment)
        comment_path, url = _deliver(rt, pull, handoff, None)
        return ConfigResult.of(
            report,
            verdict="no-baseline",
            exit_code=0,
            headline=NO_BASELINE_HEADLINE,
            report_path=rt.display(report_path),
            comment_path=comment_path,
            comment_url=url,
            explorer_path=explorer,
        )
    baseline_file = folder / "baseline.json"
    write_text_atomic(baseline_file, base.data.decode("utf-8", "replace"))
    baseline = read_report(baseline_file)
    rt.workflow.info(
        f"baseline for {name}: {base_path} at {pull.base_sha[:12]} (read through the {base.via})"
    )
    sticky = next((c for c in labels.comments if is_sticky(c, marker(name))), None)
    finding = OverrideFinding()
    if labels.has_override_label(rt.inputs.override_label):
        finding = find_override(
            prefix=rt.inputs.override_label,
            labels=labels.labels,
            events=labels.events,
            comments=labels.comments,
            role_of=rt.gateway.role,
            pr=pull.number,
            head_sha=pull.head_sha,
            new_commits=rt.context.action == "synchronize",
            previous=read_record(sticky.body) if sticky else None,
        )
    result = run_gate(
        baseline, report, override=finding.override, source=f"{base_path} at {pull.base_sha[:12]}"
    )
    decision = result.decision
    stale: tuple[Stale, ...] = finding.stale if decision.status == "regression" else ()
    notes = [n for n in OverrideFinding(rejected=finding.rejected, stale=stale).notes()]
    if decision.override is not None:
        notes.append(
            f"the override is recorded for head {decision.override.head_sha}; it covers that commit only"
        )
        report.notes.overrides.append(decision.override)
    result = _with_notes(result, notes)
    _log(rt, name, result)
    record = f"\n{record_line(decision.override)}\n" if decision.override else ""
    attack = attack_section(rt, pull, loaded)  # None unless `attack: true`
    extra = f"\n{attack.markdown}" if attack else ""
    trend = build_trend(_history(rt, name), report)
    explorer = write_explorer(rt, report, result=result)
    link = explorer_link(rt) if explorer else ""
    comment = render_comment(
        result, trend=trend, limit=MAX_COMMENT_CHARS - len(record) - len(extra) - len(link)
    )
    comment += extra + link + record
    status, exit_code, headline = decision.status, decision.exit_code, decision.headline
    if attack is not None and attack.exit_code > exit_code and status in ("pass", "overridden"):
        # The override label covers the main gate's regression, not a broken attack probe.
        status = "refused" if attack.exit_code == ExitCode.USAGE else "regression"
        exit_code, headline = attack.exit_code, attack.headline
    report_path = folder / "report.json"
    write_text_atomic(report_path, dumps(report))
    removal = removal_comment(name, stale, pull.head_sha) if stale else ""
    handoff = _handoff(
        rt,
        pull,
        name,
        status,
        exit_code,
        headline,
        comment,
        remove_labels=[s.label for s in stale],
        removal_note=removal,
        override=decision.override,
    )
    comment_path, url = _deliver(rt, pull, handoff, dumps(result))
    override = decision.override.model_dump_json() if decision.override else ""
    return ConfigResult.of(
        report,
        verdict=status,
        exit_code=exit_code,
        headline=headline,
        report_path=rt.display(report_path),
        comment_path=comment_path,
        comment_url=url,
        override=override,
        explorer_path=explorer,
    )


def run_pr_mode(rt: Runtime, configs: list[LoadedConfig]) -> list[ConfigResult]:
    pull = rt.context.pull
    assert pull is not None, "PR mode needs a pull_request event"
    if pull.is_fork:
        rt.workflow.notice(
            f"pull request #{pull.number} comes from a fork: the token is read-only, so the comment "
            f"and decision are written to {rt.display(rt.results_dir)}/ for the comment stage "
            "(see the README's fork workflow)",
            title="Cairn: fork pull request",
        )
    labels = read_label_state(rt, pull)
    return [gate_config(rt, pull, loaded, labels) for loaded in configs]
