"""The report, field for field as ../shared/spec/report-reference.md describes it.

Additions beyond the reference are marked as such: `schema_version`, `by_tag`, and richer per_case rows
(question, tags, expected answer, cited chunks) so that a comparison of two reports can explain each
changed case without the golden set or the run artifact at hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

REPORT_SCHEMA_VERSION = 1

Split = Literal["eval", "calibration", "all"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RetrievalMetrics(_Model):
    recall_at_k: dict[str, float | None] = Field(
        default_factory=lambda: {"1": None, "3": None, "5": None, "10": None}
    )
    """Share of cases whose supporting chunk is in the top k, for k = 1, 3, 5, 10."""
    ndcg_at_10: float | None = None
    mrr: float | None = None
    n_with_support: int = 0


class AnswerMetrics(_Model):
    """Over answered, answerable cases; None when there are none."""

    exact_match: float | None = None
    token_f1: float | None = None
    judge_score: float | None = None
    citation_validity: float | None = None
    faithfulness: float | None = None


class AbstentionMetrics(_Model):
    alpha: float
    threshold: float | None = None
    answer_rate: float | None = None
    error_rate_answered: float | None = None
    guarantee_met: bool | None = None
    unanswerable_abstained_rate: float | None = None
    answerable_answered_rate: float | None = None


class OperationalMetrics(_Model):
    cost_usd_total: float | None = 0.0
    """None when some call's price was unknown."""
    cost_per_question_usd: float | None = 0.0
    latency_p50_ms: float = 0.0
    latency_p95_ms: float = 0.0
    tokens_total: int = 0
    cache_hit_rate: float | None = None


class CitedChunk(_Model):
    chunk_id: str
    doc: str
    rank: int | None = None
    """Where the chunk ranked in retrieval; None when the answer cited something not retrieved."""


class PerCase(_Model):
    case_id: str
    answerable: bool
    status: Literal["answered", "abstained", "error", "stale"]
    confidence: float | None = None
    correct: bool | None = None
    token_f1: float | None = None
    judge_score: float | None = None
    citation_validity: float | None = None
    retrieved_support_rank: int | None = None
    latency_ms: float = 0.0
    cost_usd: float | None = 0.0
    answer_text: str | None = None
    # Additions: enough context for the item-by-item diff.
    exact_match: bool | None = None
    question: str = ""
    expected_answer: str | None = None
    tags: list[str] = Field(default_factory=list)
    difficulty: str | None = None
    support_located: bool = False
    cited: list[CitedChunk] = Field(default_factory=list)
    error: str | None = None


class TagStats(_Model):
    """Addition: stratified reporting (curation guide)."""

    n: int
    answer_rate: float | None = None
    correct_rate: float | None = None
    """Correct over all cases of the tag: answered-and-right for answerable, abstained for unanswerable."""
    recall_at_5: float | None = None


class Environment(_Model):
    os: str
    arch: str
    python: str
    cpu_count: int


class BudgetCheck(_Model):
    max_cost_usd: float | None = None
    spent_usd: float | None = 0.0
    exceeded: bool = False
    cases_skipped: int = 0


class OverrideRecord(_Model):
    """A maintainer's override of a failing gate, kept with the report it let through."""

    pr: int | None = None
    actor: str
    label: str
    reason: str
    head_sha: str | None = None
    at: str
    overrode: list[str] = Field(default_factory=list)
    """The gate's failure reasons the override covered."""


class Notes(_Model):
    threshold_source: str = "uncalibrated (model abstain flag)"
    """`calibrated (...)` or `uncalibrated (model abstain flag)`: read it first."""
    calibrated: bool = False
    calibration: dict[str, object] | None = None
    """alpha, delta, n_calibration, status and the fitted threshold when calibrated."""
    environment: Environment | None = None
    judge: str = "lexical"
    rubric_version: str = ""
    provider: str = ""
    models_seen: list[str] = Field(default_factory=list)
    retrieval_mode: str = "bm25"
    retrieval_depth: int = 10
    top_k: int = 5
    reranker: bool = False
    query_rewriting: bool = False
    budget: BudgetCheck = Field(default_factory=BudgetCheck)
    golden_hash: str = ""
    """sha256 of golden.jsonl; differs from the baseline's with an equal version = edited without a bump."""
    counts: dict[str, int] = Field(default_factory=dict)
    """answered, abstained, error, stale: nothing is silently dropped."""
    promotion: str = ""
    """Set for split `all`: never a promotion decision."""
    overrides: list[OverrideRecord] = Field(default_factory=list)
    gate_policy: dict[str, object] = Field(default_factory=dict)
    """The config's [gate] section at the time of the run: a comparison uses the *baseline's* policy,
    so a pull request cannot loosen its own gate."""
    extra: dict[str, str] = Field(default_factory=dict)


class Report(_Model):
    """One evaluation of one config over one split of the golden set."""

    cairn_version: str
    config_name: str
    config_hash: str
    corpus_hash: str
    golden_version: str
    split: Split
    created_at: str
    n_cases: int
    retrieval: RetrievalMetrics
    answer: AnswerMetrics
    abstention: AbstentionMetrics
    operational: OperationalMetrics
    per_case: list[PerCase]
    notes: Notes
    by_tag: dict[str, TagStats] = Field(default_factory=dict)
    schema_version: int = REPORT_SCHEMA_VERSION
