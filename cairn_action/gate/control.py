"""What the contemporaneous control says: did the base system, re-asked now, move away from its baseline?

The gate compares a pull request with the control on the re-asked cases (`run_gate(..., control=)`); this
module says in words how far the environment moved between the committed baseline and now, on the same
rows, so the comment can say "the environment shifted" instead of blaming the pull request.
"""

from __future__ import annotations

from cairn_action.errors import DataError
from cairn_action.gate.compare import refusals
from cairn_action.gate.outcome import tally, verdict
from cairn_action.gate.stats import mantel_haenszel_drop
from cairn_action.report.models import Report

SHIFT_P = 0.1
"""The comment says the environment shifted when the control is right less often than the baseline on
the re-asked cases at this one-sided level (and at least one of them turned wrong). At 0.2 it said so in
7 to 20 % of pairs where nothing shifted (benchmarks/README.md)."""


def check_control(baseline: Report, control: Report, *, source: str) -> None:
    """A control must be a control of this baseline: same corpus, golden set, split and cases."""
    if control.notes.control is None:
        raise DataError(
            f"{source}: not a control report (notes.control is missing)",
            "write one with `cairn eval --baseline BASELINE --control BASE_CONFIG`",
        )
    refused = refusals(baseline, control)
    if refused or {c.case_id for c in baseline.per_case} != {c.case_id for c in control.per_case}:
        why = refused[0].message if refused else "its cases are not the baseline's"
        raise DataError(
            f"{source}: the control does not belong to this baseline: {why}",
            "re-run `cairn eval --baseline BASELINE --control BASE_CONFIG` against this baseline",
        )


def shift_note(baseline: Report, control: Report) -> tuple[bool, str]:
    """(shifted, the sentence for the comment): how the re-asked rows moved from baseline to now."""
    note = control.notes.control
    if note is None:
        return False, ""
    before = {c.case_id: c for c in baseline.per_case}
    now = {c.case_id: c for c in control.per_case}
    ids = [i for i in note.cases if i in before and i in now]
    down = sum(1 for i in ids if verdict(before[i]) and verdict(now[i]) is False)
    up = sum(1 for i in ids if verdict(before[i]) is False and verdict(now[i]))
    tables = [(tally(before[i]).right, tally(before[i]).n, tally(now[i]).right, tally(now[i]).n) for i in ids]
    test = mantel_haenszel_drop(tables)
    cost = "" if note.cost_usd is None else f", ${note.cost_usd:.4f}"
    asked = (
        f"the base system was re-asked now on the {len(ids)} case(s) this PR changed ({note.samples} "
        f"samples, {note.calls} provider call(s){cost}), and this PR is compared with it there"
    )
    shifted = down > 0 and test.p_one_sided < SHIFT_P
    if not shifted:
        return False, f"control: {asked}; it answers as the baseline did ({down} now wrong, {up} now right)"
    return True, (
        f"the environment shifted since the baseline: {asked}; the base system itself now gets {down} of "
        f"them wrong that the baseline got right (right in {test.right_after} of {test.n_after} samples "
        f"now, {test.right_before} of {test.n_before} in the baseline; one-sided Mantel-Haenszel p = "
        f"{test.p_one_sided:.3g}): on those cases this PR is judged against the base system as it answers now"
    )
