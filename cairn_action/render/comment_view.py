"""The comment's view model: every string the template lays out, already formatted and escaped.

The template only places these strings; it computes nothing. Everything that came from a report
(answers, questions, case ids, tags, document names, config names, override reasons) goes through
`escape_text` here or in `tables`, with a length cap, so the size of the comment is bounded by the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.gate.models import Comparison, GateResult, Statistics
from cairn_action.gate.sealed import sealed_result
from cairn_action.render import tables
from cairn_action.render.config_diff import config_diff
from cairn_action.render.escape import escape_text, safe_token
from cairn_action.render.tables import Budget, CriticalView, Section
from cairn_action.render.trend import TrendView

_VERDICT = {
    "pass": "✅ Cairn: pass",
    "regression": "❌ Cairn: regression",
    "overridden": "⚠️ Cairn: regression, overridden",
    "refused": "⛔ Cairn: refused to compare",
    "incomplete": "⏳ Cairn: incomplete, rerun needed",
}


@dataclass(frozen=True, kw_only=True)
class CommentView:
    marker: str
    verdict: str
    """The title: status and config only, so it stays one line of an h3 at GitHub's comment width."""
    headline: str
    reasons: tuple[str, ...]
    override: str
    config_line: str
    """The settings that changed, on one line; or, for more than a few, `config_section`."""
    config_section: Section | None
    leaderboard: str
    critical_heading: str
    critical: tuple[CriticalView, ...]
    critical_omitted: str
    sections: tuple[Section, ...]
    statistics: str
    sample_notes: tuple[str, ...]
    trend: TrendView | None
    notes: tuple[str, ...]
    footer: str
    preface: tuple[str, ...] = ()
    """Lines the Action puts under the verdict (the exam files a pull request changed), escaped."""


def marker(config_name: str) -> str:
    """The hidden first line by which the sticky comment of this config is found again."""
    return f"<!-- cairn:gate config={safe_token(config_name)} -->"


_TITLE_NAME = 24
"""Characters of a config name in the title; the footer carries the whole name."""
NOTE_LIMIT = 700
"""Characters of a note or a reason in the comment, escaped (the report and the decision JSON keep it whole).
The control's note, the longest Cairn writes, states the shift, both tests' counts and the control's cost
in about 450 to 600 characters (gate/control.py shift_note); a longer one is cut with an ellipsis."""


def _subject(comparison: Comparison) -> str:
    candidate = escape_text(comparison.candidate.config_name, limit=_TITLE_NAME)
    if comparison.candidate.config_name == comparison.baseline.config_name:
        return candidate
    return f"{candidate} against baseline {escape_text(comparison.baseline.config_name, limit=_TITLE_NAME)}"


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _statistics(s: Statistics) -> tuple[str, tuple[str, ...]]:
    parts = [
        f"**Statistics** over {s.n_paired} paired cases: {s.b} broke, {s.c} fixed; "
        f"one-sided exact McNemar p = {_p(s.mcnemar_p_one_sided)}"
    ]
    if s.samples_p_one_sided is not None and max(s.samples_before, s.samples_after) > s.n_paired:
        parts.append(
            f"over every sample right in {s.samples_right_before} of {s.samples_before} before and "
            f"{s.samples_right_after} of {s.samples_after} now, one-sided Mantel-Haenszel test stratified "
            f"by case p = {_p(s.samples_p_one_sided)}"
        )
    if s.pairing_p_one_sided is not None:
        parts.append(
            f"on the {s.pairing_cases} case(s) re-asked of both systems now, the base system right in "
            f"{s.pairing_right_before} of {s.pairing_before} and this PR's fresh samples in "
            f"{s.pairing_right_after} of {s.pairing_after}, one-sided Mantel-Haenszel p = "
            f"{_p(s.pairing_p_one_sided)}"
        )
    if s.accuracy_delta is not None and s.accuracy_low is not None and s.accuracy_high is not None:
        parts.append(
            f"correctness {s.accuracy_delta * 100:+.1f} pp "
            f"(95% CI {s.accuracy_low * 100:+.1f} to {s.accuracy_high * 100:+.1f})"
        )
    # Paired over every answerable case, an abstention or error scoring 0: not the table's mean over the
    # answered cases, and the wording says so.
    if s.wilcoxon_method == "none":
        parts.append(f"paired token F1 unchanged on the {s.n_f1} answerable cases both scored")
    elif s.f1_delta is not None and s.f1_low is not None and s.f1_high is not None:
        parts.append(
            f"paired token F1 Δ {s.f1_delta:+.3f} over the {s.n_f1} answerable cases both scored, an "
            f"abstention scoring 0 (95% CI {s.f1_low:+.3f} to "
            f"{s.f1_high:+.3f}), one-sided Wilcoxon signed-rank p = {_p(s.wilcoxon_p_one_sided)} "
            f"({s.wilcoxon_method})"
        )
    line = "; ".join(parts) + f". Intervals: {escape_text(s.bootstrap)}."
    notes = list(s.sample_notes)
    if s.min_detectable_drop is not None:
        notes.append(
            "at this size the exact test catches a correctness drop with 80% power only from about "
            f"{s.min_detectable_drop * 100:.0f} points"
        )
    elif s.n_paired:
        notes.append(
            f"at {s.n_paired} paired cases the exact test cannot catch any correctness drop with 80% power; "
            "the critical-case, bound and guarantee rules still apply"
        )
    return line, tuple(escape_text(n, limit=NOTE_LIMIT) for n in notes)


def _samples_footer(comparison: Comparison) -> list[str]:
    """What asking again cost (confirmation re-asks, repeats); nothing for a deterministic system."""
    if comparison.candidate_deterministic or not comparison.extra_samples:
        return []
    cost = comparison.extra_cost_usd
    spent = "cost unknown" if cost is None else f"${cost:.4f}"
    return [
        f"{comparison.extra_samples} extra sample(s) (confirmation and repeats): "
        f"{comparison.extra_calls} provider call(s), {spent}"
    ]


def _override(result: GateResult, budget: Budget) -> str:
    o = result.decision.override
    if o is None:
        return ""
    own = " (a self-override: they opened this pull request)" if o.self_override else ""
    return (
        f"Overridden by {escape_text(o.actor, limit=64)}{own} with the label "
        f"{escape_text(o.label, limit=64)} "
        f"({escape_text(o.at, limit=40)}). Reason: {escape_text(o.reason, limit=budget.field * 2)}"
    )


def _reasons(result: GateResult, budget: Budget) -> tuple[str, ...]:
    decision = result.decision
    hints = {r.code: r.hint for r in result.comparison.refusals}
    lines = []
    for r in decision.reasons[: budget.reasons]:
        text = escape_text(r.message, limit=NOTE_LIMIT)
        hint = hints.get(r.code, "") if decision.status == "refused" else ""
        lines.append(f"{text}. To fix: {escape_text(hint, limit=400)}" if hint else text)
    left_out = len(decision.reasons) - len(lines)
    if left_out > 0:
        lines.append(f"and {left_out} more reason{'' if left_out == 1 else 's'} (see `cairn gate --json`)")
    return tuple(lines)


def build_view(
    result: GateResult,
    *,
    trend: TrendView | None = None,
    budget: Budget | None = None,
    preface: tuple[str, ...] = (),
) -> CommentView:
    """Everything the comment says, formatted; `budget` caps how much of each list it shows."""
    budget = budget or Budget()
    if result.comparison.candidate.sealed or result.comparison.baseline.sealed:
        result = sealed_result(result)
    comparison, decision = result.comparison, result.decision
    verdict = f"{_VERDICT[decision.status]} for {_subject(comparison)}"
    ident = comparison.candidate
    footer = " · ".join(
        [
            f"Cairn {escape_text(ident.cairn_version, limit=20)}",
            f"config {escape_text(ident.config_name, limit=64)}",
            *([f"target code {escape_text(ident.target_hash, limit=16)}"] if ident.target_hash else []),
            f"golden set {escape_text(ident.golden_version, limit=40)}",
            f"corpus {escape_text(ident.corpus_hash[:12], limit=12)}",
            f"split {escape_text(ident.split, limit=20)}",
            "thresholds from the baseline's config",
            *_samples_footer(comparison),
        ]
    )
    notes = tuple(escape_text(n, limit=NOTE_LIMIT) for n in (*comparison.notes, *decision.notes))
    common = dict(
        marker=marker(ident.config_name),
        verdict=verdict,
        headline=escape_text(decision.headline),
        reasons=_reasons(result, budget),
        notes=notes,
        footer=footer,
        preface=preface,
    )
    if not comparison.comparable or comparison.stats is None:
        return CommentView(
            **common,
            override="",
            config_line="",
            config_section=None,
            leaderboard="",
            critical_heading="",
            critical=(),
            critical_omitted="",
            sections=(),
            statistics="",
            sample_notes=(),
            trend=None,
        )
    critical, critical_omitted = tables.critical_cases(comparison, budget)
    n_critical = len(comparison.critical_losses)
    sections = tables.case_sections(comparison, budget)
    stale = tables.changed_documents_section(comparison, budget)
    sections += [stale] if stale else []
    by_tag = tables.tag_section(comparison, budget)
    sections += [by_tag] if by_tag else []
    sections.append(tables.metrics_section(comparison, decision))
    statistics, sample_notes = _statistics(comparison.stats)
    config_line, config_section = config_diff(comparison, budget)
    return CommentView(
        **common,
        override=_override(result, budget),
        config_line=config_line,
        config_section=config_section,
        leaderboard=tables.leaderboard(comparison),
        critical_heading=f"Critical cases lost ({n_critical})" if n_critical else "",
        critical=tuple(critical),
        critical_omitted=critical_omitted,
        sections=tuple(sections),
        statistics=statistics,
        sample_notes=sample_notes,
        trend=trend,
    )
