"""The scoring side of a sealed golden set: what the run could not know, filled in with the key.

A run of a sealed set (`header.sealed`) held only the questions (golden/sealed.py): every record says
`answerable: true`, locates no support and carries the run's placeholder verdict. Here, where the key is
(the Action's trusted process, the `gate` job, `cairn score`), each record gets its case's answerability,
its support located in the passages the run retrieved (their spans, which a sealed run records, or a
target's passage text when the target's passage was not found in the corpus, as run/target_case.py
does), stale cases marked, and every answer judged again with the judge of whoever scores. Nothing is
asked again: the answers are the system's, the rest is the key's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from cairn_action.golden.models import GoldenCase, GoldenSet, ResolvedSupport
from cairn_action.golden.support import resolve_support
from cairn_action.index.chunks import Chunk
from cairn_action.index.corpus import Corpus
from cairn_action.index.evidence import evidence_ranks
from cairn_action.run.cache import ResultCache
from cairn_action.run.graded import JUDGE_DRAWS, judge_answer, total_cost, total_usage
from cairn_action.run.judge import contains_tokens
from cairn_action.run.models import CaseRecord, RetrievedChunk
from cairn_action.run.pipeline import STALE_MESSAGE
from cairn_action.squad import normalize_answer


def _evidence(item: RetrievedChunk, case: GoldenCase, spans: Sequence[ResolvedSupport]) -> Chunk:
    """What a retrieved passage covers: its recorded span, else the quotes its text contains."""
    if item.start is not None and item.end is not None:
        return Chunk(item.chunk_id, item.doc, item.start, item.end, "")
    words = normalize_answer(item.text or "").split()
    covered = [
        span
        for quote, span in zip(case.support, spans, strict=False)
        if quote.quote and contains_tokens(words, normalize_answer(quote.quote).split())
    ]
    if covered:
        same_doc = [s for s in covered if s.doc_path == covered[0].doc_path]
        start, end = min(s.start for s in same_doc), max(s.end for s in same_doc)
        return Chunk(item.chunk_id, covered[0].doc_path, start, end, "")
    return Chunk(item.chunk_id, "", 0, 0, "")


def _overlaps(chunk: Chunk, spans: Sequence[ResolvedSupport]) -> bool:
    return any(chunk.doc == s.doc_path and chunk.start < s.end and s.start < chunk.end for s in spans)


def locate_sealed(
    records: Sequence[CaseRecord], golden: GoldenSet, corpus: Corpus, critical_tags: Sequence[str]
) -> list[CaseRecord]:
    """The records of a sealed run with answerability, support and staleness from the key."""
    support = resolve_support(golden, corpus, list(critical_tags))
    support.raise_for_errors()
    reasons = support.reasons()
    cases = golden.by_id()
    located: list[CaseRecord] = []
    for record in records:
        case = cases.get(record.case_id)
        if case is None:  # not in the key: the scorer's record check names it
            located.append(record)
            continue
        base = {"answerable": case.answerable, "golden_line": golden.line_of.get(case.id)}
        if case.id in support.stale:
            update = {**base, "status": "stale", "error": reasons.get(case.id, STALE_MESSAGE), "judge": None}
            located.append(record.model_copy(update=update))
            continue
        spans = support.resolved.get(case.id, [])
        chunks = [_evidence(item, case, spans) for item in record.retrieved]
        complete, first = evidence_ranks(spans, chunks)
        in_context = None
        if record.context_ids is not None and case.answerable and spans:
            wanted = set(record.context_ids)
            in_context = evidence_ranks(spans, [c for c in chunks if c.chunk_id in wanted])[0] is not None
        update = {
            **base,
            "support_chunk_ids": [c.chunk_id for c in chunks if _overlaps(c, spans)],
            "support_located": case.answerable and bool(spans) and len(spans) == len(case.support),
            "retrieved_support_rank": complete,
            "first_overlap_rank": first,
            "support_in_context": in_context,
        }
        located.append(record.model_copy(update=update))
    return located


def judge_again(
    judge: object,
    records: Sequence[CaseRecord],
    cases: Mapping[str, GoldenCase],
    *,
    cache: ResultCache,
    clock: Callable[[], float],
    workers: int = 1,
    draws: int = JUDGE_DRAWS,
) -> list[CaseRecord]:
    """Every answered record judged by `judge` (the record's own verdict and judge calls dropped); an
    answer is never asked again. Each sample is its own judge draw (run/graded.py), and a judge that is
    not deterministic decides each sample by a majority of up to `draws` draws."""

    def one(record: CaseRecord) -> CaseRecord:
        case = cases.get(record.case_id)
        if case is None or record.status != "answered" or record.answer_text is None:
            return record
        judged = judge_answer(
            judge, cache, case, record.answer_text, clock, sample=record.sample, draws=draws
        )  # type: ignore[arg-type]
        calls = [c for c in record.calls if c.role != "judge"] + list(judged.calls)
        update: dict[str, object] = {
            "calls": calls,
            "usage": total_usage(calls),
            "cost_usd": total_cost(calls),
        }
        if judged.error is not None:
            update.update(status="error", judge=None, error=judged.error, raw_output=judged.raw_output)
        else:
            update["judge"] = judged.verdict
        return record.model_copy(update=update)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(one, records))
