"""What the gate produces: the comparison of two reports, the decision, and an override.

All persisted (`cairn gate --json`), so all pydantic. The comparison carries enough per case (question,
both answers, confidences, cited chunks, support ranks) that the comment can explain each change
without the golden set or the run artifacts at hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.config import GateConfig
from cairn_action.report.models import CitedChunk, OverrideRecord

GATE_SCHEMA_VERSION = 1

Outcome = Literal["broke", "fixed", "changed", "flaky", "unchanged"]
"""On each side's verdict (the majority of its samples): broke: right before, wrong now; fixed: the
reverse; changed: still wrong, but differently; flaky: the candidate's first sample differed from the
baseline's verdict, and its other samples brought the verdict back."""
Transition = Literal["newly_abstained", "newly_answered"]
RetrievalChange = Literal["lost", "gained"]
Status = Literal["pass", "regression", "refused", "overridden", "incomplete"]
"""incomplete: cases errored (after retries and a confirmation retry) or are missing from the candidate,
and nothing else failed: an infrastructure problem (exit 3), never a regression."""
ReasonCode = Literal[
    "corpus_hash",
    "golden_version",
    "golden_hash",
    "split",
    "empty_report",
    "critical_case_lost",
    "correctness_drop",
    "max_drop",
    "floor",
    "guarantee_lost",
    "case_errored",
    "case_missing",
    "no_cases",
    "environment_shifted",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReportIdentity(_Model):
    """Which report a side of the comparison is."""

    config_name: str
    config_hash: str
    target_hash: str | None = None
    """A target's code identity (Report.target_hash)."""
    corpus_hash: str
    golden_version: str
    golden_hash: str
    split: str
    created_at: str
    cairn_version: str
    n_cases: int
    environment: str | None
    """`os/arch/Ncpu`, or None when the report does not record it."""
    threshold_source: str
    sealed: bool = False
    """The golden set was sealed: what the comment shows of a case stops at its question (issue 28)."""


class CaseSide(_Model):
    """One case as one report saw it."""

    status: str
    right: bool | None
    """Answered correctly (answerable) or abstained (unanswerable); None for stale cases."""
    answer_text: str | None
    confidence: float | None
    correct: bool | None
    token_f1: float | None
    support_rank: int | None
    cited: list[CitedChunk] = Field(default_factory=list)
    n_samples: int = 1
    """Usable samples this side's verdict rests on."""
    n_right: int = 0
    """Of those, the right ones."""
    first_right: bool | None = None
    """Whether the first sample alone was right (what a single run would have said)."""
    why: str = ""
    """Why the first sample went wrong, from the report's evidence (`report.why`); "" when it was right."""


class LossRead(_Model):
    """The samples the critical rule read of a noisy case whose committed baseline holds more than 3 of it
    (compare.WholeRead): every baseline sample (with the base control, its re-asks now too) against the
    candidate's samples after the first, which chose the case for differing."""

    baseline_right: int
    baseline_n: int
    candidate_right: int
    candidate_n: int
    control: bool = False
    """The base system's re-asks now are pooled with the committed baseline's samples."""


class CaseChange(_Model):
    """A case both reports share whose outcome, answering or retrieval changed."""

    case_id: str
    question: str
    expected_answer: str | None
    answerable: bool
    tags: list[str]
    critical: bool
    """Carries one of the policy's critical tags."""
    outcome: Outcome
    transition: Transition | None = None
    retrieval: RetrievalChange | None = None
    baseline: CaseSide
    candidate: CaseSide
    loss_p: float | None = None
    """For a broke case of a system that is not deterministic: the one-sided Fisher exact p-value that the
    candidate is right less often than the baseline, over both sides' samples (those of `read` when set)."""
    read: LossRead | None = None
    """What `loss_p` read when it is not the two sides' verdict samples (round 5, compare.WholeRead)."""
    loss_p_holm: float | None = None
    """Addition: `loss_p` adjusted by Holm's step-down over every critical case of this comparison that
    broke (the family): a per-case p <= 0.1 rule over ~30 critical cases fires by chance."""
    lost: bool = False
    """A critical case that broke on evidence: deterministic systems on their one sample, others when
    `loss_p_holm` is at most the policy's `critical_max_p`, half of it for a known-flaky case or one
    read on every baseline sample (compare.critical_bar)."""

    @property
    def critical_loss(self) -> bool:
        return self.lost


class CaseRef(_Model):
    """A case present in one report only."""

    case_id: str
    question: str
    tags: list[str]
    critical: bool
    right: bool | None
    """How it fared in the report that has it."""


class ChangedDocumentCase(_Model):
    """A candidate case left out because a document its label rests on changed since it was labelled."""

    case_id: str
    question: str
    tags: list[str]
    critical: bool
    documents: list[str]


class MetricDelta(_Model):
    """One metric in both reports, compared in its spec's direction."""

    name: str
    baseline: float | None
    candidate: float | None
    delta: float | None
    """candidate minus baseline; None when either is missing."""
    change: Literal["better", "worse", "same", "n/a"]
    machine_dependent: bool = False
    gated: bool = True
    """False for machine-dependent metrics measured on different kinds of machine."""


class TagDelta(_Model):
    """Per-tag correctness and recall@k over the shared cases."""

    tag: str
    critical: bool
    n: int
    baseline_correct: float | None
    candidate_correct: float | None
    n_with_support: int
    baseline_recall: float | None
    candidate_recall: float | None


class Statistics(_Model):
    """The paired tests over the shared, scored cases (docs/concepts/statistics.md#paired)."""

    n_paired: int
    b: int
    """Right before, wrong now."""
    c: int
    """Wrong before, right now."""
    accuracy_delta: float | None
    accuracy_low: float | None
    accuracy_high: float | None
    mcnemar_p_one_sided: float
    mcnemar_p_two_sided: float
    n_f1: int
    f1_delta: float | None
    f1_low: float | None
    f1_high: float | None
    wilcoxon_p_one_sided: float | None
    wilcoxon_method: str
    bootstrap: str
    """Method, resamples, seed and confidence of both intervals, in words."""
    scipy_version: str
    min_detectable_drop: float | None
    """Smallest correctness drop the one-sided McNemar test catches with 80% power at this n."""
    sample_notes: list[str] = Field(default_factory=list)
    """What the sample is too small to claim (curation guide's table)."""
    samples_p_one_sided: float | None = None
    """Addition: the one-sided Mantel-Haenszel p over every case's samples, stratified by case (the
    correctness rule's test when neither side is deterministic); None when not computed."""
    samples_right_before: int = 0
    samples_before: int = 0
    samples_right_after: int = 0
    samples_after: int = 0
    pairing_p_one_sided: float | None = None
    """Addition: the fresh pairing, when the base control re-asked the base system: the one-sided
    Mantel-Haenszel p over the changed cases only, the base system's samples asked now against this PR's
    fresh ones (the correctness rule's second test); None without a base control."""
    pairing_cases: int = 0
    """The cases of that pairing (the control's, shared and scored on both sides)."""
    pairing_right_before: int = 0
    pairing_before: int = 0
    pairing_right_after: int = 0
    pairing_after: int = 0


class Refusal(_Model):
    """Why two reports cannot be compared, and what to do about it."""

    code: ReasonCode
    message: str
    hint: str


class ConfigChange(_Model):
    """A setting of the experiment that differs between the two reports; None: absent on that side."""

    key: str
    """Dotted, as in the config file: `chunking.size`, `retrieval.top_k`."""
    baseline: str | None
    candidate: str | None


class Comparison(_Model):
    """Two reports compared item by item; `refusals` non-empty means nothing else was computed."""

    schema_version: int = GATE_SCHEMA_VERSION
    baseline: ReportIdentity
    candidate: ReportIdentity
    refusals: list[Refusal] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    same_environment: bool = False
    retrieval_k: int = 5
    critical_tags: list[str] = Field(default_factory=list)
    n_shared: int = 0
    changes: list[CaseChange] = Field(default_factory=list)
    added: list[CaseRef] = Field(default_factory=list)
    removed: list[CaseRef] = Field(default_factory=list)
    not_compared: list[str] = Field(default_factory=list)
    """Shared cases stale in either report: left out of the diff and the tests."""
    changed_documents: list[ChangedDocumentCase] = Field(default_factory=list)
    """Addition: the candidate's cases stale because their document changed (not a vanished quote),
    with the documents: each needs someone to read the passage again (`cairn golden confirm`)."""
    metrics: list[MetricDelta] = Field(default_factory=list)
    tags: list[TagDelta] = Field(default_factory=list)
    guarantee_before: bool | None = None
    guarantee_after: bool | None = None
    alpha: float | None = None
    """The candidate's target error rate among answered cases."""
    answered_after: int = 0
    """Candidate cases answered (first samples), for the evidence behind the abstention rule."""
    errors_after: int = 0
    """... and of those, wrong."""
    answered_before: int = 0
    errors_before: int = 0
    deterministic: bool = False
    """Either report came from a deterministic system, whose one sample per case is its exact success
    rate: a critical case that broke is lost without further evidence."""
    candidate_deterministic: bool = False
    """The candidate is deterministic: its slice's error among answered is judged as it stands."""
    control_cases: list[str] = Field(default_factory=list)
    """Addition: the cases on which a contemporaneous control (the base system re-asked now) stood in for
    the baseline (`cairn gate --control`); empty without one."""
    critical_max_p: float = 0.1
    errored: list[CaseRef] = Field(default_factory=list)
    """Shared cases that errored in the candidate: no evidence, so the verdict cannot be a pass."""
    extra_calls: int = 0
    """Provider calls the candidate's extra samples (repeats, confirmation) made."""
    extra_cost_usd: float | None = 0.0
    extra_samples: int = 0
    stats: Statistics | None = None
    config_changes: list[ConfigChange] = Field(default_factory=list)
    """Settings that differ, baseline to candidate (`gate.config_diff`)."""
    config_recorded: bool = True
    """Both reports recorded their whole config; False: `config_changes` covers only the settings every
    report's notes carry (a report written before config snapshots)."""

    @property
    def comparable(self) -> bool:
        return not self.refusals

    def by_outcome(self, outcome: Outcome) -> list[CaseChange]:
        return [c for c in self.changes if c.outcome == outcome]

    @property
    def critical_losses(self) -> list[CaseChange]:
        return [c for c in self.changes if c.critical_loss]

    @property
    def critical_removed(self) -> list[CaseRef]:
        """Critical cases right in the baseline and missing now: a missing case is not a passing one."""
        return [c for c in self.removed if c.critical and c.right]

    @property
    def critical_not_credible(self) -> list[CaseChange]:
        """Critical cases that broke on their first samples but not on the evidence of all of them."""
        return [c for c in self.changes if c.critical and c.outcome == "broke" and not c.lost]

    def moved(self, *, machine_dependent: bool) -> bool:
        """Whether any metric of this kind (timings or not) changed."""
        return any(
            m.change in ("better", "worse") for m in self.metrics if m.machine_dependent == machine_dependent
        )

    @property
    def cases_changed(self) -> bool:
        return bool(self.changes or self.added or self.removed)


class Override(_Model):
    """A maintainer's waiver of a failing gate, as the Action found it (label, who, why)."""

    actor: str = Field(min_length=1)
    label: str = Field(min_length=1)
    reason: str = Field(min_length=1)
    at: str = Field(min_length=1)
    """When it was applied (ISO 8601), supplied by the caller: the policy reads no clock."""
    pr: int | None = None
    head_sha: str | None = None


class Reason(_Model):
    """One failure (or refusal) in words, with what it is about."""

    code: ReasonCode
    message: str
    subject: str | None = None
    """The metric name or case id the reason is about."""


class Decision(_Model):
    """The gate's verdict. `exit_code`: 0 pass or overridden, 1 regression, 2 refused."""

    schema_version: int = GATE_SCHEMA_VERSION
    status: Status
    exit_code: int
    headline: str
    """One line: `no change`, or what changed in counts."""
    reasons: list[Reason] = Field(default_factory=list)
    """Failures (regression, overridden) or refusals; empty on a pass."""
    notes: list[str] = Field(default_factory=list)
    override: OverrideRecord | None = None
    """Kept when an override turned a regression into `overridden`."""
    policy: GateConfig


class GateResult(_Model):
    """What `cairn gate --json` writes: the decision and the comparison behind it."""

    schema_version: int = GATE_SCHEMA_VERSION
    decision: Decision
    comparison: Comparison
