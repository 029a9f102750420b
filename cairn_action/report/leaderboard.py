"""`cairn bench`: the leaderboard of the latest report of every config, as markdown.

Rows are sorted by the primary metric: the judge's grade when every report in the table has one, token
F1 otherwise. Reports that measured different things (another corpus, golden set version or split) are
never ranked together: each such group gets its own table, and a line says why. No clock: the same
reports always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence

from tabulate import tabulate

from cairn_action.report.models import Report
from cairn_action.score.metrics import MetricSpec, get_metric

COLUMNS: tuple[MetricSpec, ...] = tuple(
    get_metric(name)
    for name in (
        "recall_at_5",
        "ndcg_at_10",
        "token_f1",
        "judge_score",
        "citation_validity",
        "answer_rate",
        "error_rate_answered",
        "cost_per_question_usd",
        "latency_p95_ms",
    )
)
TITLE = "# Leaderboard"
EMPTY = "No reports yet: run `cairn eval`, then `cairn bench`."

GroupKey = tuple[str, str, str]


def primary_metric(reports: Sequence[Report]) -> MetricSpec:
    """The judge when every report has a judge grade, token F1 otherwise."""
    judge = get_metric("judge_score")
    if reports and all(judge.read(r) is not None for r in reports):
        return judge
    return get_metric("token_f1")


def _cell(spec: MetricSpec, report: Report) -> str:
    value = spec.read(report)
    text = spec.format(value)
    # The column header already says "ms".
    return text.removesuffix(" ms") if spec.unit == "ms" else text


def leaderboard_row(report: Report) -> list[str]:
    """The report's cells under `config` and COLUMNS."""
    return [_escape(report.config_name), *(_cell(spec, report) for spec in COLUMNS)]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _sorted(reports: Sequence[Report], primary: MetricSpec) -> list[Report]:
    def key(report: Report) -> tuple[bool, float, str]:
        value = primary.read(report)
        if value is None:
            return (True, 0.0, report.config_name)
        return (False, -value if primary.higher_is_better else value, report.config_name)

    return sorted(reports, key=key)


def render_table(reports: Sequence[Report]) -> str:
    """One comparable group: the sentence naming the order, the table, the footer."""
    primary = primary_metric(reports)
    why = (
        "every report has a judge grade"
        if primary.name == "judge_score"
        else "not every report has a judge grade"
    )
    rows = [leaderboard_row(r) for r in _sorted(reports, primary)]
    table = tabulate(
        rows, headers=["config", *(spec.label for spec in COLUMNS)], tablefmt="github", disable_numparse=True
    )
    first = reports[0]
    footer = (
        f"Golden set version `{_escape(first.golden_version)}` · corpus `{first.corpus_hash}` · "
        f"split `{first.split}` · {len(reports)} config{'s' if len(reports) != 1 else ''}"
    )
    targets = [
        f"{_escape(r.config_name)} `{r.target_hash}`" for r in _sorted(reports, primary) if r.target_hash
    ]
    if targets:  # the user's own systems: which code each row measured
        footer += " · target code: " + ", ".join(targets)
    return f"Sorted by {primary.label} ({why}).\n\n{table}\n\n{footer}\n\n{_thresholds(reports)}\n"


def _thresholds(reports: Sequence[Report]) -> str:
    """Answer rate and error among answered mean different things with and without a calibration."""
    calibrated = sorted(_escape(r.config_name) for r in reports if r.notes.calibrated)
    other = sorted(_escape(r.config_name) for r in reports if not r.notes.calibrated)
    parts = []
    if calibrated:
        parts.append(f"calibrated threshold: {', '.join(calibrated)}")
    if other:
        parts.append(f"model abstain flag, no guarantee: {', '.join(other)}")
    return "Abstention: " + "; ".join(parts) + "."


def group_key(report: Report) -> GroupKey:
    return (report.golden_version, report.corpus_hash, report.split)


def render_leaderboard(reports: Sequence[Report]) -> str:
    """The whole `reports/leaderboard.md`."""
    if not reports:
        return f"{TITLE}\n\n{EMPTY}\n"
    groups: dict[GroupKey, list[Report]] = {}
    for report in reports:
        groups.setdefault(group_key(report), []).append(report)
    if len(groups) == 1:
        return f"{TITLE}\n\n{render_table(reports)}"
    parts = [
        TITLE,
        "",
        f"These reports measured {len(groups)} different things (golden set version, corpus or split), so "
        "they are in separate tables: numbers from different corpora or golden sets are not comparable.",
    ]
    # Largest group first, then by key, so the order does not depend on file names.
    for key in sorted(groups, key=lambda k: (-len(groups[k]), k)):
        version, corpus, split = key
        parts += [
            "",
            f"## Golden set {_escape(version)}, corpus {corpus[:12]}, split {split}",
            "",
            render_table(groups[key]).rstrip("\n"),
        ]
    return "\n".join(parts) + "\n"
