"""Builders for scoring tests: golden cases, run records and headers with only the fields a test names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cairn_action.golden.models import GoldenCase, GoldenSet, SupportQuote
from cairn_action.run.models import (
    CaseRecord,
    Citation,
    Claim,
    Environment,
    JudgeVerdict,
    ProviderCall,
    RetrievedChunk,
    RunHeader,
    Usage,
)

ENV = Environment(os="Linux", arch="x86_64", python="3.12.1", cpu_count=2)


def make_case(
    case_id: str,
    *,
    answerable: bool = True,
    expected: str = "14 days",
    tags: list[str] | None = None,
    difficulty: str | None = None,
) -> GoldenCase:
    if answerable:
        return GoldenCase(
            id=case_id,
            question=f"Question {case_id}?",
            expected_answer=expected,
            support=[SupportQuote(doc="policy.md", quote="14 days")],
            tags=tags or [],
            difficulty=difficulty,
        )
    return GoldenCase(
        id=case_id,
        question=f"Question {case_id}?",
        answerable=False,
        tags=tags if tags is not None else ["unanswerable"],
        difficulty=difficulty,
    )


def make_golden(cases: list[GoldenCase], *, version: str = "1", content_hash: str = "g" * 64) -> GoldenSet:
    return GoldenSet(
        path=Path("golden/golden.jsonl"),
        cases=tuple(cases),
        version=version,
        content_hash=content_hash,
        version_from_file=True,
        line_of={c.id: i for i, c in enumerate(cases, start=1)},
    )


def make_record(
    case_id: str,
    *,
    answerable: bool = True,
    status: str = "answered",
    answer: str | None = "14 days",
    correct: bool | None = True,
    score: float | None = None,
    confidence: float | None = 0.9,
    rank: int | None = 1,
    located: bool = True,
    claims: list[bool] | None = None,
    latency_ms: float = 100.0,
    cost_usd: float | None = 0.0,
    tokens: tuple[int, int, int] = (0, 0, 0),
    prefixes: list[str | None] | None = None,
    **extra: Any,
) -> CaseRecord:
    """A record; `claims` are the verified flags of its claims, `prefixes` the prefix hash of each
    answer call."""
    answered = status == "answered"
    retrieved = [
        RetrievedChunk(chunk_id=f"c{i}", doc="policy.md", rank=i, score=1.0 / i) for i in range(1, 11)
    ]
    calls = [
        ProviderCall(role="answer", provider="stub", model="stub-v1", cached=False, prompt_prefix_hash=p)
        for p in (prefixes or [])
    ]
    return CaseRecord(
        case_id=case_id,
        answerable=answerable,
        status=status,  # type: ignore[arg-type]
        answer_text=answer if answered else None,
        citations=[Citation(chunk_id="c1")] if answered else [],
        confidence=confidence,
        retrieved=retrieved,
        support_chunk_ids=["c1"] if located else [],
        support_located=located and answerable,
        retrieved_support_rank=rank if located and answerable else None,
        judge=JudgeVerdict(
            name="lexical",
            rule_version="lexical-v1",
            correct=correct if answered else None,
            score=score if answered else None,
        ),
        claims=[Claim(text=f"claim {i}", verified=v) for i, v in enumerate(claims or [])],
        calls=calls,
        usage=Usage(input_tokens=tokens[0], output_tokens=tokens[1], cached_input_tokens=tokens[2]),
        cost_usd=cost_usd,
        latency_ms=latency_ms,
        model_abstained=status == "abstained",
        **extra,
    )


def make_header(**overrides: Any) -> RunHeader:
    fields: dict[str, Any] = dict(
        cairn_version="0.1.0",
        config_name="default",
        config_hash="0" * 16,
        corpus_hash="c" * 64,
        golden_version="1",
        golden_hash="g" * 64,
        split="all",
        provider="stub",
        model="stub-v1",
        judge="lexical",
        retrieval_mode="bm25",
        top_k=5,
        depth=10,
        started_at="2026-01-01T00:00:00Z",
        environment=ENV,
    )
    fields.update(overrides)
    return RunHeader(**fields)
