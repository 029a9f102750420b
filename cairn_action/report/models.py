"""The report, field for field as docs/reference/report.md describes it.

Additions beyond the reference are marked as such: `schema_version`, `by_tag`, and richer per_case rows
(question, tags, expected answer, cited chunks) so that a comparison of two reports can explain each
changed case without the golden set or the run artifact at hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.golden.split import SplitSummary
from cairn_action.score.judge_check import JudgeCheck

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
    """One relevant chunk: mean of 1 / log2(rank + 1) within the top 10, else 0."""
    mrr: float | None = None
    """Mean of 1 / rank, 0 when the supporting chunk never surfaced within the retrieval depth: MRR@D for
    D = notes.retrieval_depth (trec_eval's recip_rank has no cut-off); two depths, two measures."""
    n_with_support: int = 0
    """The denominator: scored cases whose support quote was located in the chunk store. A case whose
    support never surfaced counts 0 and stays in it."""


class AnswerMetrics(_Model):
    """Over answered, answerable cases; None when there are none."""

    exact_match: float | None = None
    """SQuAD v1.1: equal after lowercase, ASCII punctuation deleted, articles dropped, spaces collapsed."""
    token_f1: float | None = None
    """SQuAD v1.1: multiset token overlap F1 of the normalised strings."""
    judge_score: float | None = None
    """Mean of the judge's 0 to 1 grade; None when no grading judge ran."""
    citation_validity: float | None = None
    """Verified claims over all claims; None when no answer was split into claims."""
    faithfulness: float | None = None
    """Share of answers (with claims) whose every claim verified."""


class AbstentionMetrics(_Model):
    """Read the first three together: answer rate, error among answered, and whether the guarantee held."""

    alpha: float
    """The target error rate among answered cases, from the configuration."""
    threshold: float | None = None
    """The calibrated threshold in force (answer iff confidence >= threshold); None when uncalibrated."""
    answer_rate: float | None = None
    """Answered over all scored cases (errored cases included)."""
    error_rate_answered: float | None = None
    """Judged wrong over answered; an answered unanswerable case is wrong by definition."""
    guarantee_met: bool | None = None
    """error_rate_answered <= alpha; None when nothing was answered. Carries no guarantee when
    notes.threshold_source says uncalibrated."""
    unanswerable_abstained_rate: float | None = None
    """Unanswerable cases that abstained, over all unanswerable cases."""
    answerable_answered_rate: float | None = None
    """Answerable cases that answered, over all answerable cases."""


class OperationalMetrics(_Model):
    cost_usd_total: float | None = 0.0
    """Every call the run paid for on these cases: each case's first sample and its later samples
    (repeats, baseline samples of critical cases, confirmation re-asks). None when some call's price was
    unknown."""
    cost_per_question_usd: float | None = 0.0
    """The first samples' cost over scored cases: what one ask of each question costs, comparable
    between runs that re-asked different cases."""
    latency_p50_ms: float | None = 0.0
    """Linear-interpolated percentile (numpy's default) over every scored case; None with no cases."""
    latency_p95_ms: float | None = 0.0
    tokens_total: int = 0
    """Input, output and cached input tokens of every call, later samples' included (as cost_usd_total)."""
    cache_hit_rate: float | None = None
    """Share of calls whose stable prompt prefix matched the previous call's in the same stream (role,
    provider, model); None with fewer than two such calls."""


class CitedChunk(_Model):
    chunk_id: str
    doc: str
    rank: int | None = None
    """Where the chunk ranked in retrieval; None when the answer cited something not retrieved."""


class SampleOutcome(_Model):
    """Addition: one more ask of a case (repeats, baseline samples, confirmation), as scored."""

    sample: int
    status: Literal["answered", "abstained", "error", "stale"]
    right: bool | None = None
    """None for an errored sample (it is not evidence either way)."""
    confidence: float | None = None
    answer_text: str | None = None
    tokens: int = 0
    """Tokens of this sample's calls (they count in `tokens_total`)."""
    cost_usd: float | None = 0.0
    """This sample's cost (it counts in `cost_usd_total`); None when a price was unknown."""


class PerCase(_Model):
    """One row per case of the split, stale ones included (they are marked, and left out of scores)."""

    case_id: str
    answerable: bool
    status: Literal["answered", "abstained", "error", "stale"]
    """After the threshold in force: a model answer below a calibrated threshold is abstained."""
    confidence: float | None = None
    """The scalar the threshold was applied to."""
    correct: bool | None = None
    """The judge's verdict when answered (an answered unanswerable case is false); None otherwise."""
    token_f1: float | None = None
    """Answered, answerable cases only."""
    judge_score: float | None = None
    citation_validity: float | None = None
    """Verified claims over claims of this answer; None without claims."""
    retrieved_support_rank: int | None = None
    """Evidence-complete rank of the supporting chunk; None if it never surfaced within the depth."""
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
    # Additions: what the aggregates are sums of, so every number recomputes from these rows.
    abstained_by_threshold: bool = False
    """The model answered and the calibrated threshold withheld the answer."""
    n_claims: int = 0
    n_claims_verified: int = 0
    tokens: int = 0
    prefix_checks: int = 0
    """This case's calls that had a previous call in their stream to compare prompt prefixes with."""
    prefix_matches: int = 0
    """... and whose prefix matched it (cache_hit_rate = sum of matches / sum of checks)."""
    # Additions: the evidence a verdict rests on (every field above describes the first sample).
    n_samples: int = 1
    """Samples of this case that gave a usable result (errored samples are not evidence)."""
    n_right: int | None = None
    """Of those, how many were right: answered correctly (answerable) or abstained (unanswerable).
    None for stale cases, and in reports written before samples existed (then the first sample's)."""
    agreement: float | None = None
    """Share of the samples that gave the most common answer (abstaining counts as one answer)."""
    judge_agreement: float | None = None
    """Addition: of the judged samples that gave an answer some other sample gave too, the share whose
    judge verdict is its answer's majority verdict (1.0: the judge graded equal answers alike). None when
    no answer was judged twice. Low agreement with high `agreement` is judge noise, not answer noise."""
    samples: list[SampleOutcome] = Field(default_factory=list)
    """Every sample after the first, when there are several."""
    failed_checks: list[str] = Field(default_factory=list)
    """The case's deterministic checks (golden `checks`) the answer failed; any one makes it wrong."""
    changed_documents: list[str] = Field(default_factory=list)
    """Addition, stale cases only: the documents whose labelled passage changed since the case was
    labelled (it is left out until someone confirms it again); empty for a vanished quote."""
    # Additions: what a target's answerer was given, as the target reported it (`used`).
    context_size: int | None = None
    """Passages the target's answerer used; None when Cairn's answerer ran (it sees `notes.top_k`) or the
    target did not say."""
    support_in_context: bool | None = None
    """Those passages cover every support quote; None when unknown."""


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
    self_override: bool = False
    """The overrider is the pull request's author (allowed unless `[gate] allow_self_override = false`)."""


class ExtraSamples(_Model):
    samples: int = 0
    """Records beyond each case's first sample."""
    cases: int = 0
    calls: int = 0
    """Provider calls those samples made (cache hits not counted)."""
    cost_usd: float | None = 0.0
    """None when some call's price was unknown."""


class ProbeRow(_Model):
    """Addition: one case of the drift probe (gate/control.py): its answers now, right or wrong."""

    case_id: str
    now: list[bool] = Field(default_factory=list)


class ControlNote(_Model):
    """Addition: this report is a *control*: the baseline with the cases a pull request changed re-asked of
    the base system at the same time as the pull request (`cairn eval --baseline B --control BASE.toml`).
    Every other row and every aggregate is the baseline's."""

    cases: list[str] = Field(default_factory=list)
    """The re-asked cases, whose rows are the base system's answers now."""
    samples: int = 0
    calls: int = 0
    """Provider calls the control made (cache hits not counted)."""
    cost_usd: float | None = 0.0
    """None when some call's price was unknown."""
    created_at: str = ""
    kind: Literal["base", "probe"] = "base"
    """Addition: `base`, the base system re-asked (the rows above are its answers now); `probe`, the base
    system could not be run, so only the drift probe was asked, of the candidate (no row is replaced)."""
    why: str = ""
    """Addition: for `probe`, why the base system could not be run."""
    probe: list[ProbeRow] = Field(default_factory=list)
    """Addition: the drift probe, a seeded sample of cases the pull request did not change, asked once
    (the base system's answers with `base`, the candidate's with `probe`)."""


class Notes(_Model):
    threshold_source: str = "uncalibrated (model abstain flag)"
    """`calibrated (...)` or `uncalibrated (model abstain flag)`: read it first."""
    calibrated: bool = False
    """A certified calibration for this config, corpus and golden set was applied."""
    calibration: dict[str, object] | None = None
    """When a calibration file was found: its status, alpha, delta, threshold, k_min, n_calibration,
    answered, errors, upper_bound, created_at, and why it was not applied if it was not."""
    environment: Environment | None = None
    """The machine the run was measured on; latency is compared only between equal kinds."""
    judge: str = "lexical"
    rubric_version: str = ""
    """The judge's rule or rubric version(s) seen in the run."""
    provider: str = ""
    models_seen: list[str] = Field(default_factory=list)
    """Every model that answered, judged or verified, sorted."""
    retrieval_mode: str = "bm25"
    retrieval_depth: int = 10
    top_k: int = 5
    reranker: bool = False
    query_rewriting: bool = False
    budget: BudgetCheck = Field(default_factory=BudgetCheck)
    golden_hash: str = ""
    """sha256 of golden.jsonl; differs from the baseline's with an equal version = edited without a bump."""
    counts: dict[str, int] = Field(default_factory=dict)
    """answered, abstained, error, stale: nothing is silently dropped. Also abstained_by_threshold,
    answered_unjudged (counted wrong) and never_retrieved (support located, never surfaced)."""
    split_detail: SplitSummary | None = None
    """Addition: the split's seed, fraction, per-stratum counts and the calibration slice's fingerprint."""
    promotion: str = ""
    """Set for split `all`: never a promotion decision."""
    overrides: list[OverrideRecord] = Field(default_factory=list)
    deterministic: bool = False
    """The answerer and the judge declared themselves deterministic: each case was asked once, and the
    gate judges a change on that one sample (it is the whole truth about such a system)."""
    extra_samples: ExtraSamples = Field(default_factory=lambda: ExtraSamples())
    """What asking cases more than once cost: repeats, baseline samples, confirmation re-asks."""
    gate_policy: dict[str, object] = Field(default_factory=dict)
    """The config's [gate] section at the time of the run: a comparison uses the *baseline's* policy,
    so a pull request cannot loosen its own gate."""
    extra: dict[str, str] = Field(default_factory=dict)
    control: ControlNote | None = None
    """Addition: set only on a control report (see ControlNote)."""
    judge_check: JudgeCheck | None = None
    """Addition: the judge measured against human verdicts (`cairn judge check`), read beside the config
    when its judge is the one that judged this run; None: the judge is not validated."""
    judge_min_kappa: float | None = None
    """Addition: the config's `[judge] min_kappa` (the baseline's decides whether the gate refuses)."""
    config: dict[str, object] = Field(default_factory=dict)
    """Addition: the experiment the config hash identifies, as dotted keys (`chunking.size`: 800; URLs
    without credentials): the comment's config diff. Empty in reports written before it existed."""
    sealed_to: list[str] = Field(default_factory=list)
    """Addition: the golden set was sealed (issue 28) and these are its age public keys: the report's
    per-case rows (expected answers, answerability, tags, verdicts) are written encrypted to them, in
    `per_case_sealed`, and only a holder of the key reads them. Empty for a plain golden set."""
    nothing_returned: list[str] = Field(default_factory=list)
    """Addition: what the system returned for no case at all (`passages`, `answer`), each with its likely
    causes: a run that measured nothing must not read as a system that abstains well."""


class Report(_Model):
    """One evaluation of one config over one split of the golden set."""

    cairn_version: str
    """The code that produced the numbers."""
    config_name: str
    config_hash: str
    """The experiment; the hash excludes paths, so two machines agree."""
    corpus_hash: str
    """sha256 over the sorted document paths and content hashes."""
    golden_version: str
    """From golden.version, or a content hash of the set when that file is absent."""
    split: Split
    """eval, calibration or all (all is never a promotion decision)."""
    created_at: str
    """UTC, ISO 8601 with a Z."""
    n_cases: int
    """Cases that produced these numbers: the split's cases minus stale ones (still listed in per_case)."""
    retrieval: RetrievalMetrics
    answer: AnswerMetrics
    abstention: AbstentionMetrics
    operational: OperationalMetrics
    per_case: list[PerCase]
    notes: Notes
    by_tag: dict[str, TagStats] = Field(default_factory=dict)
    """Addition: per tag, and per difficulty under `difficulty:<level>`, sorted by key."""
    schema_version: int = REPORT_SCHEMA_VERSION
    per_case_sealed: str | None = None
    """Addition: in a file, the per-case rows of a sealed golden set's report, age-encrypted to
    `notes.sealed_to` (per_case is then empty); read with the key, they are back in per_case."""
    target_hash: str | None = Field(default=None, pattern=r"^[0-9a-f]{16}$")
    """Addition: for a `target`, the system's own identity (the python module's or package's source, or
    the service URL), apart from `config_hash`: the same config can run different code."""
