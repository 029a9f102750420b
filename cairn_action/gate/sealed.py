"""What may be shown of a sealed golden set's comparison (issue 28).

A sealed set's key (expected answers, quotes, answerability, tags) reaches only the process that scores.
What leaves it, the pull request's comment and the files uploaded beside it, shows each changed case's
question, both sides' answers and verdicts, and the critical mark the verdict rests on: never what the
key holds. `(sealed)` stands where the expected answer would be.
"""

from __future__ import annotations

from cairn_action.gate.models import GateResult
from cairn_action.report.models import Report

SEALED_NOTE = (
    "The golden set is sealed: this comment shows each case's question, the answers and the verdicts; "
    "expected answers, quotes, answerability and tags stay in the key."
)
SEALED = "(sealed)"


def is_sealed(result: GateResult) -> bool:
    return result.comparison.candidate.sealed or result.comparison.baseline.sealed


def sealed_result(result: GateResult) -> GateResult:
    """`result` with every field the key holds replaced, and a note that says so (idempotent)."""
    comparison = result.comparison
    if SEALED_NOTE in comparison.notes:
        return result
    changes = [
        c.model_copy(update={"expected_answer": SEALED, "answerable": True, "tags": []})
        for c in comparison.changes
    ]
    update = {
        "changes": changes,
        "added": [c.model_copy(update={"tags": []}) for c in comparison.added],
        "removed": [c.model_copy(update={"tags": []}) for c in comparison.removed],
        "tags": [],
        "notes": [*comparison.notes, SEALED_NOTE],
    }
    return result.model_copy(update={"comparison": comparison.model_copy(update=update)})


def sealed_report_view(report: Report) -> Report:
    """A sealed set's report as a page anyone with the upload may read shows it (the Action's explorer):
    each row's question, answers and verdicts, nothing of the key. A plain set's report as it is."""
    if not report.notes.sealed_to:
        return report
    rows = [
        row.model_copy(update={"expected_answer": SEALED, "answerable": True, "tags": [], "difficulty": None})
        for row in report.per_case
    ]
    return report.model_copy(update={"per_case": rows, "by_tag": {}})
