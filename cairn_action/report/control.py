"""A contemporaneous control: the base system re-asked, at the same time as a pull request, on the cases
the pull request changed.

Provider drift (a worse model today, a rate-limited fallback) moves the base system too. The gate compares
the pull request with the control on those cases, so a shift of the environment since the baseline was
committed is not blamed on the pull request, and it says by how much the environment moved. The control is
written as a report: the baseline with the re-asked rows replaced (scored under the baseline's threshold,
the base system's own) and `notes.control` saying which rows and what they cost.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from cairn_action.golden.models import GoldenSet
from cairn_action.report.build_report import per_case_row
from cairn_action.report.models import ControlNote, ProbeRow, Report
from cairn_action.report.samples import evidence, first_samples
from cairn_action.run.models import CaseRecord
from cairn_action.score.outcome import is_right, score_case


def _cost(records: Sequence[CaseRecord]) -> tuple[int, float | None]:
    """Provider calls the records made (cache hits not counted) and their cost (None: a price unknown)."""
    calls = [c for r in records for c in r.calls if not c.cached]
    costs = [c.cost_usd for c in calls]
    return len(calls), None if any(c is None for c in costs) else round(sum(c or 0.0 for c in costs), 10)


def _probe_rows(records: Sequence[CaseRecord], golden: GoldenSet, threshold: float | None) -> list[ProbeRow]:
    """Each probed case's answers, right or wrong, under `threshold` (errored answers are not evidence)."""
    cases = golden.by_id()
    now: dict[str, list[bool]] = {}
    for record in sorted(records, key=lambda r: (r.case_id, r.sample)):
        right = is_right(score_case(record, cases[record.case_id], threshold=threshold))
        if right is not None:
            now.setdefault(record.case_id, []).append(right)
    return [ProbeRow(case_id=case, now=answers) for case, answers in sorted(now.items())]


def control_report(
    baseline: Report,
    records: Sequence[CaseRecord],
    golden: GoldenSet,
    *,
    created_at: str,
    probe: Collection[str] = (),
) -> Report:
    """The baseline with every case in `records` (the base system's answers now) in place of its row,
    except the drift probe's cases (`probe`), whose answers go to `notes.control.probe`."""
    threshold = baseline.abstention.threshold
    cases = golden.by_id()
    first, later = first_samples([r for r in records if r.case_id not in probe])
    rows = {}
    for record in first:
        case = cases[record.case_id]
        outcome = score_case(record, case, threshold=threshold)
        found = evidence(outcome, record, later.get(record.case_id, []), case, threshold=threshold)
        rows[record.case_id] = per_case_row(outcome, record, case, found)
    calls, cost = _cost(records)
    note = ControlNote(
        cases=sorted(rows),
        samples=sum(1 for r in records if r.case_id not in probe),
        calls=calls,
        cost_usd=cost,
        created_at=created_at,
        probe=_probe_rows([r for r in records if r.case_id in probe], golden, threshold),
    )
    return baseline.model_copy(
        update={
            "per_case": [rows.get(c.case_id, c) for c in baseline.per_case],
            "notes": baseline.notes.model_copy(update={"control": note}),
        }
    )


def probe_report(
    baseline: Report, records: Sequence[CaseRecord], golden: GoldenSet, *, why: str, created_at: str
) -> Report:
    """The fallback control when the base system cannot be run: the baseline unchanged, with
    `notes.control` (kind `probe`) holding the candidate's answers now on the drift probe's cases, scored
    under the baseline's threshold like the baseline samples they are compared with."""
    calls, cost = _cost(records)
    note = ControlNote(
        kind="probe",
        why=why,
        samples=len(records),
        calls=calls,
        cost_usd=cost,
        created_at=created_at,
        probe=_probe_rows(records, golden, baseline.abstention.threshold),
    )
    return baseline.model_copy(update={"notes": baseline.notes.model_copy(update={"control": note})})
