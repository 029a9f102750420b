"""One case through the user's own system (`target`), which retrieves for itself.

Cairn's retriever is not used: the target gets the question and returns its answer with the passages it
retrieved, and the record's retrieval is those passages, in the target's order (deduplicated by id, cut
at the retrieval depth). Support is located as for Cairn's own chunks: a passage that was found in the
corpus covers its character span, so the evidence-complete rank follows the same rule
(`index.evidence`); a passage that could not be found still covers every support quote whose words it
contains. Citations are verified against the passages' text. The target's answers are not cached
(Cairn cannot see when the system changed); the judge's calls are, as everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from cairn_action.errors import InfrastructureError
from cairn_action.golden.models import GoldenCase, ResolvedSupport
from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.index.evidence import evidence_ranks, support_chunk_ids
from cairn_action.providers.base import AnswerRequest
from cairn_action.run.graded import judge_answer, total_cost, total_usage
from cairn_action.run.judge import contains_tokens
from cairn_action.run.models import CaseRecord, ProviderCall, RetrievedChunk
from cairn_action.run.verify import verify_citations
from cairn_action.squad import normalize_answer

if TYPE_CHECKING:  # providers.target (the HTTP target, ~10 ms to import) only for a run that has one
    from cairn_action.providers.target import Passage, TargetAnswer
    from cairn_action.run.deps import CaseDeps


class RetrievingTarget(Protocol):
    name: str
    model: str
    retrieves: bool

    def ask(self, request: AnswerRequest) -> TargetAnswer: ...


def is_retrieving_target(answerer: object) -> bool:
    """True for the user's own system, which returns the passages it retrieved."""
    return getattr(answerer, "retrieves", False) is True


def _unique(passages: Sequence[Passage], depth: int) -> list[Passage]:
    seen: set[str] = set()
    kept = []
    for passage in passages:
        if passage.id not in seen:
            seen.add(passage.id)
            kept.append(passage.model_copy(update={"rank": len(kept) + 1}))
    return kept[:depth]


def _evidence_chunk(passage: Passage, case: GoldenCase, spans: Sequence[ResolvedSupport]) -> Chunk:
    """What the passage covers, as a chunk: its located span, else the quotes it contains, else nothing."""
    if passage.located_doc is not None and passage.start is not None and passage.end is not None:
        return Chunk(passage.id, passage.located_doc, passage.start, passage.end, passage.text)
    words = normalize_answer(passage.text).split()
    covered = [
        span
        for quote, span in zip(case.support, spans, strict=False)
        if contains_tokens(words, normalize_answer(quote.quote).split())
    ]
    if covered:
        same_doc = [s for s in covered if s.doc_path == covered[0].doc_path]
        start, end = min(s.start for s in same_doc), max(s.end for s in same_doc)
        return Chunk(passage.id, covered[0].doc_path, start, end, passage.text)
    return Chunk(passage.id, "", 0, 0, passage.text)


def _where(passage: Passage) -> dict[str, Any]:
    """Where a sealed run's passage lies, for the scoring side: its span when found, else its text."""
    if passage.located_doc is not None and passage.start is not None and passage.end is not None:
        return {"start": passage.start, "end": passage.end}
    return {"text": passage.text}


def _context(
    used: Sequence[str] | None,
    passages: Sequence[Passage],
    evidence: Sequence[Chunk],
    spans: Sequence[ResolvedSupport],
    *,
    answerable: bool,
) -> dict[str, Any]:
    """The passages the target's answerer used (as it reported) and whether they hold every quote."""
    if used is None:
        return {}
    wanted = set(used)
    ids = [p.id for p in passages if p.id in wanted]  # in rank order; beyond the depth is not kept
    given = [chunk for p, chunk in zip(passages, evidence, strict=True) if p.id in wanted]
    covered = evidence_ranks(spans, given)[0] is not None if answerable and spans else None
    return {"context_ids": ids, "support_in_context": covered}


def run_target_case(case: GoldenCase, deps: CaseDeps, base: dict[str, Any]) -> CaseRecord:
    """The record of `case` answered by the target in `deps.answerer` (see the module docstring)."""
    started = deps.clock()
    target: RetrievingTarget = deps.answerer  # type: ignore[assignment]
    spans = deps.support.get(case.id, [])
    support_ids, every_span = support_chunk_ids(deps.store, spans)
    located = case.answerable and bool(spans) and len(spans) == len(case.support) and every_span
    support = {"support_chunk_ids": support_ids, "support_located": located}
    try:
        result = target.ask(
            AnswerRequest(case_id=case.id, question=case.question, hits=(), sample=base.get("sample", 0))
        )
    except InfrastructureError as exc:
        latency = (deps.clock() - started) * 1000.0
        return CaseRecord(**base, **support, status="error", error=exc.message, latency_ms=latency)
    call_ms = (deps.clock() - started) * 1000.0

    passages = _unique(result.passages, deps.depth)
    evidence = [_evidence_chunk(p, case, spans) for p in passages]
    complete_rank, first_rank = evidence_ranks(spans, evidence)
    context = _context(result.used, passages, evidence, spans, answerable=case.answerable)
    observed = {
        **context,
        **base,
        **support,
        "retrieved": [
            RetrievedChunk(
                chunk_id=p.id,
                doc=p.located_doc or p.doc or "",
                rank=p.rank,
                score=p.score or 0.0,
                **(_where(p) if deps.record_spans else {}),
            )
            for p in passages
        ],
        "retrieved_support_rank": complete_rank,
        "first_overlap_rank": first_rank,
        "confidence": result.confidence,
        "confidence_source": result.confidence_source or None,
    }
    call = ProviderCall(
        role="answer",
        provider=target.name,
        model=target.model,
        cached=False,
        usage=result.usage,
        cost_usd=result.cost_usd,
        latency_ms=call_ms,
    )
    calls = [call]

    def spent() -> dict[str, Any]:
        return {
            "calls": calls,
            "usage": total_usage(calls),
            "cost_usd": total_cost(calls),
            "latency_ms": (deps.clock() - started) * 1000.0,
        }

    if result.error is not None:
        return CaseRecord(
            **observed, **spent(), status="error", error=result.error, raw_output=result.raw_output
        )
    if result.abstained or result.answer_text is None:
        return CaseRecord(**observed, **spent(), status="abstained", model_abstained=True)

    judged = judge_answer(
        deps.judge,
        deps.cache,
        case,
        result.answer_text,
        deps.clock,
        sample=base.get("sample", 0),
        draws=deps.judge_draws,
    )
    calls.extend(judged.calls)
    answer = {"answer_text": result.answer_text, "citations": result.citations}
    if judged.error is not None:
        return CaseRecord(
            **observed, **answer, **spent(), status="error", error=judged.error, raw_output=judged.raw_output
        )
    store = ChunkStore(
        chunks=tuple(Chunk(p.id, p.located_doc or p.doc or "", 0, len(p.text), p.text) for p in passages)
    )
    claims = verify_citations(result, store)
    return CaseRecord(**observed, **answer, **spent(), status="answered", judge=judged.verdict, claims=claims)
