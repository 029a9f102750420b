"""Scoring: pure functions from run records to every number in a report.

The answer metrics are SQuAD v1.1's, public so that users can score their own strings the same way:

    >>> from cairn_action.score import exact_match, token_f1
    >>> exact_match("The Denver Broncos", "Denver Broncos"), token_f1("Denver Broncos team", "Denver Broncos")
    (True, 0.8)
"""

from __future__ import annotations

from cairn_action.score.calibration.threshold import ThresholdFit, fit_threshold, k_min
from cairn_action.score.metrics import METRICS, METRICS_BY_NAME, MetricSpec, get_metric
from cairn_action.score.operational import percentile
from cairn_action.score.retrieval import first_relevant_rank, ndcg_at_k, recall_at_k, reciprocal_rank
from cairn_action.score.scorecard import Scorecard, score_records
from cairn_action.squad import exact_match, metric_max_over_ground_truths, normalize_answer, token_f1

__all__ = [
    "METRICS",
    "METRICS_BY_NAME",
    "MetricSpec",
    "Scorecard",
    "ThresholdFit",
    "exact_match",
    "first_relevant_rank",
    "fit_threshold",
    "get_metric",
    "k_min",
    "metric_max_over_ground_truths",
    "ndcg_at_k",
    "normalize_answer",
    "percentile",
    "recall_at_k",
    "reciprocal_rank",
    "score_records",
    "token_f1",
]
