"""SQuAD v1.1 EM/F1: 25 vectors computed with the official script (docs/concepts/statistics.md#squad)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from cairn_action.squad import exact_match, metric_max_over_ground_truths, normalize_answer, token_f1

# (id, prediction, ground truths, N(pred), N(golds), EM, F1 as an exact fraction)
VECTORS: list[tuple[str, str, list[str], str, list[str], int, Fraction]] = [
    ("exact", "Denver Broncos", ["Denver Broncos"], "denver broncos", ["denver broncos"], 1, Fraction(1)),
    (
        "article_case_whitespace",
        "  the DENVER\tBroncos\n",
        ["Denver Broncos"],
        "denver broncos",
        ["denver broncos"],
        1,
        Fraction(1),
    ),
    (
        "extra_token",
        "Denver Broncos team",
        ["Denver Broncos"],
        "denver broncos team",
        ["denver broncos"],
        0,
        Fraction(4, 5),
    ),
    ("comma_number", "1,000", ["1000"], "1000", ["1000"], 1, Fraction(1)),
    ("decimal_point_merge", "3.5", ["35"], "35", ["35"], 1, Fraction(1)),
    (
        "space_grouped_number",
        "1,000 people",
        ["1 000 people"],
        "1000 people",
        ["1 000 people"],
        0,
        Fraction(2, 5),
    ),
    ("number_words", "14 days", ["fourteen days"], "14 days", ["fourteen days"], 0, Fraction(1, 2)),
    ("ordinal_date", "The 14th of March", ["14 March"], "14th of march", ["14 march"], 0, Fraction(2, 5)),
    ("abbreviation_periods", "U.S.", ["US"], "us", ["us"], 1, Fraction(1)),
    ("en_dash", "24\u201310", ["24-10"], "24\u201310", ["2410"], 0, Fraction(0)),
    ("en_dash_both_sides", "24\u201310", ["24\u201310"], "24\u201310", ["24\u201310"], 1, Fraction(1)),
    ("dollar", "$5 million", ["5 million"], "5 million", ["5 million"], 1, Fraction(1)),
    ("euro", "\u20ac5 million", ["5 million"], "\u20ac5 million", ["5 million"], 0, Fraction(1, 2)),
    ("pound", "\u00a35", ["5"], "\u00a35", ["5"], 0, Fraction(0)),
    (
        "curly_quotes",
        "\u201cSuper Bowl\u201d",
        ["Super Bowl"],
        "\u201csuper bowl\u201d",
        ["super bowl"],
        0,
        Fraction(0),
    ),
    (
        "curly_apostrophe",
        "Levi\u2019s Stadium",
        ["Levi's Stadium"],
        "levi\u2019s stadium",
        ["levis stadium"],
        0,
        Fraction(1, 2),
    ),
    ("accent", "Th\u00e9\u00e2tre", ["Theatre"], "th\u00e9\u00e2tre", ["theatre"], 0, Fraction(0)),
    ("order_matters_am", "5 a.m.", ["5 am"], "5 am", ["5 am"], 1, Fraction(1)),
    ("article_next_to_unicode_dash", "an\u2014apple", ["apple"], "\u2014apple", ["apple"], 0, Fraction(0)),
    ("repeated_tokens", "cat cat cat", ["cat"], "cat cat cat", ["cat"], 0, Fraction(1, 2)),
    ("empty_prediction", "", ["Denver Broncos"], "", ["denver broncos"], 0, Fraction(0)),
    ("both_empty_after_normalisation", "the", ["A"], "", [""], 1, Fraction(0)),
    (
        "multi_gt_max_f1",
        "Denver",
        ["Denver Broncos", "Carolina Panthers"],
        "denver",
        ["denver broncos", "carolina panthers"],
        0,
        Fraction(2, 3),
    ),
    (
        "multi_gt_exact_via_article",
        "Broncos",
        ["Denver Broncos", "the Broncos"],
        "broncos",
        ["denver broncos", "broncos"],
        1,
        Fraction(1),
    ),
    ("nbsp", "5\u00a0km", ["5 km"], "5 km", ["5 km"], 1, Fraction(1)),
]


def test_vectors__all_25_present() -> None:
    assert len(VECTORS) == 25
    assert len({v[0] for v in VECTORS}) == 25


@pytest.mark.parametrize(
    ("pred", "golds", "n_pred", "n_golds"), [v[1:5] for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_normalize_answer__official_vectors(
    pred: str, golds: list[str], n_pred: str, n_golds: list[str]
) -> None:
    assert normalize_answer(pred) == n_pred
    assert [normalize_answer(g) for g in golds] == n_golds


@pytest.mark.parametrize(
    ("pred", "golds", "em", "f1"), [(v[1], v[2], v[5], v[6]) for v in VECTORS], ids=[v[0] for v in VECTORS]
)
def test_em_and_f1__official_vectors(pred: str, golds: list[str], em: int, f1: Fraction) -> None:
    assert int(metric_max_over_ground_truths(exact_match, pred, golds)) == em
    assert metric_max_over_ground_truths(token_f1, pred, golds) == pytest.approx(float(f1), abs=1e-12)


def test_token_f1__no_common_token__returns_int_zero_like_official() -> None:
    result = token_f1("cat", "dog")
    assert result == 0
    assert type(result) is int


def test_exact_match__returns_bool() -> None:
    assert exact_match("The Cat", "cat") is True


def test_metric_max__empty_ground_truths__raises_like_official() -> None:
    with pytest.raises(ValueError):
        metric_max_over_ground_truths(token_f1, "x", [])


def test_f1__order_ignored_em_not() -> None:
    assert token_f1("broncos denver", "denver broncos") == 1
    assert exact_match("broncos denver", "denver broncos") is False


def test_normalize_answer__any_text__as_the_official_script_deletes_punctuation() -> None:
    import random
    import re
    import string

    def official(s: str) -> str:  # evaluate-v1.1.py's normalize_answer, verbatim in substance
        exclude = set(string.punctuation)
        s = "".join(ch for ch in s.lower() if ch not in exclude)
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())

    rng = random.Random(11)
    alphabet = string.printable + "\u00e9\u00fc\u2018\u2019\u201c\u201d\u2014\u00b0\u00a3\u20ac\u017f\u212a"
    for _ in range(5000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert normalize_answer(s) == official(s), s
