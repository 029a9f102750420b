"""Query rewriting and reranking with the provider, against the loopback OpenAI fake: what is sent, how
the reply changes retrieval, the cache, the budget, unusable replies and the case record."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from loopback import Step
from openai_server import FakeOpenAIServer
from provider_kit import openai_chat
from run_fakes import make_case, make_deps

from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.providers.budget import BudgetGuard
from cairn_action.providers.query_llm import (
    RERANK_SYSTEM,
    REWRITE_SYSTEM,
    LLMQueryRewriter,
    LLMReranker,
    parse_ranking,
)
from cairn_action.retrieval.lexical import BM25Retriever
from cairn_action.run.cache import ResultCache
from cairn_action.run.pipeline import run_case
from cairn_action.run.retrieve import retrieve_case

TEXTS = {
    "leave.md": "Inform your manager a minimum of 5 business days before your upcoming leave of absence.",
    "expenses.md": "Reimbursement requests over $25 need itemised receipts.",
    "travel.md": "Book flights at least 30 days in advance.",
}


def _store() -> ChunkStore:
    return ChunkStore(
        chunks=tuple(
            Chunk(chunk_id=f"{doc}#0-{len(text)}", doc=doc, start=0, end=len(text), text=text)
            for doc, text in TEXTS.items()
        )
    )


def _clock() -> float:
    return 0.0


def test_rewrite__question_in_other_words__retrieval_finds_the_passage_and_the_call_is_recorded(
    tmp_path: Path,
) -> None:
    store = _store()
    retriever = BM25Retriever(store)
    question = "How much heads-up when I disappear?"
    assert retriever.retrieve(question, 3) == []  # no word in common with any chunk
    with FakeOpenAIServer() as server:
        rewriter = LLMQueryRewriter(openai_chat(server.base_url, model="gpt-4.1-mini"))
        found = retrieve_case(
            question,
            retriever=retriever,
            depth=3,
            cache=ResultCache(tmp_path),
            clock=_clock,
            rewriter=rewriter,
        )
        sent = server.requests[0].json["messages"]
    assert found.error is None
    assert found.hits[0].chunk.doc == "leave.md"
    assert sent[0]["content"] == REWRITE_SYSTEM
    assert sent[1]["content"] == f"Question: {question}"
    (call,) = found.calls
    assert (call.role, call.provider, call.model, call.cached) == ("rewrite", "openai", "gpt-4.1-mini", False)
    assert call.usage.input_tokens > 0 and call.cost_usd is not None and call.cost_usd > 0


def test_rewrite__second_run__served_from_the_cache_with_no_request(tmp_path: Path) -> None:
    retriever = BM25Retriever(_store())
    with FakeOpenAIServer() as server:
        rewriter = LLMQueryRewriter(openai_chat(server.base_url))
        kwargs = {"retriever": retriever, "depth": 3, "cache": ResultCache(tmp_path), "clock": _clock}
        first = retrieve_case("Who is my boss?", rewriter=rewriter, **kwargs)  # type: ignore[arg-type]
        again = retrieve_case("Who is my boss?", rewriter=rewriter, **kwargs)  # type: ignore[arg-type]
        assert len(server.requests) == 1
    assert [h.chunk.chunk_id for h in again.hits] == [h.chunk.chunk_id for h in first.hits]
    assert again.calls[0].cached and not first.calls[0].cached


def test_rerank__provider_order__replaces_the_retriever_order_with_fresh_ranks(tmp_path: Path) -> None:
    store = _store()
    with FakeOpenAIServer() as server:
        reranker = LLMReranker(openai_chat(server.base_url))
        # "receipts" favours expenses.md for the fake reranker; BM25 ranks travel.md first for "flights".
        found = retrieve_case(
            "flights receipts receipts reimbursement itemised",
            retriever=_FixedOrder(store, ["travel.md", "leave.md", "expenses.md"]),
            depth=3,
            cache=ResultCache(tmp_path),
            clock=_clock,
            reranker=reranker,
        )
        sent = server.requests[0].json["messages"]
    assert sent[0]["content"] == RERANK_SYSTEM
    assert "[1] [travel.md] Book flights" in sent[1]["content"]
    assert [h.chunk.doc for h in found.hits] == ["expenses.md", "travel.md", "leave.md"]
    assert [h.rank for h in found.hits] == [1, 2, 3]
    assert [h.score for h in found.hits] == [3.0, 2.0, 1.0]
    assert found.calls[0].role == "rerank"


def test_rerank__reply_without_a_ranking__the_case_is_an_error_with_the_raw_reply(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.script(Step(content="I cannot rank these."))
        found = retrieve_case(
            "flights",
            retriever=_FixedOrder(_store(), ["travel.md", "leave.md"]),
            depth=3,
            cache=ResultCache(tmp_path),
            clock=_clock,
            reranker=LLMReranker(openai_chat(server.base_url)),
        )
    assert found.error == "rerank openai: no ranking in the reply"
    assert found.raw_output == "I cannot rank these."
    assert len(found.calls) == 1  # paid for, so on the record


def test_parse_ranking__invented_and_repeated_numbers__ignored() -> None:
    assert parse_ranking('{"ranking": [3, 9, 3, "1"]}', 3) == [2, 0]
    assert parse_ranking("2, then 1", 3) == [1, 0]
    assert parse_ranking("none", 3) is None


def test_run_case__budget_spent__rewrite_not_made_and_the_case_is_an_error(tmp_path: Path) -> None:
    budget = BudgetGuard(0.0)
    with FakeOpenAIServer() as server:
        deps = make_deps(tmp_path, cases=(make_case(),))
        deps = dataclasses.replace(
            deps, rewriter=LLMQueryRewriter(openai_chat(server.base_url, budget=budget))
        )
        record = run_case(make_case(), deps)
        assert server.requests == []
    assert record.status == "error"
    assert record.error is not None and record.error.startswith("budget reached")
    assert record.calls == []


def test_run_case__rewrite_and_rerank__calls_and_cost_counted_before_the_answer(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        deps = make_deps(tmp_path, cases=(make_case(),))
        chat = openai_chat(server.base_url, model="gpt-4.1-mini")
        deps = dataclasses.replace(deps, rewriter=LLMQueryRewriter(chat), reranker=LLMReranker(chat))
        record = run_case(make_case(), deps)
    assert record.status == "answered"
    assert [c.role for c in record.calls] == ["rewrite", "rerank", "answer"]
    paid = [c.cost_usd for c in record.calls if c.role != "answer"]
    assert all(cost is not None and cost > 0 for cost in paid)
    assert record.cost_usd is not None and record.cost_usd >= sum(c for c in paid if c is not None)
    assert record.usage.input_tokens == sum(c.usage.input_tokens for c in record.calls)


class _FixedOrder:
    """A retriever that returns the named documents' chunks in the given order."""

    mode = "fixed"

    def __init__(self, store: ChunkStore, docs: list[str]) -> None:
        self.store = store
        self.docs = docs

    def retrieve(self, query: str, depth: int) -> list:
        from cairn_action.retrieval.base import Hit

        by_doc = {c.doc: c for c in self.store.chunks}
        return [
            Hit(chunk=by_doc[d], rank=i, score=float(10 - i))
            for i, d in enumerate(self.docs[:depth], start=1)
        ]
