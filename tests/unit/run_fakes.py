"""Fakes and builders for the run tests: a two-document store, a fixed retriever, a counting answerer."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from cairn_action.golden.models import GoldenCase, ResolvedSupport, SupportQuote
from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.retrieval.base import Hit
from cairn_action.run.cache import ResultCache
from cairn_action.run.deps import CaseDeps
from cairn_action.run.judge import LexicalJudge
from cairn_action.run.models import CaseRecord, CaseStatus, Citation, Environment, RunHeader, Usage

POLICY = "Returns. A customer has 14 days from delivery to request a credit. Credits post within 5 days."
HOURS = "Hours. The depot opens at 06:00 on weekdays. It closes at 14:00 on Saturdays."
QUOTE = "A customer has 14 days from delivery to request a credit"


def make_store() -> ChunkStore:
    """Two documents, each cut in two overlapping chunks."""
    chunks = []
    for doc, text in (("policy.md", POLICY), ("hours.md", HOURS)):
        for start, end in ((0, 60), (40, len(text))):
            chunks.append(
                Chunk(chunk_id=f"{doc}#{start}-{end}", doc=doc, start=start, end=end, text=text[start:end])
            )
    return ChunkStore(chunks=tuple(chunks))


def make_case(case_id: str = "q1", *, answerable: bool = True) -> GoldenCase:
    if not answerable:
        return GoldenCase(
            id=case_id, question="Who founded the depot?", answerable=False, tags=["unanswerable"]
        )
    return GoldenCase(
        id=case_id,
        question="How many days does a customer have to request a credit?",
        expected_answer="14 days",
        support=[SupportQuote(doc="policy.md", quote=QUOTE)],
    )


def quote_span() -> ResolvedSupport:
    start = POLICY.index(QUOTE)
    return ResolvedSupport(doc_path="policy.md", start=start, end=start + len(QUOTE))


class FixedRetriever:
    """Returns the store's chunks in a fixed order (policy first), whatever the query."""

    mode = "fixed"

    def __init__(self, store: ChunkStore, order: tuple[int, ...] = (1, 0, 2, 3)) -> None:
        self.chunks = [store.chunks[i] for i in order]
        self.calls = 0

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        self.calls += 1
        return [Hit(chunk=c, rank=r, score=10.0 - r) for r, c in enumerate(self.chunks[:depth], start=1)]


class CountingAnswerer:
    """Answers "14 days" citing the hit that says so; counts its calls; `behaviour` can replace the answer."""

    name = "fake"
    model = "fake-1"

    def __init__(self, behaviour: Callable[[AnswerRequest], AnswerResult] | None = None) -> None:
        self.behaviour = behaviour
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def request_key(self, request: AnswerRequest) -> str:
        return f"fake-1|{request.question}|{','.join(h.chunk.chunk_id for h in request.hits)}"

    def answer(self, request: AnswerRequest) -> AnswerResult:
        with self._lock:
            self.calls.append(request.case_id)
        if self.behaviour is not None:
            return self.behaviour(request)
        cited = next((h.chunk for h in request.hits if "14 days" in h.chunk.text), request.hits[0].chunk)
        return AnswerResult(
            answer_text="14 days",
            citations=[Citation(chunk_id=cited.chunk_id, quote="14 days")],
            confidence=0.9,
            confidence_source="fake",
            usage=Usage(input_tokens=100, output_tokens=3),
            cost_usd=0.001,
            prompt_prefix_hash="prefix-1",
        )


class FakeClock:
    """A monotonic clock that advances `step` seconds at every reading."""

    def __init__(self, step: float = 0.01) -> None:
        self.now = 0.0
        self.step = step
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += self.step
            return self.now


def make_deps(
    tmp_path: Path,
    answerer: CountingAnswerer | None = None,
    *,
    cases: tuple[GoldenCase, ...] = (),
    stale: frozenset[str] = frozenset(),
    clock: Callable[[], float] | None = None,
) -> CaseDeps:
    store = make_store()
    support = {c.id: ([quote_span()] if c.answerable else []) for c in cases} or {"q1": [quote_span()]}
    return CaseDeps(
        store=store,
        retriever=FixedRetriever(store),
        answerer=answerer or CountingAnswerer(),
        judge=LexicalJudge(0.5),
        cache=ResultCache(tmp_path / "cache"),
        support=support,
        stale=stale,
        top_k=2,
        depth=4,
        golden_lines={c.id: i for i, c in enumerate(cases, start=1)},
        clock=clock or FakeClock(),
    )


def make_header(**changes: object) -> RunHeader:
    fields: dict[str, object] = {
        "cairn_version": "0.1.0",
        "config_name": "default",
        "config_hash": "0123456789abcdef",
        "corpus_hash": "c" * 64,
        "golden_version": "1",
        "golden_hash": "g" * 64,
        "provider": "fake",
        "model": "fake-1",
        "judge": "lexical",
        "retrieval_mode": "fixed",
        "top_k": 2,
        "depth": 4,
        "n_cases": 3,
        "started_at": "2026-01-01T00:00:00Z",
        "environment": Environment(os="linux", arch="x86_64", python="3.12.0", cpu_count=2),
    }
    fields.update(changes)
    return RunHeader.model_validate(fields)


def make_record(case_id: str, line: int | None = None, status: CaseStatus = "answered") -> CaseRecord:
    return CaseRecord(
        case_id=case_id, golden_line=line, answerable=True, status=status, answer_text="14 days"
    )
