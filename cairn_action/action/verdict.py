"""One config's verdict on one pull request head, and the comment that says it: shared by PR mode and
the fork comment stage, so what the trusted stage posts is decided and rendered by the same code.

In: the candidate report, the baseline read from the base commit (or none), the labels and comments as
GitHub has them. Out: the verdict, the sticky comment (with the hidden anchors and override record the
bot carries from run to run), the stale override labels to remove, and the override record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from cairn_action.action.handoff import Verdict
from cairn_action.action.messages import NO_BASELINE_HEADLINE, no_baseline_comment, removal_comment
from cairn_action.action.override import (
    Anchor,
    OverrideFinding,
    anchors_line,
    find_override,
    is_override_label,
    read_anchors,
    record_line,
)
from cairn_action.gate import policy_of, run_gate
from cairn_action.gate.models import GateResult
from cairn_action.gate.sealed import is_sealed, sealed_result
from cairn_action.gh.comments import MAX_COMMENT_CHARS
from cairn_action.gh.gateway import Comment, LabelEvent, Role
from cairn_action.render.escape import escape_text
from cairn_action.render.markdown import render_comment
from cairn_action.render.trend import Trend
from cairn_action.report.io import dumps
from cairn_action.report.models import OverrideRecord, Report

STICKY_PREFIX = "<!-- cairn:gate config="


@dataclass(frozen=True, kw_only=True)
class LabelState:
    """The pull request's labels now (the payload's may be stale on a re-run), and, when one of them is
    an override label, who applied what and the comments that may carry a reason or the bot's anchors."""

    labels: tuple[str, ...]
    events: tuple[LabelEvent, ...] = ()
    comments: tuple[Comment, ...] = ()

    def has_override_label(self, prefix: str) -> bool:
        return any(is_override_label(label, prefix) for label in self.labels)

    def anchors(self) -> list[Anchor]:
        """The anchors in the bot's sticky comments (any config's): only the bot writes those."""
        found: list[Anchor] = []
        for c in self.comments:
            if c.author_is_bot and c.body.startswith(STICKY_PREFIX):
                found += [a for a in read_anchors(c.body) if a not in found]
        return found


@dataclass(frozen=True, kw_only=True)
class Subject:
    """The pull request head being gated."""

    number: int
    head_sha: str
    base_sha: str
    base_ref: str
    author: str


@dataclass(frozen=True, kw_only=True)
class Outcome:
    name: str
    verdict: Verdict
    exit_code: int
    headline: str
    comment: str
    result: GateResult | None = None
    override: OverrideRecord | None = None
    remove_labels: tuple[str, ...] = ()
    removal_note: str = ""
    notes: Sequence[str] = field(default_factory=tuple)

    @property
    def decision_json(self) -> str | None:
        """The decision for the upload: a sealed set's shows what its comment shows (gate/sealed.py)."""
        if self.result is None:
            return None
        return dumps(sealed_result(self.result) if is_sealed(self.result) else self.result)


def _hidden(record: OverrideRecord | None, anchors: Sequence[Anchor]) -> str:
    lines = [anchors_line(anchors), record_line(record) if record else ""]
    text = "\n".join(line for line in lines if line)
    return f"\n{text}\n" if text else ""


def no_baseline(report: Report, subject: Subject, *, new_file: str | None, preface: Sequence[str]) -> Outcome:
    comment = no_baseline_comment(
        report, base_ref=subject.base_ref, base_sha=subject.base_sha, new_file=new_file, preface=preface
    )
    return Outcome(
        name=report.config_name,
        verdict="no-baseline",
        exit_code=0,
        headline=NO_BASELINE_HEADLINE,
        comment=comment,
    )


def gated(
    *,
    baseline: Report,
    report: Report,
    source: str,
    subject: Subject,
    labels: LabelState,
    prefix: str,
    role_of: Callable[[str], Role],
    labeled_now: str | None,
    trend: Trend | None,
    preface: Sequence[str],
    reserve: int = 0,
    control: Report | None = None,
) -> Outcome:
    """Gate `report` against `baseline` under the baseline's policy, with the override the labels carry
    for this head (if any); `report.notes.overrides` gets the applied override. `control`: the base system
    re-asked now, or the drift probe (action/control.py)."""
    policy = policy_of(baseline, source=source)
    anchors = labels.anchors()
    finding = OverrideFinding(anchors=tuple(anchors))
    if labels.has_override_label(prefix):
        finding = find_override(
            prefix=prefix,
            labels=labels.labels,
            events=labels.events,
            comments=labels.comments,
            role_of=role_of,
            pr=subject.number,
            head_sha=subject.head_sha,
            anchors=anchors,
            labeled_now=labeled_now,
            author=subject.author,
            allow_self_override=policy.allow_self_override,
        )
    result = run_gate(baseline, report, override=finding.override, source=source, control=control)
    decision = result.decision
    record = decision.override
    lines = list(preface)
    if record is not None and finding.self_override:
        record = record.model_copy(update={"self_override": True})
        lines.append(
            f"**Self-override:** {escape_text(record.actor, limit=64)} opened this pull request and "
            "overrode its gate (allowed by the baseline's [gate] allow_self_override)."
        )
    stale = finding.stale if decision.status == "regression" else ()
    notes = OverrideFinding(rejected=finding.rejected, stale=stale).notes()
    if record is not None:
        notes.append(f"the override is recorded for head {record.head_sha}; it covers that commit only")
        report.notes.overrides.append(record)
    decision = decision.model_copy(update={"override": record, "notes": [*decision.notes, *notes]})
    result = result.model_copy(update={"decision": decision})
    hidden = _hidden(record, finding.anchors)
    comment = (
        render_comment(
            result, trend=trend, limit=MAX_COMMENT_CHARS - len(hidden) - reserve, preface=tuple(lines)
        )
        + hidden
    )
    return Outcome(
        name=report.config_name,
        verdict=decision.status,
        exit_code=decision.exit_code,
        headline=decision.headline,
        comment=comment,
        result=result,
        override=record,
        remove_labels=tuple(s.label for s in stale),
        removal_note=removal_comment(report.config_name, stale, subject.head_sha) if stale else "",
    )
