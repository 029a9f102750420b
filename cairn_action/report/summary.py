"""The few lines `cairn eval` and `cairn score` print: the leaderboard row, abstention, the worst tags."""

from __future__ import annotations

from tabulate import tabulate

from cairn_action.report.leaderboard import COLUMNS, leaderboard_row
from cairn_action.report.models import Report
from cairn_action.score.metrics import get_metric
from cairn_action.score.tags import DIFFICULTY_PREFIX

WORST_SHOWN = 3


def abstention_line(report: Report) -> str:
    """Answer rate with error among answered, and whether the guarantee held, read as the reference asks."""
    ab = report.abstention
    share = get_metric("answer_rate")
    if ab.answer_rate is None or ab.error_rate_answered is None:
        answered = "answered nothing" if ab.answer_rate is not None else "no cases scored"
        return f"abstention: {answered}; no error rate, no guarantee"
    head = (
        f"abstention: answered {share.format(ab.answer_rate)} of cases, "
        f"{share.format(ab.error_rate_answered)} of them wrong (alpha {share.format(ab.alpha)})"
    )
    withheld = report.notes.counts.get("abstained_by_threshold", 0)
    if withheld:  # the run's counts are the system's replies: name the answers the threshold took away
        head += (
            f"; {withheld} answer{'s' if withheld != 1 else ''} withheld below the threshold "
            f"{report.abstention.threshold:.3f}"
            if report.abstention.threshold is not None
            else f"; {withheld} withheld"
        )
    if not report.notes.calibrated:
        return f"{head}; no guarantee: {report.notes.threshold_source}"
    held = "held" if ab.guarantee_met else "NOT held on this slice"
    return f"{head}; guarantee {held}: {report.notes.threshold_source}"


def worst_tags(report: Report, shown: int = WORST_SHOWN) -> str | None:
    """The tags with the lowest correct rate (right answer, or abstention when unanswerable)."""
    tags = [
        (k, s)
        for k, s in report.by_tag.items()
        if not k.startswith(DIFFICULTY_PREFIX) and s.correct_rate is not None
    ]
    if not tags:
        return None
    share = get_metric("answer_rate")
    tags.sort(key=lambda kv: (kv[1].correct_rate, -kv[1].n, kv[0]))
    parts = [f"{k} {share.format(s.correct_rate)} correct (n={s.n})" for k, s in tags[:shown]]
    return "worst tags: " + ", ".join(parts)


def held_out_line(report: Report) -> str | None:
    """Where the other cases went: the eval split is the golden set minus the calibration slice."""
    detail = report.notes.split_detail
    if report.split != "eval" or detail is None or not detail.n_calibration:
        return None
    total = detail.n_calibration + detail.n_eval
    return (
        f"held out: {detail.n_calibration} of the golden set's {total} cases calibrate the abstention "
        f"threshold (calibration.fraction {detail.fraction:g}) and are not scored here; "
        f"`--split all` scores all {total} (never a promotion decision)"
    )


def summary_lines(report: Report) -> list[str]:
    """The human summary of one report."""
    lines = [
        f"{report.config_name}: split {report.split}, {report.n_cases} cases, golden set "
        f"{report.golden_version}, corpus {report.corpus_hash[:12]}",
        tabulate(
            [leaderboard_row(report)],
            headers=["config", *(c.label for c in COLUMNS)],
            tablefmt="github",
            disable_numparse=True,
        ),
        abstention_line(report),
    ]
    held_out = held_out_line(report)
    if held_out:
        lines.insert(1, held_out)
    worst = worst_tags(report)
    if worst:
        lines.append(worst)
    lines += [f"warning: {w}" for w in report.notes.nothing_returned]
    counts = report.notes.counts
    trouble = [f"{counts[k]} {k}" for k in ("error", "stale") if counts.get(k)]
    if trouble:
        lines.append(f"counted, not dropped: {' and '.join(trouble)} (see per_case)")
    if report.notes.promotion:
        lines.append(f"note: {report.notes.promotion}")
    return lines
