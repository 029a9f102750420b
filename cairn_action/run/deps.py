"""What one case's run needs, built once per run by `run.evaluation` from the parts that the composition
root (`commands/compose.py`) builds.

Its own module so that the two ways a case runs, through Cairn's retriever and answerer
(`run.pipeline`) or through the user's own system (`run.target_case`), share it without importing each
other.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from cairn_action.golden.models import GoldenCase, ResolvedSupport
from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.providers.base import Answerer
from cairn_action.retrieval.base import Retriever
from cairn_action.run.cache import ResultCache
from cairn_action.run.models import JudgeVerdict
from cairn_action.run.retrieve import QueryRewriter, Reranker


class Judge(Protocol):
    name: str

    def judge(self, case: GoldenCase, answer_text: str) -> JudgeVerdict:
        """Whether `answer_text` answers `case` correctly."""
        ...


@dataclass(frozen=True)
class CaseDeps:
    """Everything `run_case` needs, built once per run by the composition root."""

    store: ChunkStore
    retriever: Retriever
    answerer: Answerer
    judge: Judge
    cache: ResultCache
    support: dict[str, list[ResolvedSupport]]
    """Case id -> its located support spans (from `resolve_support`)."""
    stale: frozenset[str]
    top_k: int
    depth: int
    golden_lines: dict[str, int] = field(default_factory=dict)
    planted: Mapping[str, Chunk] = field(default_factory=dict)
    """Case id -> a passage put first among the answerer's hits (`cairn attack`'s indirect injection)."""
    system_canary: str | None = None
    """Planted in the answerer's system prompt (`cairn attack`'s prompt extraction)."""
    clock: Callable[[], float] = time.perf_counter
    """Seconds, monotonic; only differences are used."""
    rewriter: QueryRewriter | None = None
    """`retrieval.rewrite = "llm"`: the provider rewrites each question before retrieval (run/retrieve.py)."""
    reranker: Reranker | None = None
    """`retrieval.rerank = "llm"`: the provider re-orders the retrieved chunks."""
    stale_reasons: Mapping[str, str] = field(default_factory=dict)
    """Case id -> the record's message, for stale cases not stale by a missing quote (changed passage,
    awaiting confirmation)."""
    record_spans: bool = False
    """A sealed golden set's run: each retrieved passage records where it lies (`RetrievedChunk.start`)
    so that the scoring side can locate the support quotes the run never saw."""
    changed_documents: Mapping[str, list[str]] = field(default_factory=dict)
    """Case id -> the documents whose labelled passage changed, for the cases stale by it."""
    judge_draws: int = 1
    """Judge draws per sample for a judge that is not deterministic, majority wins (run/graded.py): the
    evaluation passes JUDGE_DRAWS on every side, so the samples compared are judged alike."""
