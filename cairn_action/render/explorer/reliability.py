"""The explorer's reliability view: how often the model was right at each confidence, and the threshold.

Only answers the model gave with a confidence count (what the threshold is applied to): the answered
cases, and the answers the calibrated threshold withheld. A withheld answer's verdict is in the run
artifact only (the report records none), so without it those cases are counted, not plotted. Geometry is
computed here, in SVG user units, so the template only places numbers and the page needs no library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from cairn_action.report.models import PerCase
from cairn_action.run.models import CaseRecord

N_BINS = 10
N_STRIPS = 50
WIDTH, HEIGHT = 520, 340
LEFT, RIGHT, TOP = 48, 16, 16
PLOT_H = 200
"""The reliability curve's panel; the right/wrong histogram sits under it."""
HIST_TOP = TOP + PLOT_H + 28
HIST_H = 60
_MAX_R = 14.0


@dataclass(frozen=True, kw_only=True)
class Bin:
    low: float
    high: float
    n: int
    right: int
    mean_confidence: float

    @property
    def share(self) -> float:
        return self.right / self.n


@dataclass(frozen=True, kw_only=True)
class Point:
    cx: float
    cy: float
    r: float
    label: str


@dataclass(frozen=True, kw_only=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    right: bool


@dataclass(frozen=True, kw_only=True)
class Tick:
    pos: float
    label: str


@dataclass(frozen=True, kw_only=True)
class Reliability:
    bins: tuple[Bin, ...]
    n_plotted: int
    n_unknown: int
    """Withheld answers whose verdict only the run artifact has (not given)."""
    threshold: float | None
    x_max: float
    points: tuple[Point, ...]
    bars: tuple[Bar, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    threshold_x: float | None
    diagonal: tuple[float, float, float, float]
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right_edge: int = WIDTH - RIGHT
    top: int = TOP
    plot_bottom: int = TOP + PLOT_H
    hist_top: int = HIST_TOP
    hist_mid: float = HIST_TOP + HIST_H / 2
    hist_bottom: int = HIST_TOP + HIST_H


def verdicts(
    rows: Sequence[PerCase], records: Mapping[str, CaseRecord] | None
) -> tuple[list[tuple[float, bool]], int]:
    """(confidence, right) for every answer the model gave with a confidence; and how many withheld
    answers had no verdict to hand. Wrong means what it means for calibration: an answer to an
    unanswerable question, or one the judge did not call correct (`score.outcome.is_wrong_if_answered`)."""
    found: list[tuple[float, bool]] = []
    unknown = 0
    for row in rows:
        if row.confidence is None or not math.isfinite(row.confidence):
            continue
        if row.status == "answered":
            found.append((row.confidence, row.correct is True))
        elif row.status == "abstained" and row.abstained_by_threshold:
            record = records.get(row.case_id) if records is not None else None
            if not row.answerable:
                found.append((row.confidence, False))
            elif record is not None:
                found.append((row.confidence, record.judge is not None and record.judge.correct is True))
            else:
                unknown += 1
    return found, unknown


def _bins(points: Sequence[tuple[float, bool]], x_min: float, x_max: float, n: int) -> list[Bin]:
    width = (x_max - x_min) / n
    grouped: list[list[tuple[float, bool]]] = [[] for _ in range(n)]
    for confidence, right in points:
        index = min(n - 1, max(0, int((confidence - x_min) / width)))
        grouped[index].append((confidence, right))
    return [
        Bin(
            low=x_min + i * width,
            high=x_min + (i + 1) * width,
            n=len(group),
            right=sum(r for _, r in group),
            mean_confidence=sum(c for c, _ in group) / len(group),
        )
        for i, group in enumerate(grouped)
        if group
    ]


def build_reliability(
    rows: Sequence[PerCase], records: Mapping[str, CaseRecord] | None, threshold: float | None
) -> Reliability:
    points, unknown = verdicts(rows, records)
    x_min = min([0.0, *(c for c, _ in points)])
    x_max = max([1.0, *(c for c, _ in points)])
    span = x_max - x_min

    def x(value: float) -> float:
        return round(LEFT + (value - x_min) / span * (WIDTH - LEFT - RIGHT), 2)

    def y(share: float) -> float:
        return round(TOP + (1 - share) * PLOT_H, 2)

    bins = _bins(points, x_min, x_max, N_BINS)
    biggest = max((b.n for b in bins), default=1)
    dots = tuple(
        Point(
            cx=x(b.mean_confidence),
            cy=y(b.share),
            r=round(3 + (_MAX_R - 3) * math.sqrt(b.n / biggest), 2),
            label=f"confidence {b.low:.2f} to {b.high:.2f}: {b.right} right of {b.n} ({b.share:.0%})",
        )
        for b in bins
    )
    strips = _bins(points, x_min, x_max, N_STRIPS)
    tallest = max((max(s.right, s.n - s.right) for s in strips), default=1)
    bar_w = (WIDTH - LEFT - RIGHT) / N_STRIPS - 1
    half = HIST_H / 2
    bars: list[Bar] = []
    for s in strips:
        left = x(s.low) + 0.5
        up, down = s.right / tallest * half, (s.n - s.right) / tallest * half
        if up:
            bars.append(
                Bar(
                    x=left,
                    y=round(HIST_TOP + half - up, 2),
                    width=round(bar_w, 2),
                    height=round(up, 2),
                    right=True,
                )
            )
        if down:
            bars.append(
                Bar(x=left, y=HIST_TOP + half, width=round(bar_w, 2), height=round(down, 2), right=False)
            )
    ticks = [x_min + span * i / 5 for i in range(6)]
    shown_threshold = threshold if threshold is not None and math.isfinite(threshold) else None
    in_range = shown_threshold is not None and x_min <= shown_threshold <= x_max
    return Reliability(
        bins=tuple(bins),
        n_plotted=len(points),
        n_unknown=unknown,
        threshold=shown_threshold,
        x_max=x_max,
        points=dots,
        bars=tuple(bars),
        x_ticks=tuple(Tick(pos=x(t), label=f"{t:.2g}") for t in ticks),
        y_ticks=tuple(Tick(pos=y(s), label=f"{s:.0%}") for s in (0.0, 0.25, 0.5, 0.75, 1.0)),
        threshold_x=x(shown_threshold) if in_range and shown_threshold is not None else None,
        diagonal=(x(0.0), y(0.0), x(1.0), y(1.0)),  # the axes always include 0 to 1
    )
