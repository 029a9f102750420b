"""Cost, latency percentiles (numpy linear, docs/concepts/statistics.md#latency), tokens and the
prompt-prefix cache rate."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from score_builders import make_case, make_record

from cairn_action.run.models import CaseRecord, ProviderCall
from cairn_action.score.operational import percentile, prefix_cache_counts, summarise_operational
from cairn_action.score.outcome import score_case


def test_percentile__numpy_linear_vectors() -> None:
    assert percentile([120, 80, 100, 300, 90], 50) == 100
    assert percentile([120, 80, 100, 300, 90], 95) == pytest.approx(264)
    ten = [12.0, 15.5, 11.2, 40.0, 13.1, 12.7, 14.9, 90.3, 13.3, 12.2]
    assert percentile(ten, 50) == pytest.approx(13.2)
    assert percentile(ten, 95) == pytest.approx(67.665)
    assert percentile(ten, 99) == pytest.approx(85.773)


def test_percentile__one_sample_is_every_percentile__none_for_no_samples() -> None:
    assert percentile([42.0], 95) == 42.0
    assert percentile([], 50) is None


@given(
    values=st.lists(
        st.one_of(
            st.floats(min_value=0, max_value=1e7, allow_nan=False),
            st.integers(min_value=0, max_value=10**6),
            st.sampled_from([0.1, 0.2, 0.3, 1e-300, 5e-324, 1.7976931348623157e308]),
        ),
        min_size=1,
        max_size=40,
    ),
    q=st.one_of(st.sampled_from([0, 1, 5, 25, 50, 95, 99, 100]), st.floats(min_value=0, max_value=100)),
)
@example(values=[908.818, 469.232], q=75)  # numpy's upper form from 0.5 on: a + (b - a) * t is 1 ulp off
def test_percentile__any_samples_and_q__bit_identical_to_numpy_linear(values: list[float], q: float) -> None:
    ours = percentile(values, q)
    with np.errstate(all="ignore"):
        theirs = float(np.percentile(np.asarray(values, dtype=np.float64), q, method="linear"))
    assert ours is not None
    assert ours.hex() == theirs.hex() or (math.isnan(ours) and math.isnan(theirs))


def test_percentile__nan_or_infinite_samples__as_numpy() -> None:
    for values in ([1.0, math.nan, 3.0], [1.0, math.inf], [math.inf, math.inf], [-math.inf, 2.0, math.inf]):
        for q in (0, 50, 95, 100):
            with np.errstate(all="ignore"):
                theirs = float(np.percentile(np.asarray(values), q, method="linear"))
            ours = percentile(values, q)
            assert ours is not None
            assert ours == theirs or (math.isnan(ours) and math.isnan(theirs)), (values, q)


def test_percentile__outside_0_to_100__refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        percentile([1.0, 2.0], 101)


def _summary(records: list[CaseRecord]):
    counts = prefix_cache_counts(records)
    outcomes = [
        dataclasses.replace(
            score_case(r, make_case(r.case_id), threshold=None),
            prefix_checks=counts[r.case_id][0],
            prefix_matches=counts[r.case_id][1],
        )
        for r in records
    ]
    return summarise_operational(outcomes)


def test_cost__unknown_price_anywhere_makes_total_none() -> None:
    known = _summary([make_record("a1", cost_usd=0.01), make_record("a2", cost_usd=0.03)])
    assert known.cost_usd_total == pytest.approx(0.04)
    assert known.cost_per_question_usd == pytest.approx(0.02)
    unknown = _summary([make_record("a1", cost_usd=0.01), make_record("a2", cost_usd=None)])
    assert unknown.cost_usd_total is None and unknown.cost_per_question_usd is None


def test_tokens__input_output_and_cached_summed__errored_cases_included() -> None:
    s = _summary(
        [make_record("a1", tokens=(100, 20, 30)), make_record("a2", status="error", tokens=(5, 0, 0))]
    )
    assert s.tokens_total == 155


def test_latency__over_every_scored_case_stale_excluded() -> None:
    s = _summary(
        [
            make_record("a1", latency_ms=100),
            make_record("a2", status="error", latency_ms=300),
            make_record("a3", status="stale", latency_ms=10_000),
        ]
    )
    assert s.latency_p50_ms == pytest.approx(200) and s.latency_p95_ms == pytest.approx(290)


def test_cache_hit_rate__share_of_calls_matching_previous_prefix() -> None:
    records = [
        make_record("a1", prefixes=["p"]),
        make_record("a2", prefixes=["p"]),
        make_record("a3", prefixes=["q"]),
        make_record("a4", prefixes=["q"]),
    ]
    assert _summary(records).cache_hit_rate == pytest.approx(2 / 3)


def test_cache_hit_rate__none_with_fewer_than_two_calls() -> None:
    assert _summary([make_record("a1", prefixes=["p"])]).cache_hit_rate is None
    assert _summary([make_record("a1"), make_record("a2")]).cache_hit_rate is None  # no prefix hashes


def test_cache_hit_rate__streams_by_role_so_interleaved_judge_calls_do_not_break_it() -> None:
    def calls(prefix: str) -> list[ProviderCall]:
        return [
            ProviderCall(role="answer", provider="x", model="m", cached=False, prompt_prefix_hash=prefix),
            ProviderCall(role="judge", provider="x", model="m", cached=False, prompt_prefix_hash="judge"),
        ]

    records = [
        make_record("a1").model_copy(update={"calls": calls("p")}),
        make_record("a2").model_copy(update={"calls": calls("p")}),
    ]
    assert prefix_cache_counts(records) == {"a1": (0, 0), "a2": (2, 2)}
