"""`mode: comment`: the second stage for fork pull requests, run from `workflow_run` in the base repo.

It never checks out or runs the pull request's code; it reads the artifact the pull_request run uploaded
(downloaded into `working-directory`) and posts it. The artifact is untrusted (handoff.py says why), so:
the pull request number must name an open pull request whose head is the commit the workflow run
built, from the repository it built; mentions are broken; an override record is kept only if the API
confirms it (the label is on, applied then by that person, whose role allows it); labels removed must
be override labels; the commit status follows the run's conclusion, not the file's verdict.
"""

from __future__ import annotations

import re

from cairn_action.errors import CairnError
from cairn_action.gh.comments import upsert_sticky
from cairn_action.gh.gateway import Pull, StatusState
from cairn_action.gh.handoff import Handoff, neutralise, read_handoffs
from cairn_action.gh.override import is_override_label, record_line, role_allows
from cairn_action.gh.runtime import ConfigResult, Runtime
from cairn_action.render.escape import safe_token
from cairn_action.render.view import marker

_RECORD_LINE = re.compile(r"^<!-- cairn:override-record [^\n]*-->\n?", re.MULTILINE)
_STATE: dict[str, StatusState] = {"success": "success", "failure": "failure"}


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


def _verified_record(rt: Runtime, handoff: Handoff, pull: Pull) -> str:
    """The hidden override line, only when GitHub confirms the override it claims."""
    record = handoff.override
    if record is None:
        return ""
    applied = [e for e in rt.gateway.label_events(pull.number) if e.label.lower() == record.label.lower()]
    ok = (
        record.pr == pull.number
        and record.head_sha == pull.head_sha
        and record.label in pull.labels
        and is_override_label(record.label, rt.inputs.override_label)
        and bool(applied)
        and applied[-1].event == "labeled"
        and applied[-1].actor == record.actor
        and applied[-1].at == record.at
        and role_allows(rt.gateway.role(record.actor))
    )
    if not ok:
        rt.workflow.warning(
            f"the artifact's override record (label '{record.label}' by {record.actor}) does not "
            "match GitHub's label events and roles: not recorded"
        )
        return ""
    return f"\n{record_line(record)}\n"


def post_handoff(rt: Runtime, handoff: Handoff) -> ConfigResult:
    pull = _verify_pull(rt, handoff)
    expected = marker(handoff.config_name)
    body = handoff.comment
    if body.split("\n", 1)[0].strip() != expected:
        raise CairnError(
            f"the artifact's comment for {safe_token(handoff.config_name)} does not start with its "
            "marker: not posting",
            "upload the cairn-results folder the pull_request run wrote",
        )
    record = _verified_record(rt, handoff, pull)
    body = neutralise(_RECORD_LINE.sub("", body)).rstrip("\n") + "\n" + record
    url = ""
    if rt.inputs.comment:
        url = upsert_sticky(rt.gateway, pull.number, expected, body[:65_536]).comment.url
        rt.workflow.info(f"comment: {url}")
    removed = [
        label
        for label in handoff.remove_labels
        if is_override_label(label, rt.inputs.override_label) and rt.gateway.remove_label(pull.number, label)
    ]
    if removed and handoff.removal_note:
        rt.gateway.create_comment(pull.number, neutralise(handoff.removal_note))
    run = rt.context.workflow_run
    assert run is not None
    if rt.inputs.status:
        state = _STATE.get(run.conclusion or "", "error")
        rt.gateway.create_status(
            pull.head_sha,
            state=state,
            context=f"cairn/{safe_token(handoff.config_name)}",
            description=f"the pull_request run concluded {run.conclusion or 'unknown'}",
            target_url=f"{rt.context.server_url}/{rt.context.repository}/actions/runs/{run.id}",
        )
    return ConfigResult(
        config_name=handoff.config_name,
        verdict=handoff.verdict,
        exit_code=0,
        headline=handoff.headline,
        comment_url=url,
    )


def run_comment_mode(rt: Runtime) -> list[ConfigResult]:
    run = rt.context.workflow_run
    if run is None or run.event != "pull_request":
        raise CairnError(
            "`mode: comment` posts the result of a pull_request run, from a workflow_run event",
            "trigger it with `on: workflow_run: workflows: [<the gate workflow>] types: [completed]`",
        )
    return [post_handoff(rt, handoff) for handoff in read_handoffs(rt.workdir)]
