"""SQuAD v1.1 exact match and token F1, reproducing the official evaluation script bit for bit.

The official `evaluate-v1.1.py` is the source of truth (docs/concepts/statistics.md#squad). Its quirks are
kept on purpose:
ASCII punctuation is deleted rather than replaced (`"3.5"` → `"35"`), non-ASCII punctuation survives,
articles are removed after punctuation (`"a.m."` → `"am"`), and two strings that both normalise to ""
have EM 1 but F1 0. A friendlier normaliser would need a different metric name.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TypeVar

_DELETE_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")

T = TypeVar("T", bool, float, int)


def normalize_answer(s: str) -> str:
    """Lowercase, delete ASCII punctuation, replace articles by a space, collapse whitespace."""
    lowered = s.lower()
    no_punct = lowered.translate(_DELETE_PUNCTUATION)  # in C: the official script's join over each char
    no_articles = _ARTICLES.sub(" ", no_punct)
    return " ".join(no_articles.split())


def exact_match(prediction: str, ground_truth: str) -> bool:
    """True when both strings normalise to the same text."""
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def token_f1(prediction: str, ground_truth: str) -> float:
    """Multiset token overlap F1 of the normalised strings; 0 when they share no token."""
    pred_tokens = normalize_answer(prediction).split()
    gold_tokens = normalize_answer(ground_truth).split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = num_same / len(pred_tokens)
    recall = num_same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def metric_max_over_ground_truths(
    metric_fn: Callable[[str, str], T], prediction: str, ground_truths: Sequence[str]
) -> T:
    """The best score of `prediction` against any of the ground truths (raises on an empty list)."""
    return max(metric_fn(prediction, gt) for gt in ground_truths)
