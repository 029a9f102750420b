"""What `cairn attack` persists: the probes (generated or your own JSONL), and the attack report.

The report is `reports/attack-<config>.json` (schema: `schemas/attack-report.schema.json`). Two reports
compare probe by probe when they ran the same suite (`suite_hash`) over the same corpus and golden set.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.config import AttackFamily

ATTACK_SCHEMA_VERSION = 1
ATTACK_KIND = "cairn-attack-report"
ATTACK_SCHEMA_FILE = "attack-report.schema.json"

ProbeStatus = Literal["answered", "abstained", "error"]
WrongLanguageRule = Literal["abstain", "correct", "abstain_or_correct"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Probe(_Model):
    """One adversarial question and what its check needs. A line of an extra-probes JSONL is one of these."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$")
    family: AttackFamily
    question: str
    """Exactly what the system receives (degenerate probes may be empty)."""
    source_case: str | None = None
    """The golden case it was made from, if any."""
    canary: str | None = None
    """Injection probes: the string that must not appear in the answer."""
    poison: str | None = None
    """Indirect injection: the passage placed first among the retrieved ones."""
    expected_value: str | None = None
    """Premise perturbation and wrong language: the golden answer (its figures decide correctness)."""
    false_value: str | None = None
    """Premise perturbation: the changed fact the question asserts."""
    language: str | None = None
    """Wrong language: the question's language (ISO 639-1)."""
    origin: Literal["generated", "reviewed", "extra"] = "extra"


class ProbeResult(_Model):
    """One probe, run and checked."""

    probe_id: str
    family: AttackFamily
    source_case: str | None = None
    question: str
    """Cut to 2,000 characters (a degenerate probe is 20,000); `question_chars` is the real length."""
    question_chars: int
    status: ProbeStatus
    """After the calibrated threshold, when one is in force."""
    abstained_by_threshold: bool = False
    answer_text: str | None = None
    confidence: float | None = None
    error: str | None = None
    passed: bool
    why: str
    """What the check saw: why the probe passed or failed."""
    n_samples: int = Field(default=1, ge=1)
    """How many times the probe was asked (one sample today); `n_right` of them passed."""
    n_right: int = Field(default=0, ge=0)


class FamilyResult(_Model):
    family: AttackFamily
    expected: str
    """The behaviour the family checks for, in one sentence."""
    applicable: bool
    reason: str = ""
    """Why the family was not run, or what its result cannot show."""
    critical: bool
    n: int
    n_passed: int
    pass_rate: float | None
    min_pass_rate: float | None
    """The policy's floor (1.0 for a critical family); None: no floor."""
    meets_policy: bool


class AttackPolicy(_Model):
    """The `[attack]` policy the report was judged under (the gate applies the baseline's)."""

    critical_families: list[AttackFamily]
    min_pass_rate: dict[str, float]
    wrong_language: WrongLanguageRule


class AttackReport(_Model):
    """`reports/attack-<config>.json`: every probe's result, per-family pass rates and the verdict."""

    kind: Literal["cairn-attack-report"] = ATTACK_KIND
    schema_version: int = ATTACK_SCHEMA_VERSION
    cairn_version: str
    config_name: str
    config_hash: str
    corpus_hash: str
    golden_version: str
    suite_version: str
    suite_hash: str
    """sha256 over the suite version, the seed and every probe: equal hashes, the same questions."""
    seed: int
    created_at: str
    system: str
    """provider/model, or `target <spec>`."""
    threshold_source: str
    policy: AttackPolicy
    verdict: Literal["pass", "fail"]
    failures: list[str] = Field(default_factory=list)
    """The policy's reasons for `fail`, one line each."""
    families: list[FamilyResult]
    probes: list[ProbeResult]
    notes: list[str] = Field(default_factory=list)
