"""The fork comment stage's anchor rule: which workflow run was started by an override label's event."""

from __future__ import annotations

from cairn_action.gh.comment_stage import labeled_run
from cairn_action.gh.context import WorkflowRunEvent
from cairn_action.gh.gateway import LabelEvent

LABEL = "cairn-override: judged by hand"
EVENTS = [LabelEvent(event="labeled", label=LABEL, actor="maint", at="2026-11-30T11:00:00Z")]


def _run(actor: str = "maint", created: str = "2026-11-30T11:00:07Z", attempt: int = 1) -> WorkflowRunEvent:
    return WorkflowRunEvent(
        id=1,
        event="pull_request",
        head_sha="a" * 40,
        head_repo="contributor/rag",
        conclusion="failure",
        pull_numbers=(),
        triggering_actor=actor,
        run_attempt=attempt,
        created_at=created,
    )


def test_comment_stage__run_started_by_the_labeler_right_after_the_label__is_the_label_run() -> None:
    assert labeled_run(_run(), EVENTS, "cairn-override") == LABEL


def test_comment_stage__run_by_someone_else_later_or_rerun__is_not() -> None:
    assert labeled_run(_run(actor="contributor"), EVENTS, "cairn-override") is None
    assert labeled_run(_run(created="2026-11-30T12:00:00Z"), EVENTS, "cairn-override") is None
    assert labeled_run(_run(created="2026-11-30T10:59:00Z"), EVENTS, "cairn-override") is None
    assert labeled_run(_run(attempt=2), EVENTS, "cairn-override") is None
    other = [LabelEvent(event="labeled", label="bug", actor="maint", at="2026-11-30T11:00:00Z")]
    assert labeled_run(_run(), other, "cairn-override") is None
