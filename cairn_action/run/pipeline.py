"""One golden case through the system: stale check, retrieve, answer (cached), judge, verify citations.

`run_case` returns the case's record. A provider that stays unreachable after its retries
(`InfrastructureError`) or returns output that cannot be used (`AnswerResult.error`) makes the case an
`error` record and the run goes on; any other exception is a bug in Cairn or a collaborator and escapes.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.errors import InfrastructureError
from cairn_action.golden.models import GoldenCase
from cairn_action.index.chunks import Chunk
from cairn_action.index.evidence import evidence_ranks, support_chunk_ids
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.retrieval.base import Hit
from cairn_action.run.cache import cached_call, sample_key
from cairn_action.run.deps import CaseDeps
from cairn_action.run.graded import judge_answer, total_cost, total_usage
from cairn_action.run.models import CaseRecord, ProviderCall, RetrievedChunk
from cairn_action.run.retrieve import retrieve_case
from cairn_action.run.target_case import is_retrieving_target, run_target_case
from cairn_action.run.verify import verify_citations

ANSWER_NAMESPACE = "answer"
STALE_MESSAGE = "stale: a support quote is no longer verbatim in its document (left out of every score)"


@dataclass(frozen=True)
class _Answered:
    result: AnswerResult
    call: ProviderCall
    elapsed_ms: float
    """Wall time this run spent on the call (a cache read when the result was cached)."""


def _answer(deps: CaseDeps, request: AnswerRequest) -> _Answered:
    """Ask the answerer through the cache; a hit makes no provider call."""
    answerer = deps.answerer
    key = sample_key(answerer.request_key(request), request.sample)
    started = deps.clock()
    result, call = cached_call(
        deps.cache,
        ANSWER_NAMESPACE,
        key,
        AnswerResult,
        lambda: answerer.answer(request),
        clock=deps.clock,
        started=started,
        role="answer",
        provider=answerer.name,
        model_name=answerer.model,
    )
    elapsed_ms = (deps.clock() - started) * 1000.0
    return _Answered(result=result, call=call, elapsed_ms=elapsed_ms)


def _with_planted(hits: list[Hit], planted: Chunk | None) -> tuple[Hit, ...]:
    """The answerer's hits, with a planted passage first and the last one dropped (k stays k). The
    record's `retrieved` keeps what retrieval really returned."""
    if planted is None:
        return tuple(hits)
    top = hits[0].score if hits else 1.0
    kept = hits[: max(0, len(hits) - 1)] if hits else []
    ranked = [Hit(chunk=planted, rank=1, score=top)]
    ranked += [Hit(chunk=h.chunk, rank=i, score=h.score) for i, h in enumerate(kept, start=2)]
    return tuple(ranked)


def run_case(case: GoldenCase, deps: CaseDeps, sample: int = 0) -> CaseRecord:
    """Run one case and return its record (never raises for a provider failure; see the module doc).

    latency_ms is the case's wall time, except that a cached answer counts the latency of the provider
    call that produced it: a rerun from the cache reports the system's latency, not the disk's.
    """
    started = deps.clock()
    base = {
        "case_id": case.id,
        "sample": sample,
        "golden_line": deps.golden_lines.get(case.id),
        "answerable": case.answerable,
    }
    if case.id in deps.stale:
        return CaseRecord(
            **base,
            status="stale",
            error=deps.stale_reasons.get(case.id, STALE_MESSAGE),
            changed_documents=list(deps.changed_documents.get(case.id, [])),
        )
    if is_retrieving_target(deps.answerer):  # the user's own system retrieves for itself: run/target_case.py
        return run_target_case(case, deps, base)

    spans = deps.support.get(case.id, [])
    support_ids, every_span = support_chunk_ids(deps.store, spans)
    located = case.answerable and bool(spans) and len(spans) == len(case.support) and every_span
    found = retrieve_case(
        case.question,
        retriever=deps.retriever,
        depth=deps.depth,
        cache=deps.cache,
        clock=deps.clock,
        rewriter=deps.rewriter,
        reranker=deps.reranker,
    )
    hits = found.hits
    retrieved = [
        RetrievedChunk(
            chunk_id=h.chunk.chunk_id,
            doc=h.chunk.doc,
            rank=h.rank,
            score=h.score,
            **({"start": h.chunk.start, "end": h.chunk.end} if deps.record_spans else {}),
        )
        for h in hits
    ]
    complete_rank, first_rank = evidence_ranks(spans, [h.chunk for h in hits])
    observed = {
        **base,
        "retrieved": retrieved,
        "support_chunk_ids": support_ids,
        "support_located": located,
        "retrieved_support_rank": complete_rank,
        "first_overlap_rank": first_rank,
    }

    before = list(found.calls)  # rewrite and rerank calls

    def failed(error: str, raw_output: str | None = None) -> CaseRecord:
        """An error before any answer: the retrieval calls made so far stay on the record."""
        return CaseRecord(
            **observed,
            calls=before,
            usage=total_usage(before),
            cost_usd=total_cost(before),
            status="error",
            error=error,
            raw_output=raw_output,
            latency_ms=(deps.clock() - started) * 1000.0,
        )

    if found.error is not None:
        return failed(found.error, found.raw_output)
    request = AnswerRequest(
        case_id=case.id,
        question=case.question,
        hits=_with_planted(hits[: deps.top_k], deps.planted.get(case.id)),
        system_canary=deps.system_canary,
        sample=sample,
    )
    try:
        answered = _answer(deps, request)
    except InfrastructureError as exc:
        return failed(exc.message)

    result, calls = answered.result, [*before, answered.call]
    latency = (deps.clock() - started) * 1000.0 - answered.elapsed_ms + answered.call.latency_ms
    spent = {
        "calls": calls,
        "usage": total_usage(calls),
        "cost_usd": total_cost(calls),
        "prompt_prefix_hash": result.prompt_prefix_hash,
        "confidence": result.confidence,
        "confidence_source": result.confidence_source or None,
    }
    if result.error is not None:
        return CaseRecord(
            **observed,
            **spent,
            status="error",
            error=result.error,
            raw_output=result.raw_output,
            latency_ms=latency,
        )
    if result.abstained or result.answer_text is None:
        return CaseRecord(
            **observed,
            **spent,
            status="abstained",
            model_abstained=True,
            answer_text=result.answer_text,
            latency_ms=latency,
        )

    # A grading (LLM) judge's call goes through the cache and onto the record: run/graded.py.
    judged = judge_answer(
        deps.judge, deps.cache, case, result.answer_text, deps.clock, sample=sample, draws=deps.judge_draws
    )
    if judged.calls:
        calls = [*calls, *judged.calls]
        spent.update(calls=calls, usage=total_usage(calls), cost_usd=total_cost(calls))
    if judged.error is not None:
        latency = (deps.clock() - started) * 1000.0 - answered.elapsed_ms + answered.call.latency_ms
        return CaseRecord(
            **observed,
            **spent,
            status="error",
            answer_text=result.answer_text,
            citations=result.citations,
            error=judged.error,
            raw_output=judged.raw_output,
            latency_ms=latency,
        )
    verdict = judged.verdict
    claims = verify_citations(result, deps.store)
    latency = (deps.clock() - started) * 1000.0 - answered.elapsed_ms + answered.call.latency_ms
    return CaseRecord(
        **observed,
        **spent,
        status="answered",
        answer_text=result.answer_text,
        citations=result.citations,
        judge=verdict,
        claims=claims,
        latency_ms=latency,
    )
