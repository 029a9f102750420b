"""The committed calibration: what `cairn calibrate` fitted, for which experiment, and how.

It lives beside the config (`<config stem>.calibration.json`) and is committed, so the threshold a
report applies is reviewable and the same on every machine. It names the config, corpus and golden set
it was fitted for; applied to anything else it would certify nothing, so it is then not applied.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.config import UNHASHED, Config, prune_retrieval_defaults
from cairn_action.golden.split import SplitSummary
from cairn_action.score.calibration.threshold import CalibrationStatus, ThresholdFit

CALIBRATION_SCHEMA_VERSION = 1
CALIBRATION_KIND = "cairn-calibration"

# What does not change the system's confidences or verdicts: what config_hash already leaves out (paths,
# run mechanics, how to reach the provider), plus the name, the gate's policy, the budget and the
# calibration settings (alpha, delta and the split are checked on their own, by name).
_NOT_SYSTEM: dict[str, Any] = {**UNHASHED, "name": True, "calibration": True, "gate": True, "budget": True}


def system_hash(config: Config) -> str:
    """16 hex digits over what produces the confidences and verdicts a threshold is fitted to.

    Narrower than `config_hash`: editing the gate policy or the budget does not invalidate a calibration.
    """
    data = config.model_dump(mode="json", exclude=_NOT_SYSTEM)
    prune_retrieval_defaults(data)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class ThresholdStep(BaseModel):
    """One tested threshold of the fixed sequence, highest first."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    threshold: float
    answered: int
    """Calibration cases with confidence >= threshold."""
    errors: int
    p_value: float
    """P(Binomial(answered, alpha) <= errors): accepted when <= delta."""
    upper_bound: float
    """One-sided (1 - delta) Clopper-Pearson upper bound on the error among answered."""
    accepted: bool


class CalibrationFile(BaseModel):
    """A fitted abstention threshold and everything needed to judge whether it applies."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["cairn-calibration"] = CALIBRATION_KIND
    schema_version: int = CALIBRATION_SCHEMA_VERSION
    cairn_version: str
    created_at: str
    """UTC, ISO 8601 with a Z."""
    config_name: str
    config_hash: str
    system_hash: str
    """What the threshold was fitted for (see `system_hash`): another system's confidences are not these."""
    corpus_hash: str
    golden_version: str
    golden_hash: str
    alpha: float
    """Target error rate among answered cases."""
    delta: float
    """Allowed probability that the guarantee fails (over the draw of the calibration slice)."""
    status: CalibrationStatus
    """certified: answering iff confidence >= threshold keeps the error among answered <= alpha with
    probability >= 1 - delta; not_achievable: no threshold could be certified (see reason, advice)."""
    threshold: float | None
    """None when not achievable."""
    k_min: int
    """Fewest answered cases that can pass with zero errors at (alpha, delta)."""
    start: int | None = None
    """The answered count at which the fixed sequence began (chosen from confidences alone)."""
    start_rule: str = "zero_error"
    """`zero_error` (start at k_min) or `one_error` (start at the fewest that can pass with one error)."""
    n_calibration: int
    """Scored calibration cases (stale ones left out)."""
    n_with_confidence: int
    """Of those, cases the model answered with a confidence (the only ones a threshold can answer)."""
    answered: int
    """Calibration cases the threshold answers."""
    errors: int
    upper_bound: float | None
    coverage: float
    """answered / n_calibration."""
    reason: str
    advice: list[str] = Field(default_factory=list)
    """What would make a not-achievable calibration achievable."""
    path: list[ThresholdStep] = Field(default_factory=list)
    split: SplitSummary
    source_runs: list[str] = Field(default_factory=list)
    """The run artifacts the confidences came from."""

    def summary(self) -> dict[str, object]:
        """The part a report's notes.calibration carries."""
        return {
            "status": self.status,
            "alpha": self.alpha,
            "delta": self.delta,
            "threshold": self.threshold,
            "k_min": self.k_min,
            "n_calibration": self.n_calibration,
            "answered": self.answered,
            "errors": self.errors,
            "upper_bound": self.upper_bound,
            "created_at": self.created_at,
        }


def steps_of(fit: ThresholdFit) -> list[ThresholdStep]:
    return [
        ThresholdStep(
            threshold=t.threshold,
            answered=t.answered,
            errors=t.errors,
            p_value=t.p_value,
            upper_bound=t.upper_bound,
            accepted=t.accepted,
        )
        for t in fit.path
    ]
