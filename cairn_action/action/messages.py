"""The Action's own short comments: no baseline yet, and a stale override removed.

The gate's comment is the renderer's; these two say things only the Action knows. Untrusted text
(config names, labels, logins) goes through the renderer's `escape_text`, like everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn_action.action.override import Stale, stale_note
from cairn_action.render.comment_view import marker
from cairn_action.render.escape import escape_text, safe_token
from cairn_action.report.models import Report
from cairn_action.score.metrics import get_metric

NO_BASELINE_HEADLINE = "no baseline on the base branch yet"


def no_baseline_hint(config_name: str, base_ref: str) -> str:
    name = safe_token(config_name)
    branch = base_ref or "the default branch"
    return (
        f"create it by running the action with `mode: baseline` on a push to {branch} "
        f"(the baseline workflow in the README), or run `cairn eval --config <file>` there and commit "
        f"reports/latest/{name}.json"
    )


def no_baseline_comment(
    report: Report,
    *,
    base_ref: str,
    base_sha: str,
    new_file: str | None = None,
    preface: Sequence[str] = (),
) -> str:
    """The sticky comment when the base commit has no `reports/latest/<config>.json`: a pass, and how to
    create one, with the candidate's headline numbers. `new_file`: the config file is new in the pull
    request (not on the base branch). `preface`: escaped lines under the verdict."""
    name = escape_text(report.config_name, limit=64)
    new = (
        [
            f"The config file {escape_text(new_file, limit=120)} is new in this pull request: it does not "
            "exist on the base branch, so there is no baseline for it yet.",
            "",
        ]
        if new_file
        else []
    )
    top = [*(line for p in preface for line in (p, "")), *new]
    rows = []
    for metric_name in ("recall_at_5", "token_f1", "judge_score", "answer_rate", "error_rate_answered"):
        spec = get_metric(metric_name)
        rows.append(f"| {spec.label} | {spec.format(spec.read(report))} |")
    return "\n".join(
        [
            marker(report.config_name),
            f"### ✅ Cairn passed for {name}: {NO_BASELINE_HEADLINE}",
            "",
            *top,
            f"There is no `reports/latest/{safe_token(report.config_name)}.json` at the base commit "
            f"`{safe_token(base_sha[:12])}`, so there is nothing to compare with and the gate passes. To "
            f"gate the next pull request, {no_baseline_hint(report.config_name, safe_token(base_ref))}.",
            "",
            "| metric (this PR) | value |",
            "|---|---|",
            *rows,
            "",
            f"<sub>Cairn {escape_text(report.cairn_version, limit=20)} · golden set "
            f"{escape_text(report.golden_version, limit=40)} · corpus "
            f"{escape_text(report.corpus_hash, limit=12)}</sub>",
            "",
        ]
    )


def renamed_comment(config_name: str, message: str, hint: str, preface: Sequence[str] = ()) -> str:
    """The sticky comment (under the base branch's name) of a config renamed in the pull request."""
    return "\n".join(
        [
            marker(config_name),
            f"### ⛔ Cairn: refused for {escape_text(config_name, limit=64)}: the config was renamed",
            "",
            *(line for p in preface for line in (p, "")),
            f"- {escape_text(message, limit=600)}. To fix: {escape_text(hint, limit=400)}",
            "",
        ]
    )


def removal_comment(config_name: str, stale: Sequence[Stale], head_sha: str) -> str:
    """A one-off comment (not the sticky one) that keeps the label's removal in the audit trail."""
    lines = [
        f"**Cairn removed {'an override label' if len(stale) == 1 else 'override labels'}** for "
        f"{escape_text(config_name, limit=64)} at `{safe_token(head_sha[:12])}`: the gate still fails on the "
        "new commits.",
        "",
    ]
    lines += [f"- {escape_text(stale_note(s), limit=600)}" for s in stale]
    return "\n".join(lines) + "\n"
