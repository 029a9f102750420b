"""The run artifact: a header line, then one record per case. Observations only, no aggregates.

Everything the report's per_case needs is here, and more, so scoring never calls a provider.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RUN_SCHEMA_VERSION = 1

BUDGET_ERROR_PREFIX = "budget reached"
"""How a case skipped by the budget begins its `error` (the report counts them as `cases_skipped`)."""

CaseStatus = Literal["answered", "abstained", "error", "stale"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Environment(_Model):
    """The machine a run was measured on; latency is only compared between equal kinds."""

    os: str
    arch: str
    python: str
    cpu_count: int

    @property
    def kind(self) -> str:
        return f"{self.os}/{self.arch}/{self.cpu_count}cpu"


class RunHeader(_Model):
    """The first line of a run artifact: what was run, on what, where."""

    kind: Literal["header"] = "header"
    schema_version: int = RUN_SCHEMA_VERSION
    cairn_version: str
    config_name: str
    config_hash: str
    corpus_hash: str
    golden_version: str
    golden_hash: str
    """sha256 of golden.jsonl: a set edited without a version bump is still caught."""
    split: Literal["all", "eval", "calibration"] = "all"
    shard: str | None = None
    """`I/N` when this artifact holds one shard, None for the whole set."""
    n_cases: int | None = Field(default=None, ge=0)
    """Cases this artifact holds when complete (after the split and the shard): how a resume or a merge
    knows a run is unfinished. None only in hand-made artifacts, which are taken as complete."""
    provider: str
    model: str
    judge: str
    retrieval_mode: str
    top_k: int
    depth: int
    started_at: str
    environment: Environment
    deterministic: bool = False
    """The answerer and the judge both declare that they answer the same way every time (the stub and
    the lexical judge): one sample per case is then the whole truth, and no case is asked twice."""
    embedding_model: str | None = None
    """Dense and hybrid: `<model id> sha256:<model file hash>` (also in config_hash)."""
    query_rewriting: bool = False
    """The provider rewrote each question before retrieval (`retrieval.rewrite = "llm"`)."""
    reranker: bool = False
    """The provider re-ordered the retrieved chunks (`retrieval.rerank = "llm"`)."""
    target_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    """For a `target`: the identity of the user's system, beside `config_hash` (providers/target.py)."""
    sealed: bool = False
    """The golden set was sealed and this run held only its questions: answerability, support and
    verdicts are the scoring side's to fill in, with the key (run/sealed.py)."""


class RetrievedChunk(_Model):
    chunk_id: str
    doc: str
    """Corpus-relative path of the chunk's document."""
    rank: int = Field(ge=1)
    score: float
    # A run of a sealed golden set (header.sealed) cannot locate support: it records where each passage
    # lies, and the scoring side, which holds the key, locates the support quotes in them (run/sealed.py).
    start: int | None = Field(default=None, ge=0)
    """Sealed runs: the passage's first character in `doc`, when it was found in the corpus."""
    end: int | None = Field(default=None, ge=0)
    text: str | None = None
    """Sealed runs: a target's passage that was not found in the corpus, as the target returned it."""


class Citation(_Model):
    chunk_id: str
    quote: str = ""


class Claim(_Model):
    text: str
    cited_chunk_ids: list[str] = Field(default_factory=list)
    verified: bool


class JudgeVerdict(_Model):
    name: str
    """The judge (`lexical`, `llm`)."""
    rule_version: str
    correct: bool | None
    """None when nothing was judged (abstained, error, stale)."""
    score: float | None = None
    """A 0..1 grade from a grading judge; None from the lexical judge."""
    rationale: str = ""


class Usage(_Model):
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens + self.cached_input_tokens


class ProviderCall(_Model):
    """One answerer or judge call, in order, for cost, tokens and the prompt-prefix cache rate."""

    role: Literal["answer", "judge", "verify", "rewrite", "rerank"]
    provider: str
    model: str
    cached: bool
    """Served from Cairn's on-disk cache (no provider call made)."""
    prompt_prefix_hash: str | None = None
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    """None when the model's price is unknown."""
    latency_ms: float = 0.0


class CaseRecord(_Model):
    """One golden case, run."""

    kind: Literal["case"] = "case"
    case_id: str
    sample: int = Field(default=0, ge=0)
    """Which ask of the case this is: 0 is the first pass (every aggregate metric reads it); 1, 2, ...
    are repeats (`run.repeats`), baseline samples of critical cases and confirmation re-asks. Each
    sample has its own cache key, so a rerun of the same samples is still free."""
    golden_line: int | None = Field(default=None, ge=1)
    """The case's line in golden.jsonl: the artifact's order, kept so merged shards sort like one run."""
    answerable: bool
    status: CaseStatus
    answer_text: str | None = None
    citations: list[Citation] = Field(default_factory=list)
    confidence: float | None = None
    confidence_source: str | None = None
    """e.g. `stub-support-score`, `model-reported`, `logprob`."""
    model_abstained: bool = False
    """The answerer itself declined to answer (before any calibrated threshold)."""
    retrieved: list[RetrievedChunk] = Field(default_factory=list)
    """Ranked to the retrieval depth, deduplicated."""
    support_chunk_ids: list[str] = Field(default_factory=list)
    """Chunks that overlap a support quote, located over the whole store."""
    support_located: bool = False
    """Every support quote was found in the store (answerable cases)."""
    retrieved_support_rank: int | None = None
    """Evidence-complete rank (metrics.md §2.5): smallest k whose top-k covers every quote; None if never."""
    first_overlap_rank: int | None = None
    context_ids: list[str] | None = None
    """A target's answerer's passages (ids of `retrieved`), as the target reported them (`used`); None
    when it did not say. Cairn's own answerer is given the top `top_k` of `retrieved`."""
    support_in_context: bool | None = None
    """Those passages cover every support quote; None without `context_ids` or support to cover."""
    judge: JudgeVerdict | None = None
    claims: list[Claim] = Field(default_factory=list)
    calls: list[ProviderCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    latency_ms: float = 0.0
    prompt_prefix_hash: str | None = None
    error: str | None = None
    raw_output: str | None = None
    """The provider's raw text when it could not be parsed."""


@dataclass(frozen=True)
class LoadedRun:
    """One run's header and records, from one artifact or merged shards, and a name for messages."""

    header: RunHeader
    records: tuple[CaseRecord, ...]
    where: str
    sources: tuple[str, ...]
    notes: tuple[str, ...] = ()
