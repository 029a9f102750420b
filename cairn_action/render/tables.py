"""The comment's tables, as markdown strings: leaderboard row, critical cases, broke / fixed / changed,
retrieval, added and removed cases, per tag, all metrics.

Every cell that came from a report goes through `escape_text` with a length cap from the budget, and
every table is cut to the budget's row count with a line saying how many rows were left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tabulate import tabulate

from cairn_action.gate.models import CaseChange, CaseSide, Comparison, Decision, MetricDelta
from cairn_action.gate.paired import SUBGROUP_CLAIM_MIN
from cairn_action.render.escape import escape_text
from cairn_action.report.leaderboard import COLUMNS
from cairn_action.score.metrics import get_metric

NONE = "—"
_CHANGE_MARK = {"better": "🟢 ", "worse": "🔴 ", "same": "", "n/a": ""}
# Four columns, so a case's text wraps into few lines at GitHub's comment width: the expected answer goes
# under the question, the support's rank beside each side's confidence.
_CHANGE_HEADERS = ("case", "question and expected answer", "baseline", "this PR")
_OUTCOME_TITLES = (
    ("broke", "Broke: right before, wrong now"),
    ("fixed", "Fixed: wrong before, right now"),
    ("changed", "Changed while still wrong"),
    ("flaky", "Flaky: changed on the first ask, not on the re-asks (not counted as broke or fixed)"),
)


@dataclass(frozen=True, kw_only=True)
class Budget:
    """How much of each list the comment shows; `markdown.render_comment` shrinks it until the body fits."""

    rows: int = 25
    critical: int = 10
    reasons: int = 20
    field: int = 200


@dataclass(frozen=True, kw_only=True)
class Section:
    """A collapsed `<details>` block: a summary line, a table, and a line counting what was cut."""

    summary: str
    table: str
    omitted: str


@dataclass(frozen=True, kw_only=True)
class CriticalView:
    title: str
    question: str
    expected: str
    table: str


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], total: int | None = None) -> tuple[str, str]:
    """A GitHub table of `rows`, and the line saying how many of `total` rows were left out (or "").

    Callers build only the rows they show (cells of long lists are costly to escape), so `total` says
    how many there were.
    """
    left_out = (len(rows) if total is None else total) - len(rows)
    omitted = ""
    if left_out:
        omitted = f"_{_plural(left_out, 'more row')} left out here; `cairn gate --json` has them all._"
    if not rows:
        return "", omitted
    return tabulate(list(rows), headers=list(headers), tablefmt="github", disable_numparse=True), omitted


def conf(value: float | None) -> str:
    return NONE if value is None else f"{value:.2f}"


def rank(value: int | None) -> str:
    return NONE if value is None else str(value)


def samples(side: CaseSide) -> str:
    """`right in 3 of 5 samples`, the evidence a verdict on several samples rests on."""
    return f"right in {side.n_right} of {side.n_samples} sample{'' if side.n_samples == 1 else 's'}"


def why(side: CaseSide, budget: Budget) -> str:
    """Why a wrong side went wrong, one phrase from the report's evidence; "" for a right side."""
    return "" if side.right else escape_text(side.why, limit=budget.field)


def _side(side: CaseSide, budget: Budget, *, answerable: bool) -> str:
    evidence = f"; {samples(side)}" if side.n_samples > 1 else ""
    support = f", support rank {rank(side.support_rank)}" if answerable else ""
    if side.status == "answered":
        text = escape_text(side.answer_text, limit=budget.field, empty="(empty answer)")
    else:
        text = escape_text(side.status)
    text += f" (conf {conf(side.confidence)}{support}{evidence})"
    reason = why(side, budget)
    return f"{text}<br>why: {reason}" if reason else text


def _cited(side: CaseSide) -> str:
    if not side.cited:
        return NONE
    shown = [f"{escape_text(c.doc, limit=80)} (rank {rank(c.rank)})" for c in side.cited[:3]]
    more = f" and {len(side.cited) - 3} more" if len(side.cited) > 3 else ""
    return ", ".join(shown) + more


def case_cell(case_id: str, tags: Sequence[str], *, critical: bool) -> str:
    mark = "⚠️ " if critical else ""
    tag_text = escape_text(", ".join(tags), limit=60)
    return f"{mark}{escape_text(case_id, limit=60)}" + (f" · {tag_text}" if tag_text else "")


def _expected(change: CaseChange, budget: Budget) -> str:
    if not change.answerable:
        return "(should abstain)"
    return escape_text(change.expected_answer, limit=budget.field, empty=NONE)


def _ordered(changes: Sequence[CaseChange]) -> list[CaseChange]:
    return sorted(changes, key=lambda c: (not c.critical, c.case_id))


def _cell(change: CaseChange) -> str:
    return case_cell(change.case_id, change.tags, critical=change.critical)


def _change_rows(changes: Sequence[CaseChange], budget: Budget) -> list[list[str]]:
    return [
        [
            _cell(c),
            f"{escape_text(c.question, limit=budget.field, empty=NONE)}<br>expected: {_expected(c, budget)}",
            _side(c.baseline, budget, answerable=c.answerable),
            _side(c.candidate, budget, answerable=c.answerable),
        ]
        for c in changes
    ]


def case_sections(comparison: Comparison, budget: Budget) -> list[Section]:
    """Broke, fixed, changed while wrong, retrieval lost or gained, added or removed: the non-empty ones."""
    sections = []
    for outcome, title in _OUTCOME_TITLES:
        changes = comparison.by_outcome(outcome)
        if changes:
            rows = _change_rows(_ordered(changes)[: budget.rows], budget)
            body, omitted = table(_CHANGE_HEADERS, rows, len(changes))
            sections.append(Section(summary=f"{title} ({len(changes)})", table=body, omitted=omitted))
    moved = sorted(
        (c for c in comparison.changes if c.retrieval),
        key=lambda c: (c.retrieval != "lost", not c.critical, c.case_id),
    )
    if moved:
        lost = sum(c.retrieval == "lost" for c in moved)
        rows = [
            [
                _cell(c),
                escape_text(c.question, limit=budget.field, empty=NONE),
                f"{c.retrieval} ({rank(c.baseline.support_rank)} → {rank(c.candidate.support_rank)})",
                c.outcome,
            ]
            for c in moved[: budget.rows]
        ]
        body, omitted = table(("case", "question", "support rank", "answer"), rows, len(moved))
        k = comparison.retrieval_k
        summary = f"Retrieval: support left the top {k} for {lost}, entered it for {len(moved) - lost}"
        sections.append(Section(summary=summary, table=body, omitted=omitted))
    refs = [("added", r) for r in comparison.added] + [("removed", r) for r in comparison.removed]
    refs += [("errored", r) for r in comparison.errored]
    if refs:
        rows = [
            [
                what,
                case_cell(r.case_id, r.tags, critical=r.critical),
                escape_text(r.question, limit=budget.field, empty=NONE),
            ]
            for what, r in refs[: budget.rows]
        ]
        body, omitted = table(("", "case", "question"), rows, len(refs))
        summary = f"Cases added ({len(comparison.added)}) or removed ({len(comparison.removed)})"
        if comparison.errored:
            summary += f", errored in this PR ({len(comparison.errored)})"
        sections.append(Section(summary=summary, table=body, omitted=omitted))
    return sections


def changed_documents_section(comparison: Comparison, budget: Budget) -> Section | None:
    """The cases left out because a document their label rests on changed since it was labelled (not a
    vanished quote: the quote may still be there), with the documents to read again."""
    stale = sorted(comparison.changed_documents, key=lambda c: (not c.critical, c.case_id))
    if not stale:
        return None
    rows = []
    for c in stale[: budget.rows]:
        docs = ", ".join(escape_text(d, limit=80) for d in c.documents[:3])
        more = f" and {len(c.documents) - 3} more" if len(c.documents) > 3 else ""
        question = escape_text(c.question, limit=budget.field, empty=NONE)
        rows.append([case_cell(c.case_id, c.tags, critical=c.critical), question, docs + more])
    body, omitted = table(("case", "question", "document changed"), rows, len(stale))
    summary = (
        f"Stale: the document changed since labelling ({len(stale)}), left out of every score until "
        "`cairn golden confirm` records the passage again"
    )
    return Section(summary=summary, table=body, omitted=omitted)


def _share(value: float | None) -> str:
    return NONE if value is None else f"{value * 100:.1f}%"


def _pp(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return NONE
    delta = (after - before) * 100
    if abs(delta) < 1e-9:
        return "no change"
    return f"{'🟢 ' if delta > 0 else '🔴 '}{delta:+.1f} pp"


# The mark on a per-tag delta measured on too few cases for a per-tag claim (the curation guide's claims
# table: 50+ cases per tag); the footnote under the table says what it means.
UNDERPOWERED_MARK = " †"


def _tag_delta(before: float | None, after: float | None, n: int) -> str:
    """The delta cell, marked underpowered when its tag has too few cases and it shows a change (a cell
    saying "no change" or "—" claims nothing, so it stays as it is)."""
    cell = _pp(before, after)
    if n < SUBGROUP_CLAIM_MIN and cell not in (NONE, "no change"):
        return cell + UNDERPOWERED_MARK
    return cell


def _underpowered_footnote(rows: Sequence[Sequence[str]]) -> str:
    if not any(cell.endswith(UNDERPOWERED_MARK) for row in rows for cell in row):
        return ""
    # plain text, no `_..._`: the comment's only emphasis is bold, so any other (from untrusted text)
    # is caught by the hostile-text property test
    return (
        f"{UNDERPOWERED_MARK.strip()} underpowered: fewer than {SUBGROUP_CLAIM_MIN} cases in the tag (or "
        f"{SUBGROUP_CLAIM_MIN} with located support, for recall), too few for a per-tag claim; the delta "
        "is descriptive."
    )


def tag_section(comparison: Comparison, budget: Budget) -> Section | None:
    """Correctness and recall@k per tag over the shared cases, critical tags first; a delta over fewer
    cases than a per-tag claim needs is marked underpowered, cell by cell."""
    if not comparison.tags:
        return None
    rows = [
        [
            ("⚠️ " if t.critical else "") + escape_text(t.tag, limit=60),
            str(t.n),
            f"{_share(t.baseline_correct)} → {_share(t.candidate_correct)}",
            _tag_delta(t.baseline_correct, t.candidate_correct, t.n),
            f"{_share(t.baseline_recall)} → {_share(t.candidate_recall)}" if t.n_with_support else NONE,
            _tag_delta(t.baseline_recall, t.candidate_recall, t.n_with_support),
        ]
        for t in comparison.tags[: budget.rows]
    ]
    k = comparison.retrieval_k
    recall = escape_text(f"recall@{k}")
    headers = ("tag", "n", "correct", "Δ correct", recall, f"Δ {recall}")
    body, omitted = table(headers, rows, len(comparison.tags))
    footnote = _underpowered_footnote(rows)
    omitted = "\n\n".join(x for x in (omitted, footnote) if x)
    return Section(summary="Per tag, critical tags first", table=body, omitted=omitted)


def _delta_cell(m: MetricDelta, *, say_ungated: bool = True) -> str:
    """The change; `say_ungated`: mark a change not gated (measured on another kind of machine: the
    notes say so) here, where the table has no gate column."""
    if m.change == "n/a":
        return NONE
    if m.change == "same":
        return "no change"
    spec = get_metric(m.name)
    shown = (
        spec.format_change(m.baseline, m.candidate)
        if m.baseline is not None and m.candidate is not None
        else spec.format_delta(m.delta)
    )
    text = f"{_CHANGE_MARK[m.change]}{shown}"
    return text if m.gated or not say_ungated else f"{text} (not gated)"


# Answer metrics are means over each report's own answered, answerable cases, so the two columns can
# average different cases; the statistics' token F1 is paired over every answerable case (an abstention
# scores 0). The label names the population, so the two figures do not seem to contradict each other.
_POPULATION = {"exact_match": "answered cases", "token_f1": "answered cases", "judge_score": "answered cases"}


def metric_label(name: str) -> str:
    """A metric's name in the comment, with the cases it is a mean over where that is not all of them."""
    label = escape_text(get_metric(name).label)
    return f"{label} ({_POPULATION[name]})" if name in _POPULATION else label


def leaderboard(comparison: Comparison) -> str:
    """The leaderboard's metrics, one per row: baseline, this PR, and the change.

    One metric per row keeps the table four columns wide, so no cell wraps at GitHub's comment width
    (nine metric columns did); the config names are in the title and the footer.
    """
    metrics = {m.name: m for m in comparison.metrics}
    specs = [
        s
        for s in COLUMNS
        if s.name in metrics
        and (metrics[s.name].baseline is not None or metrics[s.name].candidate is not None)
    ]
    rows = [
        [
            metric_label(s.name),
            s.format(metrics[s.name].baseline),
            s.format(metrics[s.name].candidate),
            _delta_cell(metrics[s.name]),
        ]
        for s in specs
    ]
    return tabulate(rows, headers=["", "baseline", "this PR", "Δ"], tablefmt="github", disable_numparse=True)


def _rule(m: MetricDelta, decision: Decision) -> str:
    name, policy, spec = m.name, decision.policy, get_metric(m.name)
    rules = []
    if name in policy.max_drop:
        rules.append(f"max drop {spec.format_delta(policy.max_drop[name]).lstrip('+')}")
    if name in policy.floors:
        rules.append(f"{'floor' if spec.higher_is_better else 'ceiling'} {spec.format(policy.floors[name])}")
    if not rules:
        return ""
    if not m.gated:
        return f"not gated ({', '.join(rules)})"
    failed = any(r.subject == name for r in decision.reasons)
    return f"{'❌' if failed else '✅'} {', '.join(rules)}"


def metrics_section(comparison: Comparison, decision: Decision) -> Section:
    """Every metric with its change and, where the policy bounds it, whether it held."""
    rows = []
    for m in comparison.metrics:
        spec = get_metric(m.name)
        rows.append(
            [
                metric_label(m.name),
                spec.format(m.baseline),
                spec.format(m.candidate),
                _delta_cell(m, say_ungated=False),
                _rule(m, decision),
            ]
        )
    body = tabulate(
        rows, headers=["metric", "baseline", "this PR", "Δ", "gate"], tablefmt="github", disable_numparse=True
    )
    return Section(summary="All metrics", table=body, omitted="")


def critical_cases(comparison: Comparison, budget: Budget) -> tuple[list[CriticalView], str]:
    """Each critical case lost: question, expected answer, and both sides' answer and evidence."""
    losses = _ordered(comparison.critical_losses)
    views = []
    for c in losses[: budget.critical]:
        rows = [
            ["status", escape_text(c.baseline.status), escape_text(c.candidate.status)],
            [
                "answer",
                escape_text(c.baseline.answer_text, limit=budget.field, empty=NONE),
                escape_text(c.candidate.answer_text, limit=budget.field, empty=NONE),
            ],
            ["confidence", conf(c.baseline.confidence), conf(c.candidate.confidence)],
            ["support rank", rank(c.baseline.support_rank), rank(c.candidate.support_rank)],
            ["cited", _cited(c.baseline), _cited(c.candidate)],
        ]
        if c.baseline.why or c.candidate.why:
            rows.append(["why", why(c.baseline, budget) or NONE, why(c.candidate, budget) or NONE])
        if c.loss_p is not None:
            rows.append(["samples", samples(c.baseline), samples(c.candidate)])
        views.append(
            CriticalView(
                title=_cell(c),
                question=escape_text(c.question, limit=budget.field, empty=NONE),
                expected=_expected(c, budget),
                table=tabulate(
                    rows, headers=["", "baseline", "this PR"], tablefmt="github", disable_numparse=True
                ),
            )
        )
    left_out = len(losses) - len(views)
    omitted = f"_{_plural(left_out, 'more critical case')} left out here._" if left_out else ""
    return views, omitted
