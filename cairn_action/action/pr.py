"""PR mode: evaluate the checked-out head, compare it with the base commit's baseline, gate, tell.

Per config: the name it is gated under (its name on the base branch: gated.py); the candidate report;
the baseline read at `pull_request.base.sha` (never the pull request's copy); the override the labels
carry for this head, if any; the gate under the baseline's policy (verdict.py); the comment, the job
summary, the step outputs, the files for the fork artifact, and the exit code. A fork's token is
read-only: the gate still runs and the job still fails, and the comment stage decides and posts again
from the artifact's data.
"""

from __future__ import annotations

from dataclasses import replace

from cairn_action.action.attack import attack_section
from cairn_action.action.baseline import read_base_copy
from cairn_action.action.control import base_judge_check
from cairn_action.action.exam import exam_paths, touched, touched_block
from cairn_action.action.explorer import explorer_link, write_explorer
from cairn_action.action.gated import GatedName, base_file, config_file, renamed_message
from cairn_action.action.golden_review import critical_review
from cairn_action.action.handoff import Handoff, write_handoff
from cairn_action.action.judging import TrustedJudge
from cairn_action.action.messages import no_baseline_hint, renamed_comment
from cairn_action.action.override import is_override_label
from cairn_action.action.runtime import ConfigResult, Runtime
from cairn_action.action.trust import Trusted
from cairn_action.action.verdict import LabelState, Outcome, Subject, gated, no_baseline
from cairn_action.config import LoadedConfig
from cairn_action.errors import ExitCode
from cairn_action.gh.comments import upsert_sticky
from cairn_action.gh.context import PullRequestEvent
from cairn_action.gh.gateway import StatusState
from cairn_action.gh.pygithub_errors import PermissionDenied
from cairn_action.render.comment_view import marker
from cairn_action.render.escape import escape_text, safe_token
from cairn_action.render.trend import build_trend
from cairn_action.report.io import read_report, report_text, write_text_atomic
from cairn_action.report.models import Report
from cairn_action.report.pipeline import with_judge_check

REPORTS_DIR = "reports"
STATE: dict[str, StatusState] = {
    "pass": "success",
    "no-baseline": "success",
    "overridden": "success",
    "regression": "failure",
    "incomplete": "failure",
    "refused": "error",
}


def read_label_state(rt: Runtime, number: int, head_sha: str) -> LabelState:
    live = rt.gateway.pull(number)
    if live.head_sha != head_sha:
        rt.workflow.warning(
            f"pull request #{number} has moved on to {live.head_sha[:12]}; this run gates "
            f"{head_sha[:12]}, the commit it checked out"
        )
    state = LabelState(labels=live.labels)
    if not state.has_override_label(rt.inputs.override_label):
        return state
    return LabelState(
        labels=live.labels,
        events=tuple(rt.gateway.label_events(number)),
        comments=tuple(rt.gateway.comments(number)),
    )


def _history(rt: Runtime, name: str, changed: set[str]) -> list[Report]:
    """This config's committed reports in the checkout, for the trend chart only (never for gating);
    those the pull request changed are left out (the chart would show the pull request's story)."""
    found = []
    for path in sorted((rt.workdir / REPORTS_DIR).glob(f"{name}-*.json"))[-50:]:
        if rt.repo_path(path.relative_to(rt.workdir).as_posix()) in changed:
            continue
        try:
            found.append(read_report(path, cases=False))  # the chart needs the aggregates only
        except Exception:  # a broken history file costs a point on the chart, not the gate
            continue
    return found


def log_outcome(rt: Runtime, outcome: Outcome) -> None:
    title = f"Cairn ({outcome.name})"
    result = outcome.result
    if result is None:
        return
    decision = result.decision
    if decision.status in ("regression", "incomplete"):
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
        own = " (a self-override)" if o.self_override else ""
        rt.workflow.warning(
            f"gate overridden by {o.actor}{own} with label '{o.label}' at {o.at} for {o.head_sha}: "
            f"{o.reason}",
            title=f"{title}: overridden",
        )
    else:
        rt.workflow.notice(decision.headline, title=f"{title}: passed")
    for note in decision.notes:
        rt.workflow.warning(note, title=title)


def post(
    rt: Runtime,
    number: int,
    head_sha: str,
    outcome: Outcome,
    *,
    target_url: str,
    state: StatusState | None = None,
    description: str = "",
) -> str:
    """Post the sticky comment, remove stale override labels (saying why) and set the status; the URL."""
    url = ""
    if rt.inputs.comment:
        url = upsert_sticky(rt.gateway, number, marker(outcome.name), outcome.comment).comment.url
        rt.workflow.info(f"comment: {url}")
    removed = [
        label
        for label in outcome.remove_labels
        if is_override_label(label, rt.inputs.override_label) and rt.gateway.remove_label(number, label)
    ]
    for label in removed:
        rt.workflow.warning(f"removed the stale override label '{label}'")
    if removed and outcome.removal_note:
        rt.gateway.create_comment(number, outcome.removal_note)
    if rt.inputs.status:
        rt.gateway.create_status(
            head_sha,
            state=state or STATE[outcome.verdict],
            context=f"cairn/{safe_token(outcome.name)}",
            description=(description or f"{outcome.verdict}: {outcome.headline}")[:140],
            target_url=target_url,
        )
    return url


def _deliver(
    rt: Runtime,
    pull: PullRequestEvent,
    outcome: Outcome,
    report: Report | None,
    explorer: str = "",
    control: Report | None = None,
) -> ConfigResult:
    """Write the artifact files, the report and the summary; post where the token allows."""
    folder = rt.results_dir / outcome.name
    report_path = ""
    if report is not None:
        write_text_atomic(folder / "report.json", report_text(report))
        report_path = rt.display(folder / "report.json")
        handoff = Handoff(
            repository=rt.context.repository,
            pr_number=pull.number,
            head_sha=pull.head_sha,
            config_name=outcome.name,
            report=report,
            control=control,
        )
        paths = write_handoff(
            handoff, rt.results_dir, comment=outcome.comment, decision_json=outcome.decision_json
        )
        comment_path = rt.display(paths["comment"])
    else:
        write_text_atomic(folder / "comment.md", outcome.comment)
        comment_path = rt.display(folder / "comment.md")
    rt.workflow.add_summary(outcome.comment)
    url = ""
    if rt.can_write(pull):
        try:
            url = post(rt, pull.number, pull.head_sha, outcome, target_url=rt.context.run_url)
        except PermissionDenied as exc:
            rt.workflow.warning(
                f"{exc.message}. {exc.hint}", title="Cairn could not write to the pull request"
            )
    common = dict(
        verdict=outcome.verdict,
        exit_code=outcome.exit_code,
        headline=outcome.headline,
        report_path=report_path,
        comment_path=comment_path,
        comment_url=url,
    )
    if report is None:
        return ConfigResult(config_name=outcome.name, **common)  # type: ignore[arg-type]
    override = outcome.override.model_dump_json() if outcome.override else ""
    return ConfigResult.of(report, override=override, explorer_path=explorer, **common)  # type: ignore[arg-type]


def gate_config(
    rt: Runtime, pull: PullRequestEvent, loaded: LoadedConfig, labels: LabelState, changed: list[str]
) -> ConfigResult:
    file = rt.repo_path(config_file(loaded, rt.workdir))
    embedded = loaded.source is None or rt.inputs.config_is_default
    at_base = base_file(
        rt.gateway,
        repo_path=file,
        base_sha=pull.base_sha,
        workspace=rt.context.workspace,
        embedded_default=embedded,
    )
    names = GatedName(file=file, head_name=loaded.config.name, base_name=at_base.name)
    base_cfg = at_base.config
    # Which tags are critical is the base branch's word (the trusted config), not the pull request's.
    critical = (base_cfg or loaded.config).gate.critical_tags
    review = critical_review(
        rt, loaded, file, base_sha=pull.base_sha, author=pull.author, changed=changed, critical_tags=critical
    )
    trusted = Trusted(config=base_cfg, where=f"{file} at {pull.base_sha[:12]}", left_out=review.left_out)
    preface = touched_block(touched(changed, *exam_paths(loaded.config, file))) + judge_block(trusted, loaded)
    preface += review.lines
    subject = Subject(
        number=pull.number,
        head_sha=pull.head_sha,
        base_sha=pull.base_sha,
        base_ref=pull.base_ref,
        author=pull.author,
    )
    if names.renamed and names.base_name is not None:
        old = rt.repo_path(f"{REPORTS_DIR}/latest/{names.base_name}.json")
        if read_base_copy(rt.gateway, path=old, ref=pull.base_sha, workspace=rt.context.workspace).data:
            message, hint = renamed_message(names, pull.base_ref)
            rt.workflow.error(f"{message}. {hint}", title=f"Cairn ({names.base_name}): refused")
            comment = renamed_comment(names.base_name, message, hint, preface)
            refused = Outcome(
                name=names.base_name,
                verdict="refused",
                exit_code=2,
                headline="config renamed",
                comment=comment,
            )
            return _deliver(rt, pull, refused, None)
    name = names.head_name
    base_path = rt.repo_path(f"{REPORTS_DIR}/latest/{name}.json")
    base = read_base_copy(rt.gateway, path=base_path, ref=pull.base_sha, workspace=rt.context.workspace)
    baseline_file = rt.results_dir / name / "baseline.json"
    baseline = None
    if base.data is not None:  # read (and validated) before the run: confirmation re-asks what changed
        write_text_atomic(baseline_file, base.data.decode("utf-8", "replace"))
        baseline = read_report(baseline_file)
    with rt.workflow.group(f"Cairn: evaluate {name}"):
        report = rt.evaluate(loaded, baseline_file if baseline is not None else None, trusted=trusted)
    # The judge check that validates the base's judge is the base commit's (the checkout's may be forged).
    check = base_judge_check(
        rt.gateway, config_file=file, base_sha=pull.base_sha, workspace=rt.context.workspace
    )
    report = with_judge_check(report, check, base_cfg or loaded.config)
    if base.data is None or baseline is None:
        new_file = file if names.base_name is None and loaded.source is not None else None
        rt.workflow.notice(
            (f"{file} is new in this pull request. " if new_file else "")
            + f"{base_path} does not exist at the base commit {pull.base_sha[:12]}, so the gate passes. "
            f"To gate the next pull request, {no_baseline_hint(name, pull.base_ref)}",
            title=f"Cairn ({name}): no baseline",
        )
        outcome = no_baseline(report, subject, new_file=new_file, preface=preface)
        explorer = write_explorer(rt, report)
        if explorer:
            outcome = replace(outcome, comment=outcome.comment + explorer_link(rt))
        return _deliver(rt, pull, outcome, report, explorer)
    rt.workflow.info(
        f"baseline for {name}: {base_path} at {pull.base_sha[:12]} (read through the {base.via})"
    )
    control = None
    if rt.control is not None:  # the base system re-asked now, or the drift probe (action/control.py)
        control = rt.control(
            loaded,
            baseline,
            report,
            trusted=trusted,
            base_data=at_base.data,
            seed=f"{pull.head_sha}:{name}",
            base_sha=pull.base_sha,
        )
    labeled_now = rt.context.label if rt.context.action == "labeled" else None
    attack = attack_section(rt, pull, loaded)  # None unless `attack: true`
    extra = f"\n{attack.markdown}" if attack else ""
    outcome = gated(
        baseline=baseline,
        report=report,
        source=f"{base_path} at {pull.base_sha[:12]}",
        subject=subject,
        labels=labels,
        prefix=rt.inputs.override_label,
        role_of=rt.gateway.role,
        labeled_now=labeled_now,
        trend=build_trend(_history(rt, name, set(changed)), report),
        preface=preface,
        reserve=len(extra) + len(explorer_link(rt)),
        control=control,
    )
    log_outcome(rt, outcome)
    explorer = write_explorer(rt, report, result=outcome.result)
    outcome = replace(outcome, comment=outcome.comment + extra + (explorer_link(rt) if explorer else ""))
    if (
        attack is not None
        and attack.exit_code > outcome.exit_code
        and outcome.verdict in ("pass", "overridden")
    ):
        # The override label covers the main gate's regression, not a broken attack probe.
        verdict = "refused" if attack.exit_code == ExitCode.USAGE else "regression"
        outcome = replace(outcome, verdict=verdict, exit_code=attack.exit_code, headline=attack.headline)
    return _deliver(rt, pull, outcome, report, explorer, control)


def judge_block(trusted: Trusted, loaded: LoadedConfig) -> tuple[str, ...]:
    """The comment's line when the pull request changes `[judge]`: it was judged by the base's judge."""
    if trusted.config is None:
        return ()
    changed = TrustedJudge(config=trusted.config, where=trusted.where).changed_by(loaded.config)
    if not changed:
        return ()
    keys = ", ".join(f"`judge.{escape_text(k, limit=40)}`" for k in changed)
    return (
        f"**This pull request changes the judge** ({keys}): every answer was judged by the base branch's "
        "judge, as the gate's policy is; the change applies after merge.",
    )


def run_pr_mode(rt: Runtime, configs: list[LoadedConfig]) -> list[ConfigResult]:
    pull = rt.context.pull
    assert pull is not None, "PR mode needs a pull_request event"
    if not rt.can_write(pull):
        rt.workflow.notice(
            f"pull request #{pull.number} comes from a fork: the token is read-only, so the results are "
            f"written to {rt.display(rt.results_dir)}/ for the comment stage (see the README's fork "
            "workflow), which decides again from them and posts",
            title="Cairn: fork pull request",
        )
    labels = read_label_state(rt, pull.number, pull.head_sha)
    changed = rt.gateway.pull_files(pull.number)
    return [gate_config(rt, pull, loaded, labels, changed) for loaded in configs]
