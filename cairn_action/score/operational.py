"""Cost, latency, tokens and the prompt-prefix cache rate (docs/reference/report.md#metrics,
`operational`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.run.models import CaseRecord
from cairn_action.score.outcome import CaseOutcome


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) by numpy's default linear interpolation (Hyndman-Fan type 7);
    None for no samples, where numpy would raise.

    The same float operations as `np.percentile(..., method="linear")` in the same order (its `_lerp`,
    with the upper bound's form from a weight of 0.5 on), so the result is bit-identical to numpy's; in
    pure Python because `np.percentile` imports `numpy.ma` (about 15 ms of every report, issue 27)."""
    if not values:
        return None
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    ordered = sorted(float(v) for v in values)
    if any(math.isnan(v) for v in ordered):
        return math.nan  # numpy sorts NaN last and answers NaN
    last = len(ordered) - 1
    position = last * (q / 100)
    if position >= last:  # numpy's neighbours are then both the last value, its weight position + 1
        below = above = last
        weight = position + 1
    else:
        below = math.floor(position)
        above = below + 1
        weight = position - below
    low, high = ordered[below], ordered[above]
    step = high - low
    return high - step * (1 - weight) if weight >= 0.5 else low + step * weight


def prefix_cache_counts(records: Sequence[CaseRecord]) -> dict[str, tuple[int, int]]:
    """Per case id, (calls compared, calls whose stable prompt prefix matched the previous call's).

    Calls are compared within their stream (role, provider, model) in run order, because a provider's
    prompt cache is per model and answer and judge prompts interleave. Calls without a prefix hash are
    skipped; a record without call details counts as one answer call with its own prefix hash. Calls
    replayed from Cairn's cache count too: the rate describes the prompts, and a rerun should agree.
    """
    previous: dict[tuple[str, str, str], str] = {}
    counts: dict[str, tuple[int, int]] = {}
    for record in records:
        checks = matches = 0
        calls = [(c.role, c.provider, c.model, c.prompt_prefix_hash) for c in record.calls]
        if not calls:
            calls = [("answer", "", "", record.prompt_prefix_hash)]
        for role, provider, model, prefix in calls:
            if prefix is None:
                continue
            stream = (role, provider, model)
            if stream in previous:
                checks += 1
                matches += int(previous[stream] == prefix)
            previous[stream] = prefix
        counts[record.case_id] = (checks, matches)
    return counts


@dataclass(frozen=True, kw_only=True)
class OperationalSummary:
    cost_usd_total: float | None
    """None when some case's price was unknown."""
    cost_per_question_usd: float | None
    latency_p50_ms: float | None
    latency_p95_ms: float | None
    """None when there are no samples."""
    tokens_total: int
    cache_hit_rate: float | None
    """None with fewer than two comparable calls."""
    n_latency_samples: int


def summarise_operational(outcomes: Sequence[CaseOutcome]) -> OperationalSummary:
    """The `operational` block over scored cases (errored ones included: they cost and took time)."""
    scored = [o for o in outcomes if o.scored]
    costs = [o.cost_usd for o in scored]
    total = None if any(c is None for c in costs) else math.fsum(c for c in costs if c is not None)
    latencies = [o.latency_ms for o in scored]
    checks = sum(o.prefix_checks for o in scored)
    return OperationalSummary(
        cost_usd_total=total,
        cost_per_question_usd=total / len(scored) if total is not None and scored else None,
        latency_p50_ms=percentile(latencies, 50),
        latency_p95_ms=percentile(latencies, 95),
        tokens_total=sum(o.tokens for o in scored),
        cache_hit_rate=sum(o.prefix_matches for o in scored) / checks if checks else None,
        n_latency_samples=len(latencies),
    )
