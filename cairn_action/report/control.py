"""A contemporaneous control: the base system re-asked, at the same time as a pull request, on the cases
the pull request changed.

Provider drift (a worse model today, a rate-limited fallback) moves the base system too. The gate compares
the pull request with the control on those cases, so a shift of the environment since the baseline was
committed is not blamed on the pull request, and it says by how much the environment moved. The control is
written as a report: the baseline with the re-asked rows replaced (scored under the baseline's threshold,
the base system's own) and `notes.control` saying which rows and what they cost.
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn_action.golden.models import GoldenSet
from cairn_action.report.build import per_case_row
from cairn_action.report.models import ControlNote, Report
from cairn_action.report.samples import evidence, first_samples
from cairn_action.run.models import CaseRecord
from cairn_action.score.outcome import score_case


def control_report(
    baseline: Report, records: Sequence[CaseRecord], golden: GoldenSet, *, created_at: str
) -> Report:
    """The baseline with every case in `records` (the base system's answers now) in place of its row."""
    threshold = baseline.abstention.threshold
    cases = golden.by_id()
    first, later = first_samples(records)
    rows = {}
    for record in first:
        case = cases[record.case_id]
        outcome = score_case(record, case, threshold=threshold)
        found = evidence(outcome, record, later.get(record.case_id, []), case, threshold=threshold)
        rows[record.case_id] = per_case_row(outcome, record, case, found)
    calls = [c for r in records for c in r.calls if not c.cached]
    costs = [c.cost_usd for c in calls]
    note = ControlNote(
        cases=sorted(rows),
        samples=len(records),
        calls=len(calls),
        cost_usd=None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 10),
        created_at=created_at,
    )
    return baseline.model_copy(
        update={
            "per_case": [rows.get(c.case_id, c) for c in baseline.per_case],
            "notes": baseline.notes.model_copy(update={"control": note}),
        }
    )
