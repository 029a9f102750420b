"""The explorer's summary, laid out by the template: who measured what, the leaderboard row, the
abstention line, the by-tag table and, with a baseline, the gate's decision.

Plain strings: the HTML template autoescapes every one of them (they include config names and tags).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.gate.models import Comparison, GateResult
from cairn_action.report.leaderboard import COLUMNS, primary_metric
from cairn_action.report.models import Report
from cairn_action.score.metrics import get_metric

_SHARE = get_metric("answer_rate")
_DECISION = {
    "pass": "pass",
    "regression": "regression",
    "overridden": "regression, overridden",
    "refused": "refused to compare",
    "incomplete": "incomplete (cases errored or missing)",
}


@dataclass(frozen=True, kw_only=True)
class TagRow:
    tag: str
    critical: bool
    n: int
    answer_rate: str
    correct: str
    recall: str


@dataclass(frozen=True, kw_only=True)
class DecisionView:
    status: str
    label: str
    headline: str
    reasons: tuple[str, ...]
    notes: tuple[str, ...]
    baseline: str


@dataclass(frozen=True, kw_only=True)
class Summary:
    title: str
    identity: tuple[tuple[str, str], ...]
    leaderboard_headers: tuple[str, ...]
    leaderboard_cells: tuple[str, ...]
    primary: str
    abstention: str
    threshold_source: str
    tag_headers: tuple[str, ...]
    tags: tuple[TagRow, ...]
    decision: DecisionView | None
    run_note: str


def _share(value: float | None) -> str:
    return _SHARE.format(value)


def abstention_line(report: Report) -> str:
    """Answer rate, error among answered and the guarantee, read together (the reference's advice)."""
    a = report.abstention
    answered = report.notes.counts.get("answered")
    of = (
        f"answered {answered} of {report.n_cases} cases ({_share(a.answer_rate)})"
        if answered is not None
        else (f"answer rate {_share(a.answer_rate)}")
    )
    guarantee = {True: "guarantee met", False: "guarantee NOT met", None: "no guarantee (nothing answered)"}[
        a.guarantee_met
    ]
    if not report.notes.calibrated:
        guarantee = "no guarantee: uncalibrated"
    return (
        f"{of.capitalize()}; error among answered {_share(a.error_rate_answered)} against a target of "
        f"{_share(a.alpha)} ({guarantee}). Unanswerable cases abstained: "
        f"{_share(a.unanswerable_abstained_rate)}; answerable cases answered: "
        f"{_share(a.answerable_answered_rate)}."
    )


def _tag_rows(report: Report, critical_tags: Sequence[str], comparison: Comparison | None) -> list[TagRow]:
    before = {t.tag: t for t in comparison.tags} if comparison else {}
    rows = []
    for tag, stats in report.by_tag.items():
        correct, recall = _share(stats.correct_rate), _share(stats.recall_at_5)
        if tag in before:
            delta = before[tag]
            correct = f"{_share(delta.baseline_correct)} → {_share(delta.candidate_correct)}"
            recall = f"{_share(delta.baseline_recall)} → {_share(delta.candidate_recall)}"
        rows.append(
            TagRow(
                tag=tag,
                critical=tag in critical_tags,
                n=stats.n,
                answer_rate=_share(stats.answer_rate),
                correct=correct,
                recall=recall,
            )
        )
    rows.sort(key=lambda r: (not r.critical, r.tag.startswith("difficulty:"), r.tag))
    return rows


def _decision(result: GateResult) -> DecisionView:
    d, c = result.decision, result.comparison
    return DecisionView(
        status=d.status,
        label=_DECISION.get(d.status, d.status),
        headline=d.headline,
        reasons=tuple(r.message for r in d.reasons),
        notes=tuple([*c.notes, *d.notes]),
        baseline=f"{c.baseline.config_name} ({c.baseline.created_at}, {c.baseline.n_cases} cases)",
    )


def build_summary(
    report: Report, *, critical_tags: Sequence[str], result: GateResult | None, run_sources: Sequence[str]
) -> Summary:
    identity = (
        ("config", f"{report.config_name} ({report.config_hash})"),
        ("created", report.created_at),
        ("split", f"{report.split}, {report.n_cases} cases scored of {len(report.per_case)} rows"),
        ("golden set", f"version {report.golden_version}"),
        ("corpus", report.corpus_hash[:16]),
        (
            "system",
            f"{report.notes.provider or '?'}, judge {report.notes.judge}, "
            + (
                f"the target's own retrieval (up to {report.notes.retrieval_depth} passages kept)"
                if report.notes.retrieval_mode == "target"
                else f"{report.notes.retrieval_mode} top {report.notes.top_k} of "
                f"{report.notes.retrieval_depth}"
            ),
        ),
        ("cairn", report.cairn_version),
    )
    comparison = result.comparison if result is not None and result.comparison.comparable else None
    if run_sources:
        run_note = f"Retrieved chunks, claims and the judge's rationale from {', '.join(run_sources)}."
    else:
        run_note = (
            "No run artifact given: each case shows its cited chunks and support rank only. "
            "`cairn view REPORT --run RUN.jsonl` adds the retrieved list with scores, the claims and the "
            "judge's rationale."
        )
    return Summary(
        title=f"Cairn case explorer: {report.config_name}",
        identity=identity,
        leaderboard_headers=("config", *(spec.label for spec in COLUMNS)),
        leaderboard_cells=(report.config_name, *(spec.format(spec.read(report)) for spec in COLUMNS)),
        primary=primary_metric([report]).label,
        abstention=abstention_line(report),
        threshold_source=report.notes.threshold_source,
        tag_headers=(
            "tag",
            "cases",
            "answer rate",
            "correct" + (": baseline → this" if comparison else ""),
            "recall@5" + (": baseline → this" if comparison else ""),
        ),
        tags=tuple(_tag_rows(report, critical_tags, comparison)),
        decision=_decision(result) if result is not None else None,
        run_note=run_note,
    )
