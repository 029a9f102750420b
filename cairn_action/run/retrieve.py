"""A case's retrieval: the question (rewritten by the provider, if configured), the retriever, then the
provider's reranking (if configured).

The rewrite and rerank calls go through the run's content-addressed cache (a rerun pays for neither),
the budget, rate limits and retries like answering, and land on the case record as `rewrite` and
`rerank` provider calls with their tokens and cost. A provider that stays unreachable, a budget that is
spent, or a reply that cannot be used makes the case an `error` with the calls made so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from cairn_action.errors import InfrastructureError
from cairn_action.index.chunks import Chunk
from cairn_action.retrieval.base import Hit, Retriever
from cairn_action.run.cache import ResultCache, cached_call
from cairn_action.run.models import ProviderCall

if TYPE_CHECKING:  # imported when a rewriter or reranker is configured: a plain run needs neither
    from cairn_action.providers.query_llm import RerankResult, RewriteResult

REWRITE_NAMESPACE = "rewrite"
RERANK_NAMESPACE = "rerank"


class QueryRewriter(Protocol):
    provider: str
    model: str

    def request_key(self, question: str) -> str: ...

    def rewrite(self, question: str) -> RewriteResult: ...


class Reranker(Protocol):
    provider: str
    model: str

    def request_key(self, question: str, chunks: list[Chunk]) -> str: ...

    def rerank(self, question: str, chunks: list[Chunk]) -> RerankResult: ...


@dataclass(frozen=True)
class Retrieved:
    hits: list[Hit]
    calls: tuple[ProviderCall, ...] = ()
    error: str | None = None
    raw_output: str | None = None


def reorder(hits: list[Hit], order: list[int]) -> list[Hit]:
    """`hits` in the reranker's `order` (positions), the ones it left out after in retrieval order; ranks
    1..n and scores strictly decreasing (n, n-1, ..., 1), since the reranker gives an order, not scores."""
    chosen = [hits[i] for i in order if 0 <= i < len(hits)]
    taken = {id(h) for h in chosen}
    ordered = chosen + [h for h in hits if id(h) not in taken]
    n = len(ordered)
    return [
        Hit(chunk=h.chunk, rank=rank, score=float(n - rank + 1)) for rank, h in enumerate(ordered, start=1)
    ]


def retrieve_case(
    question: str,
    *,
    retriever: Retriever,
    depth: int,
    cache: ResultCache,
    clock: Callable[[], float],
    rewriter: QueryRewriter | None = None,
    reranker: Reranker | None = None,
) -> Retrieved:
    """The ranked chunks for `question` (module docstring)."""
    calls: list[ProviderCall] = []

    def ask(
        role: Literal["rewrite", "rerank"],
        who: QueryRewriter | Reranker,
        key: str,
        model: type[RewriteResult] | type[RerankResult],
        call: Callable[[], RewriteResult | RerankResult],
    ) -> RewriteResult | RerankResult:
        result, made = cached_call(
            cache,
            role,
            key,
            model,  # type: ignore[arg-type]
            call,  # type: ignore[arg-type]
            clock=clock,
            started=clock(),
            role=role,
            provider=who.provider,
            model_name=who.model,
        )
        calls.append(made)
        return result  # type: ignore[return-value]

    rewritten: RewriteResult | None = None
    hits: list[Hit] = []
    try:
        if rewriter is not None or reranker is not None:
            from cairn_action.providers.query_llm import RerankResult, RewriteResult, search_text
        if rewriter is not None:
            rewritten = ask(  # type: ignore[assignment]
                "rewrite",
                rewriter,
                rewriter.request_key(question),
                RewriteResult,
                lambda: rewriter.rewrite(question),
            )
            assert rewritten is not None
            if rewritten.error is not None:
                return Retrieved([], tuple(calls), rewritten.error, rewritten.raw_output)
        hits = retriever.retrieve(question if rewritten is None else search_text(question, rewritten), depth)
        if reranker is not None and len(hits) > 1:
            chunks = [h.chunk for h in hits]
            ranked = ask(
                "rerank",
                reranker,
                reranker.request_key(question, chunks),
                RerankResult,
                lambda: reranker.rerank(question, chunks),
            )
            assert isinstance(ranked, RerankResult)
            if ranked.error is not None:
                return Retrieved(hits, tuple(calls), ranked.error, ranked.raw_output)
            hits = reorder(hits, ranked.order)
    except InfrastructureError as exc:  # unreachable after retries, or the budget is spent
        return Retrieved(hits, tuple(calls), exc.message)
    return Retrieved(hits, tuple(calls))
