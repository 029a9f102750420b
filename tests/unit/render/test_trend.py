"""The trend under the comment: which earlier reports it draws, and how it counts them."""

from __future__ import annotations

from gate_fixtures import report

from cairn_action.render.trend import build_trend, trend_view


def test_build_trend__baseline_made_in_the_same_second__still_drawn_with_one_earlier_run() -> None:
    baseline, candidate = report("baseline"), report("critical_lost")
    # `cairn demo` (and a fast machine) makes the baseline and the candidate in the same second.
    same_second = candidate.model_copy(update={"created_at": baseline.created_at})
    trend = build_trend([baseline], same_second)
    assert trend is not None and [p.label for p in trend.points][-1] == "this PR"
    assert len(trend.points) == 2
    assert trend_view(trend).summary.endswith(": 1 earlier run, then this PR")


def test_build_trend__the_candidate_itself_in_the_history__not_drawn_twice() -> None:
    baseline, candidate = report("baseline"), report("critical_lost")
    trend = build_trend([baseline, candidate], candidate)
    assert trend is not None and len(trend.points) == 2


def test_build_trend__two_targets_under_one_config__never_share_a_line() -> None:
    baseline, candidate = report("baseline"), report("critical_lost")
    extractive = baseline.model_copy(update={"target_hash": "1111222233334444"})
    llm_backed = candidate.model_copy(update={"target_hash": "aaaabbbbccccdddd"})
    assert build_trend([extractive], llm_backed) is None  # no earlier run of this code: no line
    again = llm_backed.model_copy(update={"created_at": "2099-01-01T00:00:00Z"})
    trend = build_trend([extractive, llm_backed], again)
    assert trend is not None and len(trend.points) == 2  # the same code's earlier run, then this one
