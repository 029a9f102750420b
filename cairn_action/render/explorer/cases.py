"""The case explorer's data: one plain, JSON-ready dict per case, for the page's script to lay out.

Built from the report's per_case rows; the run artifact, when given, adds what the report leaves out
on purpose (the whole retrieved list with its scores, the claims and the judge's rationale), and the
gate's comparison, when there is a baseline, adds how each case changed. Nothing here is escaped: the
page embeds the data as JSON (`explorer.embed_json`) and its script only ever sets `textContent`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cairn_action.gate.models import CaseChange, CaseRef, CaseSide, Comparison
from cairn_action.gate.outcome import is_right
from cairn_action.report.models import PerCase
from cairn_action.run.models import CaseRecord

Json = dict[str, Any]

SAMPLE_FIELDS = ("n_samples", "n_right", "agreement")
"""Per-case sample counts, when the report has them (several answers per case): read by name, so a
report without them still renders, and the detail view shows a samples line once they exist."""

_OUTCOME_ORDER = {"broke": 0, "fixed": 1, "changed": 2, "flaky": 3, "unchanged": 4}
"""The diff's order; an outcome the gate adds later sorts last rather than failing the page."""


def samples(row: PerCase) -> Json | None:
    """`{n, right, agreement, others}` for a case answered several times, else None; `others` lists the
    samples after the first (status, right, confidence, answer) when the row carries them."""
    values = {name: getattr(row, name, None) for name in SAMPLE_FIELDS}
    n = values["n_samples"]
    if not isinstance(n, int) or n < 2:
        return None
    others = [
        {
            "sample": getattr(s, "sample", None),
            "status": getattr(s, "status", None),
            "right": getattr(s, "right", None),
            "confidence": getattr(s, "confidence", None),
            "answer": getattr(s, "answer_text", None),
        }
        for s in getattr(row, "samples", None) or []
    ]
    return {"n": n, "right": values["n_right"], "agreement": values["agreement"], "others": others}


RETRIEVED_COLUMNS = ("rank", "chunk_id", "doc", "score", "support", "cited")
"""A retrieved chunk is a row of these, not an object, and `doc` is an index into the page's list of
documents: ten chunks a case, so at 10,000 cases keys and repeated names would be most of the file."""


def _retrieved(record: CaseRecord, cited: set[str], docs: dict[str, int]) -> list[list[Any]]:
    support = set(record.support_chunk_ids)
    return [
        [
            c.rank,
            c.chunk_id,
            docs.setdefault(c.doc, len(docs)),
            round(c.score, 4),
            c.chunk_id in support,
            c.chunk_id in cited,
        ]
        for c in record.retrieved
    ]


def _from_run(record: CaseRecord | None, row: PerCase, docs: dict[str, int]) -> Json:
    """What only the run artifact has; None values tell the page to say "pass --run"."""
    if record is None:
        return {"retrieved": None, "claims": None, "judge": None, "quotes": None}
    verdict = record.judge
    judge = None
    if verdict is not None:
        judge = {
            "name": verdict.name,
            "rule_version": verdict.rule_version,
            "correct": verdict.correct,
            "score": verdict.score,
            "rationale": verdict.rationale,
        }
    # The report counts claims of answers the threshold let through; the artifact also keeps those of a
    # withheld answer, which the page shows under it.
    claims = [
        {"text": c.text, "cited": list(c.cited_chunk_ids), "verified": c.verified} for c in record.claims
    ]
    return {
        "retrieved": _retrieved(record, {c.chunk_id for c in row.cited}, docs),
        "claims": claims,
        "judge": judge,
        "quotes": {c.chunk_id: c.quote for c in record.citations if c.quote},
    }


def _side(side: CaseSide) -> Json:
    return {
        "status": side.status,
        "right": side.right,
        "correct": side.correct,
        "answer": side.answer_text,
        "confidence": side.confidence,
        "support_rank": side.support_rank,
        "token_f1": side.token_f1,
    }


def change_of(change: CaseChange) -> Json:
    """How a shared case changed, as the gate computed it (never recomputed here). The candidate's side
    is the case's own row, so only the baseline's is carried."""
    return {
        "outcome": change.outcome,
        "transition": change.transition,
        "retrieval": change.retrieval,
        "critical": change.critical,
        "baseline": _side(change.baseline),
    }


def case_data(
    row: PerCase,
    *,
    critical_tags: Iterable[str],
    record: CaseRecord | None,
    change: CaseChange | None,
    docs: dict[str, int],
) -> Json:
    critical = set(critical_tags)
    return {
        "id": row.case_id,
        "tags": list(row.tags),
        "critical": any(t in critical for t in row.tags),
        "answerable": row.answerable,
        "difficulty": row.difficulty,
        "status": row.status,
        "by_threshold": row.abstained_by_threshold,
        "correct": row.correct,
        "right": is_right(row),
        "confidence": row.confidence,
        "support_rank": row.retrieved_support_rank,
        "support_located": row.support_located,
        # A target's answerer's passages, as it reported them (None: it did not say).
        "context_size": row.context_size,
        "context": record.context_ids if record is not None else None,
        "token_f1": row.token_f1,
        "exact_match": row.exact_match,
        "judge_score": row.judge_score,
        "citation_validity": row.citation_validity,
        "claims_verified": [row.n_claims_verified, row.n_claims],
        "latency_ms": round(row.latency_ms, 1),
        "cost_usd": row.cost_usd,
        "question": row.question,
        "expected": row.expected_answer,
        "answer": row.answer_text,
        "error": row.error,
        "cited": [{"chunk_id": c.chunk_id, "doc": c.doc, "rank": c.rank} for c in row.cited],
        "samples": samples(row),
        "change": change_of(change) if change is not None else None,
        "added": False,
        **_from_run(record, row, docs),
    }


def cases_data(
    rows: Sequence[PerCase],
    *,
    critical_tags: Sequence[str],
    records: Mapping[str, CaseRecord] | None,
    comparison: Comparison | None,
    docs: dict[str, int],
) -> list[Json]:
    """Every row of the report, in its order, with the run's detail and the gate's change when given;
    `docs` collects the retrieved chunks' documents (name to index)."""
    changes = {c.case_id: c for c in comparison.changes} if comparison else {}
    added = {c.case_id for c in comparison.added} if comparison else set()
    out = []
    for row in rows:
        item = case_data(
            row,
            critical_tags=critical_tags,
            record=records.get(row.case_id) if records is not None else None,
            change=changes.get(row.case_id),
            docs=docs,
        )
        item["added"] = row.case_id in added
        out.append(item)
    return out


def _change_key(change: CaseChange) -> tuple[int, int, int, str]:
    return (
        0 if change.critical else 1,
        _OUTCOME_ORDER.get(change.outcome, len(_OUTCOME_ORDER)),
        0 if change.retrieval == "lost" else 1,
        change.case_id,
    )


def diff_order(comparison: Comparison) -> list[str]:
    """The changed cases' ids, critical first, then broke, fixed, changed, retrieval only; then by id."""
    return [c.case_id for c in sorted(comparison.changes, key=_change_key)]


def removed_data(refs: Sequence[CaseRef]) -> list[Json]:
    """Cases the baseline has and this report does not (no row to show, only the fact)."""
    return [
        {
            "id": r.case_id,
            "question": r.question,
            "tags": list(r.tags),
            "critical": r.critical,
            "right": r.right,
        }
        for r in sorted(refs, key=lambda r: (not r.critical, r.case_id))
    ]
