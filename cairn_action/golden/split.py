"""The calibration / eval split: stratified, and the same on every machine and Python version.

Recipe (docs/concepts/statistics.md#split): each case gets the key sha256(seed + NUL + case id); the
calibration slice has
ceil(fraction * n) cases, shared among the strata by largest remainder (ties by stratum name); within a
stratum the cases with the smallest keys go to calibration. No Python `hash()` (salted per process) and no
RNG stream (numpy only promises the same stream on the same build), so nothing here can drift.

Strata: answerable, unanswerable, and false premise within unanswerable, so the threshold is fitted on
the questions it most needs to refuse. A stratum of a single case cannot be split: it stays in eval.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.golden.models import GoldenCase, GoldenSet

SplitName = Literal["eval", "calibration", "all"]

STRATUM_ANSWERABLE = "answerable"
STRATUM_UNANSWERABLE = "unanswerable"
STRATUM_FALSE_PREMISE = "unanswerable/false_premise"


def stratum_of(case: GoldenCase) -> str:
    """The split stratum of a case: answerable, unanswerable, or unanswerable/false_premise."""
    if case.answerable:
        return STRATUM_ANSWERABLE
    return STRATUM_FALSE_PREMISE if case.is_false_premise else STRATUM_UNANSWERABLE


def split_key(seed: str, case_id: str) -> str:
    """The case's place in its stratum: sha256 of the UTF-8 of `seed`, NUL, `case_id`, as hex."""
    return hashlib.sha256(f"{seed}\x00{case_id}".encode()).hexdigest()


class StratumCount(BaseModel):
    """How one stratum was divided."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    total: int
    calibration: int
    eval: int


class SplitSummary(BaseModel):
    """What a report or calibration file records about the split that produced it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: str
    """`calibration.seed` from the config, as the string that was hashed."""
    fraction: float
    """Requested share of the golden set in the calibration slice."""
    n_calibration: int
    n_eval: int
    strata: dict[str, StratumCount] = Field(default_factory=dict)
    calibration_ids_hash: str
    """sha256 of the sorted calibration case ids, one per line: the slice's fingerprint."""


@dataclass(frozen=True)
class GoldenSplit:
    """The two slices, as case ids in their original order."""

    seed: str
    fraction: float
    calibration: tuple[str, ...]
    eval: tuple[str, ...]
    strata: dict[str, StratumCount]

    def ids(self, which: SplitName) -> frozenset[str]:
        """The case ids of slice `which` (`all` is both)."""
        if which == "calibration":
            return frozenset(self.calibration)
        if which == "eval":
            return frozenset(self.eval)
        return frozenset(self.calibration) | frozenset(self.eval)

    def summary(self) -> SplitSummary:
        joined = "\n".join(sorted(self.calibration)).encode()
        return SplitSummary(
            seed=self.seed,
            fraction=self.fraction,
            n_calibration=len(self.calibration),
            n_eval=len(self.eval),
            strata=dict(self.strata),
            calibration_ids_hash=hashlib.sha256(joined).hexdigest(),
        )


def calibration_size(n: int, fraction: float) -> int:
    """ceil(fraction * n), as scikit-learn sizes a float test_size; rounded first so that float noise
    (0.4 * 20 = 8.000000000000002 on some inputs) cannot add a case."""
    return min(n, math.ceil(round(fraction * n, 9)))


def _allocate(sizes: dict[str, int], n_cal: int) -> dict[str, int]:
    """Largest-remainder share of `n_cal` among strata of the given sizes; ties by stratum name."""
    n = sum(sizes.values())
    quotas = {s: Fraction(n_cal * size, n) for s, size in sizes.items()}
    counts = {s: math.floor(q) for s, q in quotas.items()}
    left = n_cal - sum(counts.values())
    by_remainder = sorted(sizes, key=lambda s: (-(quotas[s] - counts[s]), s))
    for s in by_remainder[:left]:
        counts[s] += 1
    return counts


def split_ids(cases: Sequence[tuple[str, str]], *, seed: str, fraction: float) -> GoldenSplit:
    """Split `(case_id, stratum)` pairs; see the module docstring for the recipe."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
    ids = [case_id for case_id, _ in cases]
    if len(set(ids)) != len(ids):
        raise ValueError("case ids must be unique")
    members: dict[str, list[str]] = {}
    for case_id, stratum in cases:
        members.setdefault(stratum, []).append(case_id)
    sizes = {s: len(m) for s, m in sorted(members.items())}
    counts = _allocate(sizes, calibration_size(len(ids), fraction)) if ids else {}
    chosen: set[str] = set()
    strata: dict[str, StratumCount] = {}
    for stratum, stratum_ids in sorted(members.items()):
        take = counts[stratum] if len(stratum_ids) > 1 else 0
        ordered = sorted(stratum_ids, key=lambda i: (split_key(seed, i), i))
        chosen.update(ordered[:take])
        strata[stratum] = StratumCount(total=len(stratum_ids), calibration=take, eval=len(stratum_ids) - take)
    return GoldenSplit(
        seed=seed,
        fraction=fraction,
        calibration=tuple(i for i in ids if i in chosen),
        eval=tuple(i for i in ids if i not in chosen),
        strata=strata,
    )


def split_golden(
    golden: GoldenSet | Iterable[GoldenCase], *, seed: int | str, fraction: float
) -> GoldenSplit:
    """The split of a golden set for `calibration.seed` and `calibration.fraction`."""
    cases = golden.cases if isinstance(golden, GoldenSet) else tuple(golden)
    return split_ids([(c.id, stratum_of(c)) for c in cases], seed=str(seed), fraction=fraction)
