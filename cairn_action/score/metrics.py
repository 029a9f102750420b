"""Every number a report carries, described once: its name, direction, unit, format and place.

Comparison, rendering and the leaderboard read this table; nobody writes "lower latency is better"
twice. `path` locates the value in a report (a pydantic `Report` or its JSON as a dict), so
`spec.read(report)` works on either without this module importing the report package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Unit = Literal["share", "score", "usd", "ms", "tokens"]
"""share: a 0..1 proportion shown as a percentage; score: a 0..1 mean shown as a decimal;
usd: dollars; ms: milliseconds; tokens: a count of tokens."""

MISSING = "n/a"


@dataclass(frozen=True, kw_only=True)
class MetricSpec:
    """What one metric is and how to read, compare and show it."""

    name: str
    """Stable identifier, used in config (`[gate] max_drop`, `floors`) and comparisons."""
    label: str
    """Human name for tables and comments."""
    higher_is_better: bool
    unit: Unit
    path: tuple[str, ...]
    """Keys from the report's top level to the value, e.g. ("retrieval", "recall_at_k", "5")."""
    decimals: int
    """Decimals shown: of the percentage for shares, of the value otherwise."""
    machine_dependent: bool = False
    """Only comparable between reports measured on the same kind of machine (latency)."""

    def read(self, report: object) -> float | None:
        """The value in `report` (a Report model or a dict), or None when absent or null."""
        node: object = report
        for key in self.path:
            if isinstance(node, Mapping):
                node = node.get(key)
            else:
                node = getattr(node, key, None)
            if node is None:
                return None
        if isinstance(node, bool) or not isinstance(node, int | float):
            raise TypeError(f"metric {self.name}: value at {'.'.join(self.path)} is not a number: {node!r}")
        return float(node)

    def format(self, value: float | None) -> str:
        """The value as a table cell: 83.3%, 0.812, $0.0012, 140 ms, 12,345; `n/a` for None."""
        if value is None:
            return MISSING
        if self.unit == "share":
            return f"{value * 100:.{self.decimals}f}%"
        if self.unit == "usd":
            return f"${value:.{self.decimals}f}"
        if self.unit == "ms":
            return f"{value:,.{self.decimals}f} ms"
        if self.unit == "tokens":
            return f"{value:,.0f}"
        return f"{value:.{self.decimals}f}"

    def format_delta(self, delta: float | None, *, decimals: int | None = None) -> str:
        """A signed change in this metric's unit: +2.5 pp, -0.031, +$0.0004, +12 ms."""
        if delta is None:
            return MISSING
        d = self.decimals if decimals is None else decimals
        if self.unit == "share":
            return f"{delta * 100:+.{d}f} pp"
        if self.unit == "usd":
            sign = "-" if delta < 0 else "+"
            return f"{sign}${abs(delta):.{d}f}"
        if self.unit == "ms":
            return f"{delta:+,.{d}f} ms"
        if self.unit == "tokens":
            return f"{delta:+,.0f}"
        return f"{delta:+.{d}f}"

    def format_change(self, before: float, after: float) -> str:
        """`after - before`, with as many more decimals as it takes to agree with the two values shown.

        0.0374 -> 0.0368 shows as 0.037 -> 0.037; its change rounded the same way reads "-0.001", a
        change the reader cannot see in the values. Shown as "-0.0006" it agrees with them (and the cell
        stays short enough for one line of the comment's table).
        """
        delta = after - before
        if self.format(before) != self.format(after) or self.unit == "tokens":
            return self.format_delta(delta)
        for extra in range(1, 7):
            text = self.format_delta(delta, decimals=self.decimals + extra)
            if text.strip("+-$ pm").strip("0.,") != "":
                return text
        return self.format_delta(delta)

    def is_improvement(self, delta: float) -> bool:
        """True when a change of `delta` (candidate minus baseline) goes the good way."""
        return delta > 0 if self.higher_is_better else delta < 0


def _recall(k: int) -> MetricSpec:
    return MetricSpec(
        name=f"recall_at_{k}",
        label=f"recall@{k}",
        higher_is_better=True,
        unit="share",
        path=("retrieval", "recall_at_k", str(k)),
        decimals=1,
    )


METRICS: tuple[MetricSpec, ...] = (
    _recall(1),
    _recall(3),
    _recall(5),
    _recall(10),
    MetricSpec(
        name="ndcg_at_10",
        label="nDCG@10",
        higher_is_better=True,
        unit="score",
        path=("retrieval", "ndcg_at_10"),
        decimals=3,
    ),
    MetricSpec(
        name="mrr", label="MRR", higher_is_better=True, unit="score", path=("retrieval", "mrr"), decimals=3
    ),
    MetricSpec(
        name="exact_match",
        label="exact match",
        higher_is_better=True,
        unit="share",
        path=("answer", "exact_match"),
        decimals=1,
    ),
    MetricSpec(
        name="token_f1",
        label="token F1",
        higher_is_better=True,
        unit="score",
        path=("answer", "token_f1"),
        decimals=3,
    ),
    MetricSpec(
        name="judge_score",
        label="judge",
        higher_is_better=True,
        unit="score",
        path=("answer", "judge_score"),
        decimals=3,
    ),
    MetricSpec(
        name="citation_validity",
        label="citation validity",
        higher_is_better=True,
        unit="share",
        path=("answer", "citation_validity"),
        decimals=1,
    ),
    MetricSpec(
        name="faithfulness",
        label="faithfulness",
        higher_is_better=True,
        unit="share",
        path=("answer", "faithfulness"),
        decimals=1,
    ),
    MetricSpec(
        name="answer_rate",
        label="answer rate",
        higher_is_better=True,
        unit="share",
        path=("abstention", "answer_rate"),
        decimals=1,
    ),
    MetricSpec(
        name="error_rate_answered",
        label="error among answered",
        higher_is_better=False,
        unit="share",
        path=("abstention", "error_rate_answered"),
        decimals=1,
    ),
    MetricSpec(
        name="unanswerable_abstained_rate",
        label="unanswerable abstained",
        higher_is_better=True,
        unit="share",
        path=("abstention", "unanswerable_abstained_rate"),
        decimals=1,
    ),
    MetricSpec(
        name="answerable_answered_rate",
        label="answerable answered",
        higher_is_better=True,
        unit="share",
        path=("abstention", "answerable_answered_rate"),
        decimals=1,
    ),
    MetricSpec(
        name="cost_usd_total",
        label="cost",
        higher_is_better=False,
        unit="usd",
        path=("operational", "cost_usd_total"),
        decimals=4,
    ),
    MetricSpec(
        name="cost_per_question_usd",
        label="cost/q",
        higher_is_better=False,
        unit="usd",
        path=("operational", "cost_per_question_usd"),
        decimals=4,
    ),
    MetricSpec(
        name="latency_p50_ms",
        label="p50 ms",
        higher_is_better=False,
        unit="ms",
        path=("operational", "latency_p50_ms"),
        decimals=0,
        machine_dependent=True,
    ),
    MetricSpec(
        name="latency_p95_ms",
        label="p95 ms",
        higher_is_better=False,
        unit="ms",
        path=("operational", "latency_p95_ms"),
        decimals=0,
        machine_dependent=True,
    ),
    MetricSpec(
        name="tokens_total",
        label="tokens",
        higher_is_better=False,
        unit="tokens",
        path=("operational", "tokens_total"),
        decimals=0,
    ),
    MetricSpec(
        name="cache_hit_rate",
        label="prompt cache hit rate",
        higher_is_better=True,
        unit="share",
        path=("operational", "cache_hit_rate"),
        decimals=1,
    ),
)

METRICS_BY_NAME: dict[str, MetricSpec] = {m.name: m for m in METRICS}


def get_metric(name: str) -> MetricSpec:
    """The spec named `name`; KeyError listing the known names otherwise."""
    try:
        return METRICS_BY_NAME[name]
    except KeyError:
        known = ", ".join(METRICS_BY_NAME)
        raise KeyError(f"unknown metric '{name}'; known metrics: {known}") from None
