"""What the contemporaneous control says: did the base system, re-asked now, move away from its baseline?

The gate compares a pull request with the control on the re-asked cases (`run_gate(..., control=)`); this
module says in words how far the environment moved between the committed baseline and now, on the same
rows, so the comment can say "the environment shifted" instead of blaming the pull request.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from typing import NamedTuple

from cairn_action.errors import DataError
from cairn_action.gate.compare import refusals
from cairn_action.gate.confirm import confirmation_plan
from cairn_action.gate.models import Statistics
from cairn_action.gate.outcome import RULE_SAMPLES, is_right, tally, usable_samples, verdict
from cairn_action.gate.stats import Stratified, weighted_drop
from cairn_action.report.models import ControlNote, PerCase, ProbeRow, Report

SHIFT_P = 0.1
"""The comment says the environment shifted when the answers now (the first pass, the probe and the base
system's asks of the changed cases) are right less often than the baseline at this one-sided level (the exact
weighted test, stats.weighted_drop) and the fresh pairing clears the pull request (shift_note); the
probe-only control calls the verdict incomplete at it (drift)."""


SHIFT_HEADLINE = "the environment shifted since the baseline"
"""How the note, and the verdict's line, say it (the incomplete verdict of a probe that moved as a block, or a
pass or regression's line with ", not this PR" when the fresh pairing clears the pull request)."""


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


PAIRING_CLEAR = 0.2
"""The fresh pairing clears the pull request of a movement when its one-sided p is at least this: the
candidate's fresh samples are not detectably worse than the base system's, asked at the same time. Only a
cleared pull request has the aggregate rules' failures discounted (gate._drift_discounted)."""
PAIRING_SILENT = 0.05
"""Below this (the correctness test's default level, [gate] max_p_value) the fresh pairing blames the pull
request and the comment does not say the environment shifted. Between it and PAIRING_CLEAR, and with no
critical case lost, the shift is said and every rule still applies: on a bad day the pairing, a valid test
of "both moved alike", falls below 0.2 in about 12 % of pull requests by chance, which capped the note at
about 88 % of bad days (benchmarks/README.md, "Round 4: the note")."""


class Shift(NamedTuple):
    """What the control says of the environment: `said`, the comment says it shifted; `cleared`, the fresh
    pairing clears the pull request as well, so the aggregate rules' failures are not blamed on it."""

    said: bool
    cleared: bool
    sentence: str


def fresh_samples(candidate: Report, cases: Collection[str]) -> Report:
    """The candidate with each of `cases` (the control's) counted on its fresh samples only: the re-asks,
    without the first sample, which chose the case for being different. Compared with the base system's
    fresh samples of the same cases, asked at the same time, the pairing is unbiased: under a bad day both
    moved alike, so the pull request is not blamed for the cases a bad first sample picked (in a numpy model
    of the rules, benchmarks/control_rules_sim.py, a bad day failed 6.4 % of pairs with the first sample
    counted, 2.0 % without it). A case with no usable re-ask keeps its row."""
    rows = []
    for row in candidate.per_case:
        fresh = [s.right for s in row.samples if s.right is not None] if row.case_id in cases else []
        if fresh and row.n_right is not None:
            row = row.model_copy(update={"n_samples": len(fresh), "n_right": sum(fresh)})
        rows.append(row)
    return candidate.model_copy(update={"per_case": rows})


def first_pass_tables(baseline: Report, candidate: Report) -> list[tuple[int, int, int, int]]:
    """(baseline right, baseline samples, 1 if the candidate's first sample is right, 1) per shared scored
    case: every case's first ask, none chosen for being different, so it measures how far the answers moved
    since the baseline without selection."""
    before = {c.case_id: c for c in baseline.per_case}
    tables = []
    for row in candidate.per_case:
        base = before.get(row.case_id)
        first = is_right(row)
        if base is None or first is None or row.status == "error" or verdict(base) is None:
            continue
        counts = tally(base)
        tables.append((counts.right, counts.n, int(first), 1))
    return tables


def reask_tables(
    baseline: Report, control: Report, cases: Collection[str]
) -> list[tuple[int, int, int, int]]:
    """(right before, samples before, right now, asks now) per changed case (`cases`, the control's): now is
    the base system's asks of it during this pull request (the control's row), before the baseline's
    samples after its first RULE_SAMPLES.

    Why those samples: what chose the case (the candidate's first sample against the verdict of the
    baseline's first 3, gate/confirm.py) is on neither side, so under "nothing moved" every sample of the
    table is a draw of the same coin and the exact test stays valid. The first pass alone, 72 asks, often
    does not show a 5-point bad day, and these asks are already paid for. This PR's re-asks are left out:
    they measure the PR as much as the environment, and on the held-out harness they added no note
    (benchmarks/README.md, round 8). A case whose baseline has no sample beyond its first 3 adds nothing."""
    before_rows = {r.case_id: r for r in baseline.per_case}
    tables = []
    for now in control.per_case:
        base = before_rows.get(now.case_id)
        if now.case_id not in cases or base is None or verdict(base) is None or now.status == "stale":
            continue
        before = usable_samples(base)[RULE_SAMPLES:]
        asked = tally(now)
        if before and asked.n:
            tables.append((sum(before), len(before), asked.right, asked.n))
    return tables


def shift_note(
    baseline: Report, control: Report, candidate: Report, stats: Statistics, *, critical_lost: bool = False
) -> Shift:
    """What the comment says of the environment. It shifted when the answers now are right less often than
    the baseline (stats.weighted_drop p < SHIFT_P): the first pass over every case, the drift probe, and
    the base system's asks of the changed cases (against the baseline samples that did not choose the
    case: reask_tables); and the fresh pairing on the changed cases, this PR's re-asks against
    the base system's, does not blame the pull request for it: cleared at p >= PAIRING_CLEAR; said without
    clearing at p >= PAIRING_SILENT when no critical case is lost (`critical_lost`, the gate's verdict). The
    pairing is the one the correctness rule reads (`stats`, the comparison with the control:
    gate/paired.py). The changed cases' first asks count once, in the first pass: they chose the cases
    (benchmarks/README.md)."""
    note = control.notes.control
    if note is None:
        return Shift(False, False, "")
    pairing_p = 1.0 if stats.pairing_p_one_sided is None else stats.pairing_p_one_sided
    reasked = reask_tables(baseline, control, note.cases)
    whole = weighted_drop(
        first_pass_tables(baseline, candidate) + probe_tables(baseline, note.probe) + reasked
    )
    # The comment cuts a note at render/comment_view.py NOTE_LIMIT characters: the claim first, then both
    # tests' counts, then what the control cost, each in as few words as carry it.
    # Plurals spelt out: "case(s))" would close two brackets at once.
    parts = ["every case's first ask"]
    if note.probe:
        parts.append(f"{len(note.probe)} probed unchanged case{'s' if len(note.probe) != 1 else ''}")
    if reasked:
        asks = sum(t[3] for t in reasked)
        parts.append(
            f"the base system's {asks} ask{'s' if asks != 1 else ''} of the {len(reasked)} changed "
            f"case{'s' if len(reasked) != 1 else ''}"
        )
    asked_now = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    before_rate = whole.right_before / whole.n_before if whole.n_before else 0.0
    after_rate = whole.right_after / whole.n_after if whole.n_after else 0.0
    points = (after_rate - before_rate) * 100
    moved = (
        f"answers now ({asked_now}) are right in {whole.right_after} of {whole.n_after}, "
        f"baseline samples in {whole.right_before} of {whole.n_before} ({points:+.1f} points; weighted exact "
        f"one-sided p = {whole.p_one_sided:.3g})"
    )
    paired = (
        f"the base system, re-asked now on the {stats.pairing_cases} case(s) this PR changed, is right in "
        f"{stats.pairing_right_before} of {stats.pairing_before} and this PR's fresh samples in "
        f"{stats.pairing_right_after} of {stats.pairing_after} (one-sided Mantel-Haenszel p = "
        f"{pairing_p:.3g})"
    )
    cost = control_cost(note)
    wrong_now = whole.n_after - whole.right_after
    shifted = whole.p_one_sided < SHIFT_P and wrong_now >= 2
    if shifted and pairing_p >= PAIRING_CLEAR:
        return Shift(
            True,
            True,
            f"{SHIFT_HEADLINE}, not this PR: {moved}; {paired}, so this PR is "
            f"judged against it there. {cost}",
        )
    if shifted and pairing_p >= PAIRING_SILENT and not critical_lost:
        return Shift(
            True,
            False,
            f"{SHIFT_HEADLINE}: {moved}; {paired}, which neither blames this PR "
            f"nor clears it (p >= {PAIRING_SILENT:g}, below {PAIRING_CLEAR:g}), so every rule still applies. "
            f"{cost}",
        )
    return Shift(False, False, f"control: {paired}; {moved}. {cost}")


def control_cost(note: ControlNote) -> str:
    """`Control: 33 ask(s) of the base system and 28 probe ask(s), 153 provider call(s) with the judge's,
    $0.0123.` (the judge's draws are calls too: up to 3 an answer for a model judge)."""
    probe = f" and {len(note.probe)} probe ask(s)" if note.probe else ""
    dollars = "" if note.cost_usd is None else f", ${note.cost_usd:.4f}"
    calls = f"{note.calls} provider call(s) with the judge's{dollars}"
    return f"Control: {note.samples} ask(s) of the base system{probe}, {calls}."


def changed_cases(baseline: Report, candidate: Report) -> list[str]:
    """The cases whose verdict differs from the baseline's, and those the candidate re-asked because its
    first sample differed: all carry evidence the gate weighs (a re-asked case that came back is still in
    the samples-level test), so all are compared with the base system as it answers now."""
    reasked = {c.case_id for c in candidate.per_case if c.n_samples > 1}
    return sorted(set(confirmation_plan(baseline, candidate, extra=1, asked={})) | reasked)


CONTROL_SAMPLES = 3
"""The base system's asks of each changed case: the baseline's samples, at most this many. More baseline
samples sharpen which cases are almost always right (the shift test's power, paid once per merge on the
default branch); they must not cost the pull request more asks (benchmarks/README.md)."""


PROBE_PER_CHANGED = 3
"""The drift probe asks at most this many unchanged cases, once each, per changed case."""
MAX_EXTRA_PER_CHANGED = 10
"""A pull request's extra calls (the candidate's re-asks, the control's asks, the probe) per changed case:
the control takes what the candidate's re-asks leave, and the probe what both leave (issue 23's "at most
10 x the changed cases")."""


def control_samples(baseline_samples: int, *, changed: int = 0, spent: int = 0) -> int:
    """How many times the control asks the base system each of `changed` cases, given `spent` re-asks of the
    candidate already: as many as the baseline has, at most CONTROL_SAMPLES, and at most what the budget of
    MAX_EXTRA_PER_CHANGED per changed case leaves. A pull request whose changed cases are mostly known flaky
    (9 re-asks each) would otherwise spend 12 per case: the held-out harness saw up to 11 (benchmarks/
    README.md). At least 1: the candidate re-asks a case at most 9 times, so 1 always fits."""
    wanted = min(baseline_samples, CONTROL_SAMPLES)
    if changed <= 0:
        return wanted
    return max(1, min(wanted, (MAX_EXTRA_PER_CHANGED * changed - spent) // changed))


def probe_size(changed: int, spent: int) -> int:
    """How many unchanged cases the drift probe asks, given `changed` cases and `spent` extra calls already
    (the candidate's re-asks, plus the base system's asks of the changed cases when it is re-asked)."""
    return max(0, min(PROBE_PER_CHANGED * changed, MAX_EXTRA_PER_CHANGED * changed - spent))


def probe_eligible(row: PerCase) -> bool:
    """A case the probe may ask: right in the baseline's first sample, with at least two more usable samples.
    The first sample chooses the case, the others are its before-side: choosing on the samples that are then
    compared (all three right, "stable") biases the test towards "shifted", since a case right 80 % of the
    time that happened to be right three times comes back wrong one time in five (benchmarks/README.md)."""
    return is_right(row) is True and len([s for s in row.samples if s.right is not None]) >= 2


def probe_cases(baseline: Report, *, exclude: Collection[str], size: int, seed: str) -> list[str]:
    """A seeded sample of `size` eligible baseline cases not in `exclude` (the changed cases), sorted."""
    eligible = sorted(r.case_id for r in baseline.per_case if r.case_id not in exclude and probe_eligible(r))
    return sorted(random.Random(seed).sample(eligible, min(max(size, 0), len(eligible))))


def probe_tables(baseline: Report, probe: Sequence[ProbeRow]) -> list[tuple[int, int, int, int]]:
    """(right before, samples before, right now, asks now) per probed case: before is the baseline's samples
    after the first (the first chose the case)."""
    rows = {r.case_id: r for r in baseline.per_case}
    tables = []
    for p in probe:
        row = rows.get(p.case_id)
        if row is None or not p.now:
            continue
        before = [s.right for s in row.samples if s.right is not None]
        tables.append((sum(before), len(before), sum(p.now), len(p.now)))
    return tables


def drift(baseline: Report, probe: Sequence[ProbeRow]) -> tuple[bool, Stratified]:
    """(moved as a block, the test): the probe's answers now are right less often than the baseline's on the
    same cases (the exact weighted test, stats.weighted_drop, p < SHIFT_P, and at least two answers now
    wrong)."""
    tables = probe_tables(baseline, probe)
    test = weighted_drop(tables)
    wrong_now = test.n_after - test.right_after
    return wrong_now >= 2 and test.p_one_sided < SHIFT_P, test


def _probe_words(test: Stratified) -> str:
    return (
        f"right in {test.right_after} of {test.n_after} answers now against {test.right_before} of "
        f"{test.n_before} baseline samples; weighted exact one-sided p = {test.p_one_sided:.3g}"
    )


def fallback_note(baseline: Report, note: ControlNote) -> tuple[bool, str]:
    """For a probe-only control (the base system could not be run): (moved as a block, the sentence), the
    claim and what to do first; why the base system could not be run and the cost last (the comment cuts a
    long note)."""
    moved, test = drift(baseline, note.probe)
    dollars = "" if note.cost_usd is None else f", ${note.cost_usd:.4f}"
    calls = f"{note.calls} provider call(s) with the judge's{dollars}"
    tail = f"The base system could not be run ({note.why}); the probe cost {calls}."
    asked = f"{len(note.probe)} unchanged case(s) asked again of this PR"
    if moved:
        return True, (
            f"{SHIFT_HEADLINE}: {asked} moved as a block ({_probe_words(test)}), "
            "so the cases this PR changed are not blamed on it while the environment moves: rerun the job "
            f"later, or refresh the baseline. {tail}"
        )
    return False, f"control: {asked} answer as the baseline did ({_probe_words(test)}). {tail}"
