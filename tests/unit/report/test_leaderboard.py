"""`cairn bench`: the leaderboard's layout, order and grouping, against committed expected markdown."""

from __future__ import annotations

import os
from pathlib import Path

from test_report_build import _build

from cairn_action.report.leaderboard import COLUMNS, primary_metric, render_leaderboard
from cairn_action.report.models import Report

EXPECTED = Path(__file__).resolve().parents[2] / "data" / "leaderboard"


def _expected(name: str, text: str) -> str:
    """The committed expected file; `CAIRN_REGENERATE=1` rewrites it first (review the diff)."""
    path = EXPECTED / name
    if os.environ.get("CAIRN_REGENERATE") == "1":
        path.write_text(text, encoding="utf-8")
    return path.read_text(encoding="utf-8")


def _variant(name: str, token_f1: float, *, judge: float | None = None, corpus: str | None = None) -> Report:
    base = _build("eval")
    answer = base.answer.model_copy(update={"token_f1": token_f1, "judge_score": judge})
    update: dict[str, object] = {"config_name": name, "answer": answer}
    if corpus is not None:
        update["corpus_hash"] = corpus
    return base.model_copy(update=update)


def test_columns__the_reference_order() -> None:
    assert ["config", *(c.label for c in COLUMNS)] == [
        "config",
        "recall@5",
        "nDCG@10",
        "token F1",
        "judge",
        "citation validity",
        "answer rate",
        "error among answered",
        "cost/q",
        "p95 ms",
    ]


def test_leaderboard__sorted_by_token_f1_without_judge__matches_expected() -> None:
    reports = [_variant("default", 0.71), _variant("small-chunks", 0.83), _variant("top-k-3", 0.64)]
    text = render_leaderboard(reports)
    assert text == _expected("token_f1.md", text)
    assert text.index("small-chunks") < text.index("default") < text.index("top-k-3")


def test_leaderboard__judge_is_primary_only_when_every_report_has_it() -> None:
    both = [_variant("a", 0.9, judge=0.5), _variant("b", 0.5, judge=0.8)]
    assert primary_metric(both).name == "judge_score"
    text = render_leaderboard(both)
    assert text.index("| b ") < text.index("| a ")
    assert primary_metric([*both, _variant("c", 0.7)]).name == "token_f1"


def test_leaderboard__different_corpora_never_share_a_table__matches_expected() -> None:
    reports = [
        _variant("default", 0.71),
        _variant("small-chunks", 0.83),
        _variant("other", 0.99, corpus="e" * 64),
    ]
    text = render_leaderboard(reports)
    assert text == _expected("mixed_corpora.md", text)
    assert text.count("| config") == 2 and "not comparable" in text


def test_leaderboard__no_reports__says_how_to_make_one() -> None:
    assert "run `cairn eval`" in render_leaderboard([])


def test_leaderboard__same_input_same_bytes_whatever_the_order() -> None:
    reports = [
        _variant("default", 0.71),
        _variant("small-chunks", 0.83),
        _variant("other", 0.99, corpus="e" * 64),
    ]
    assert render_leaderboard(reports) == render_leaderboard(reports[::-1])
