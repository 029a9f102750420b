"""The judge check's figures (score/judge_check.py) against an independent computation, and its input."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cairn_action.errors import DataError
from cairn_action.score.judge_check import Label, disagreements, measure, read_labels


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's score interval written out (Wilson 1927), not scipy's."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _kappa(tp: int, fn: int, fp: int, tn: int) -> float:
    """Cohen's kappa of a 2 x 2 table in its closed form, 2(ad - bc) / ((a+b)(b+d) + (a+c)(c+d))."""
    a, b, c, d = tp, fn, fp, tn
    return 2 * (a * d - b * c) / ((a + b) * (b + d) + (a + c) * (c + d))


@pytest.mark.parametrize(("tp", "fn", "fp", "tn"), [(30, 0, 8, 22), (40, 5, 3, 12), (7, 3, 2, 1)])
def test_measure__tpr_tnr_wilson_and_kappa__match_the_closed_forms(
    tp: int, fn: int, fp: int, tn: int
) -> None:
    human = [True] * (tp + fn) + [False] * (fp + tn)
    judge = [True] * tp + [False] * fn + [True] * fp + [False] * tn
    check = measure(human, judge, judge_name="lexical", labels="l.jsonl", sha256="0" * 64)
    assert (check.true_positive, check.false_negative, check.false_positive, check.true_negative) == (
        tp,
        fn,
        fp,
        tn,
    )
    assert check.tpr == pytest.approx(tp / (tp + fn)) and check.tnr == pytest.approx(tn / (tn + fp))
    assert (check.tpr_low, check.tpr_high) == pytest.approx(_wilson(tp, tp + fn), abs=1e-12)
    assert (check.tnr_low, check.tnr_high) == pytest.approx(_wilson(tn, tn + fp), abs=1e-12)
    assert check.agreement == pytest.approx((tp + tn) / len(human))
    assert check.kappa == pytest.approx(_kappa(tp, fn, fp, tn), abs=1e-12)
    assert check.summary() == f"judge: lexical, kappa {check.kappa:.2f} on {len(human)} labels"


def test_wilson__every_k_of_n_up_to_80__equals_scipys_wilson_interval() -> None:
    # The module computes the interval without scipy (importing scipy.stats cost every report ~0.9 s);
    # scipy's own `proportion_ci(method="wilson")` is the reference it replaced, end points included.
    from scipy import stats

    from cairn_action.score.judge_check import _wilson as wilson

    for n in range(1, 81):
        for k in range(n + 1):
            ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            assert wilson(k, n) == pytest.approx((k / n, ci.low, ci.high), abs=1e-12), (k, n)


def test_measure__one_label_throughout__kappa_undefined_and_said() -> None:
    check = measure([True, True], [True, True], judge_name="lexical", labels="l", sha256="")
    assert check.kappa is None and check.tnr is None
    assert check.summary() == "judge: lexical, kappa undefined (one label throughout) on 2 labels"


def test_read_labels__csv_and_jsonl_with_verdict_words__the_same_labels(tmp_path: Path) -> None:
    (tmp_path / "l.csv").write_text("case_id,answer,human\nt-01,14 days,correct\nt-02,9 days,no\n")
    (tmp_path / "l.jsonl").write_text(
        '{"case_id": "t-01", "answer": "14 days", "human": true}\n\n'
        '{"id": "t-02", "answer": "9 days", "verdict": 0}\n'
    )
    csv_labels, _ = read_labels(tmp_path / "l.csv")
    json_labels, _ = read_labels(tmp_path / "l.jsonl")
    assert [(x.case_id, x.answer, x.human) for x in csv_labels] == [
        ("t-01", "14 days", True),
        ("t-02", "9 days", False),
    ]
    assert [(x.case_id, x.human) for x in json_labels] == [("t-01", True), ("t-02", False)]
    assert [x.line for x in csv_labels] == [2, 3] and [x.line for x in json_labels] == [1, 3]


def test_read_labels__verdict_that_is_neither__data_error_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "l.jsonl"
    path.write_text(
        '{"case_id": "t-01", "answer": "x", "human": true}\n'
        '{"case_id": "t-02", "answer": "y", "human": "maybe"}\n'
    )
    with pytest.raises(DataError, match=r"l\.jsonl:2: human verdict 'maybe' is neither right nor wrong"):
        read_labels(path)


def test_disagreements__by_file_and_line_ten_at_most__the_rest_counted__model_words_printable() -> None:
    labels = [
        Label(case_id=f"c-{i:02d}", answer=f"answer {i}\nsecond line", human=i % 2 == 0, line=i + 1)
        for i in range(14)
    ]
    verdicts = [label.human if i < 2 else not label.human for i, label in enumerate(labels)]
    rationales = ["\x1b[31mred\x1b[0m says\nso"] * 14
    lines = disagreements("labels.jsonl", labels, verdicts, rationales)
    assert lines[0] == "the judge disagrees with 12 label(s):"
    shown = "'answer 2 second line' ([31mred[0m says so)"
    assert lines[1] == f"labels.jsonl:3: c-02: a human says right, the judge wrong: {shown}"
    assert len(lines) == 1 + 10 + 1 and lines[-1] == "... and 2 more"
    assert all("\x1b" not in line for line in lines)
    assert disagreements("labels.jsonl", labels[:2], verdicts[:2], rationales[:2]) == []
