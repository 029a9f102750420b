"""`mode: comment`: the second stage for fork pull requests, run from `workflow_run` in the base repo.

It never checks out or runs the pull request's code. It reads the artifact the pull_request run uploaded
(downloaded into `working-directory`), which is untrusted: the fork may have changed the workflow that
wrote it. So it publishes nothing the fork wrote. Per config, it takes only data, validated (handoff.py):
the pull request number, which must name an open pull request whose head is the commit the workflow run
built, from the repository it built; and the candidate report. It gates only the configs the base branch
defines (the `config:` files, read at the base commit), re-reads each baseline from the base commit
itself, finds the override from GitHub's label events, roles and the bot's own anchors, decides again
and renders with its own renderer. The commit status follows that decision, not the run's conclusion
(which the fork's workflow controls). An override counts only for the head a maintainer's comment names
(`/cairn-override <full SHA> <reason>`): no time window guesses which head a label was given for.
"""

from __future__ import annotations

import posixpath
import tempfile
from pathlib import Path

from cairn_action.action.exam import exam_paths, touched, touched_block
from cairn_action.action.gated import base_name, parse_config
from cairn_action.action.handoff import Handoff, read_handoffs
from cairn_action.action.pr import REPORTS_DIR, log_outcome, post, read_label_state
from cairn_action.action.runtime import ConfigResult, Runtime
from cairn_action.action.verdict import LabelState, Outcome, Subject, gated, no_baseline
from cairn_action.config import Config
from cairn_action.errors import CairnError
from cairn_action.files import write_bytes
from cairn_action.gh.gateway import Pull
from cairn_action.gh.inputs import DEFAULT_CONFIG
from cairn_action.render.escape import safe_token
from cairn_action.report.io import read_report
from cairn_action.report.models import Report


def _verify_pull(rt: Runtime, handoff: Handoff) -> Pull:
    run = rt.context.workflow_run
    assert run is not None
    if handoff.repository != rt.context.repository:
        raise CairnError(
            f"the artifact is for {handoff.repository}, not {rt.context.repository}: not posting",
            "the comment stage posts only what this repository's pull_request run wrote",
        )
    if run.pull_numbers and handoff.pr_number not in run.pull_numbers:
        raise CairnError(
            f"the artifact names pull request #{handoff.pr_number}, but the workflow run belongs to "
            f"#{', #'.join(map(str, run.pull_numbers))}: not posting",
            "re-run the pull_request workflow",
        )
    pull = rt.gateway.pull(handoff.pr_number)
    if handoff.head_sha != run.head_sha or pull.head_sha != run.head_sha:
        raise CairnError(
            f"pull request #{handoff.pr_number} is at {pull.head_sha[:12]} and the artifact says "
            f"{handoff.head_sha[:12]}, but the workflow run built {run.head_sha[:12]}: not posting",
            "a newer push starts a newer run, whose comment stage posts its own result",
        )
    if run.head_repo and pull.head_repo != run.head_repo:
        raise CairnError(
            f"pull request #{handoff.pr_number} comes from {pull.head_repo}, the run from "
            f"{run.head_repo}: not posting",
            "this artifact does not belong to that pull request",
        )
    return pull


def _config_at(rt: Runtime, path: str, ref: str) -> Config | None:
    data = rt.gateway.file_at(path, ref)
    return None if data is None else parse_config(data)


def defined_configs(rt: Runtime, pull: Pull) -> dict[str, str]:
    """The configs the base branch defines, by name: the `config:` files at the base commit (paths from
    the repository root here, and baselines in its reports/latest/: `working-directory` names the
    downloaded artifact)."""
    defined: dict[str, str] = {}
    for file in rt.inputs.config:
        path = posixpath.normpath(file)
        name = base_name(
            rt.gateway,
            repo_path=path,
            base_sha=pull.base_sha,
            workspace=rt.workdir,
            embedded_default=rt.inputs.config_is_default and file == DEFAULT_CONFIG,
        )
        if name is not None:
            defined[name] = path
    return defined


def _baseline(data: bytes, path: str) -> Report:
    """The base commit's baseline, read with the report reader's checks (never from the artifact)."""
    with tempfile.TemporaryDirectory(prefix="cairn-base-") as folder:
        copy = Path(folder) / Path(path).name
        write_bytes(copy, data, what="the baseline copy", durable=False)
        return read_report(copy)


def decide_handoff(
    rt: Runtime, handoff: Handoff, pull: Pull, file: str, labels: LabelState, changed: list[str]
) -> Outcome:
    run = rt.context.workflow_run
    assert run is not None
    config = _config_at(rt, file, pull.head_sha) or _config_at(rt, file, pull.base_sha)
    preface = touched_block(touched(changed, *exam_paths(config, file))) if config else ()
    subject = Subject(
        number=pull.number, head_sha=pull.head_sha, base_sha=pull.base_sha, base_ref="", author=pull.author
    )
    report = handoff.report
    if report.config_name != handoff.config_name:
        raise CairnError(
            f"the artifact's report is for {safe_token(report.config_name)}, its result for "
            f"{safe_token(handoff.config_name)}: not posting",
            "upload the cairn-results folder the pull_request run wrote",
        )
    base_path = f"{REPORTS_DIR}/latest/{handoff.config_name}.json"
    data = rt.gateway.file_at(base_path, pull.base_sha)
    if data is None:
        return no_baseline(report, subject, new_file=None, preface=preface)
    source = f"{base_path} at {pull.base_sha[:12]}"
    return gated(
        baseline=_baseline(data, base_path),
        report=report,
        source=source,
        subject=subject,
        labels=labels,
        prefix=rt.inputs.override_label,
        role_of=rt.gateway.role,
        # No time window stands in for evidence: a fork's override names its head in a comment.
        labeled_now=None,
        trend=None,
        preface=preface,
        control=handoff.control,
    )


def run_comment_mode(rt: Runtime) -> list[ConfigResult]:
    run = rt.context.workflow_run
    if run is None or run.event != "pull_request":
        raise CairnError(
            "`mode: comment` posts the result of a pull_request run, from a workflow_run event",
            "trigger it with `on: workflow_run: workflows: [<the gate workflow>] types: [completed]`",
        )
    handoffs = read_handoffs(rt.workdir)
    results = []
    for handoff in handoffs:
        pull = _verify_pull(rt, handoff)
        defined = defined_configs(rt, pull)
        if handoff.config_name not in defined:
            rt.workflow.warning(
                f"the artifact holds a result for '{safe_token(handoff.config_name)}', which no config "
                f"of `config:` defines on the base branch: ignored",
                title="Cairn: unknown config",
            )
            continue
        labels = read_label_state(rt, pull.number, pull.head_sha)
        outcome = decide_handoff(
            rt, handoff, pull, defined[handoff.config_name], labels, rt.gateway.pull_files(pull.number)
        )
        log_outcome(rt, outcome)
        if run.conclusion == "success" and outcome.exit_code != 0:
            rt.workflow.warning(
                f"the pull_request run concluded success, but its report does not pass the gate here "
                f"({outcome.verdict}): the run may not be the one this repository's workflow defines "
                "(continue-on-error?); the status follows the gate",
                title=f"Cairn ({outcome.name})",
            )
        # The status follows the decision made here, never the fork run's conclusion alone: a fork's
        # workflow can turn its own failure green (continue-on-error), but not this stage's verdict.
        url = post(
            rt,
            pull.number,
            pull.head_sha,
            outcome,
            target_url=f"{rt.context.server_url}/{rt.context.repository}/actions/runs/{run.id}",
            description=f"{outcome.verdict} (decided from the pull_request run's data): {outcome.headline}",
        )
        override = outcome.override.model_dump_json() if outcome.override else ""
        results.append(
            ConfigResult.of(
                handoff.report,
                verdict=outcome.verdict,
                exit_code=0,
                headline=outcome.headline,
                comment_url=url,
                override=override,
            )
        )
    return results
