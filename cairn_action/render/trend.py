"""The primary metric over a config's committed history, as a mermaid chart and the plain table beside it.

Mermaid may not render everywhere (and `xychart-beta` is not promised on github.com), so the table is the
source of truth and the chart a convenience. Nothing untrusted reaches the chart: labels are rebuilt
from timestamps and values are numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tabulate import tabulate

from cairn_action.render.escape import escape_text
from cairn_action.report.leaderboard import primary_metric
from cairn_action.report.models import Report
from cairn_action.score.metrics import MetricSpec

MAX_POINTS = 20
_TIMESTAMP = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})")


@dataclass(frozen=True, kw_only=True)
class TrendPoint:
    label: str
    """`MM-DD HH:MM` from the report's timestamp, or `this PR`."""
    created_at: str
    config_hash: str
    value: float


@dataclass(frozen=True, kw_only=True)
class Trend:
    config_name: str
    metric: MetricSpec
    points: tuple[TrendPoint, ...]


@dataclass(frozen=True, kw_only=True)
class TrendView:
    summary: str
    mermaid: str
    table: str


def _label(created_at: str) -> str:
    m = _TIMESTAMP.match(created_at)
    return f"{m.group(2)}-{m.group(3)} {m.group(4)}:{m.group(5)}" if m else "unknown"


def _same_report(a: Report, b: Report) -> bool:
    """The candidate's own copy in the history folder, not another report made in the same second (the
    demo's two reports, a baseline and a PR run on a fast machine): timestamps have one-second grain."""
    return (a.config_name, a.config_hash, a.created_at) == (b.config_name, b.config_hash, b.created_at)


def build_trend(history: Sequence[Report], candidate: Report) -> Trend | None:
    """The last points of `history` measured on the candidate's golden set and corpus (and, for a target,
    its code), then the candidate.

    None when there is nothing to draw a line through (fewer than one earlier report).
    """
    earlier = sorted(
        (
            r
            for r in history
            if r.golden_version == candidate.golden_version
            and r.corpus_hash == candidate.corpus_hash
            # One system a line: a target's runs join only runs of the same code (report.target_hash);
            # an LLM-backed and an extractive system under one config are two lines, never one.
            and r.target_hash == candidate.target_hash
            and not _same_report(r, candidate)
        ),
        key=lambda r: r.created_at,
    )
    metric = primary_metric([*earlier, candidate])
    points = [
        TrendPoint(label=_label(r.created_at), created_at=r.created_at, config_hash=r.config_hash, value=v)
        for r in earlier
        if (v := metric.read(r)) is not None
    ][-(MAX_POINTS - 1) :]
    now = metric.read(candidate)
    if not points or now is None:
        return None
    points.append(
        TrendPoint(
            label="this PR", created_at=candidate.created_at, config_hash=candidate.config_hash, value=now
        )
    )
    return Trend(config_name=candidate.config_name, metric=metric, points=tuple(points))


def _chart_text(text: str) -> str:
    """What may sit between double quotes in a mermaid chart: letters, digits, spaces, `.`, `:`, `-`."""
    return re.sub(r"[^0-9A-Za-z .:-]", "", text)[:40] or "run"


def _chart_value(metric: MetricSpec, value: float) -> str:
    return f"{value * 100:.1f}" if metric.unit == "share" else f"{value:.3f}"


def trend_view(trend: Trend) -> TrendView:
    """The chart (numbers and rebuilt labels only) and the table (escaped)."""
    metric = trend.metric
    axis_max = "100" if metric.unit == "share" else "1"
    # The chart carries no text from the report at all: the config's name is in the summary above it.
    title = _chart_text(metric.label)
    labels = ", ".join(f'"{_chart_text(p.label)}"' for p in trend.points)
    values = ", ".join(_chart_value(metric, p.value) for p in trend.points)
    mermaid = "\n".join(
        [
            "```mermaid",
            "xychart-beta",
            f'    title "{title}"',
            f"    x-axis [{labels}]",
            f'    y-axis "{_chart_text(metric.label)}" 0 --> {axis_max}',
            f"    line [{values}]",
            "```",
        ]
    )
    rows = [
        [
            escape_text(p.label),
            escape_text(p.created_at, limit=40),
            escape_text(p.config_hash, limit=20),
            metric.format(p.value),
        ]
        for p in trend.points
    ]
    table = tabulate(
        rows,
        headers=["run", "created", "config hash", escape_text(metric.label)],
        tablefmt="github",
        disable_numparse=True,
    )
    earlier = len(trend.points) - 1
    runs = "run" if earlier == 1 else "runs"
    summary = f"Trend of {escape_text(metric.label)}: {earlier} earlier {runs}, then this PR"
    return TrendView(summary=summary, mermaid=mermaid, table=table)
