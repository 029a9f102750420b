"""The comment says what it means: each token F1 figure names its cases, the config diff says what changed,
a case that went wrong says why, tables stay narrow, the title is one line, metric names are searchable."""

from __future__ import annotations

import re

from gate_fixtures import REPORTS, gate, report
from markdown_it import MarkdownIt

from cairn_action.config import Config, experiment_settings
from cairn_action.gate import run_gate
from cairn_action.render.escape import ZWJ
from cairn_action.render.markdown import render_comment
from cairn_action.render.terminal import why
from cairn_action.report.io import read_report
from cairn_action.report.models import Report

MD = MarkdownIt("commonmark").enable(["table"])


def _body(candidate: str) -> str:
    return render_comment(gate(candidate))


def _with_settings(base: Report, **settings: object) -> Report:
    notes = base.notes.model_copy(update={"config": {**base.notes.config, **settings}})
    return base.model_copy(update={"notes": notes, "config_hash": "ffff0000ffff0000"})


def _tables(body: str) -> list[list[list[str]]]:
    """Every table of the markdown as rows of cell texts, the header row first."""
    tables, rows, row, cell = [], [], [], None
    for token in MD.parse(body):
        if token.type == "table_open":
            rows = []
        elif token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            cell = ""
        elif token.type == "inline" and cell is not None:
            cell = token.content
        elif token.type in ("th_close", "td_close"):
            row.append(cell or "")
            cell = None
        elif token.type == "tr_close":
            rows.append(row)
        elif token.type == "table_close":
            tables.append(rows)
    return tables


def test_render__token_f1__table_and_statistics_name_their_populations() -> None:
    body = _body("critical_lost")
    # The table's mean over each report's answered cases; the statistics' paired change over all
    # answerable ones (an abstention scores 0): the same name for two figures that may disagree, labelled.
    assert "| token F1 (answered cases) | 0.906      | 0.900     | 🔴 -0.006   |" in body
    assert "paired token F1 Δ -0.006 over the 9 answerable cases both scored, an abstention scoring 0" in body
    top_k = _body("top_k_cut")
    assert "| token F1 (answered cases) | 0.906      | 0.607     | 🔴 -0.299   |" in top_k
    assert "paired token F1 Δ -0.333 over the 9 answerable cases both scored" in top_k


def test_render__config_changed__a_few_settings_on_one_line() -> None:
    body = _body("recall_drop")
    assert "**Config changed**: chunking.overlap 160 → 40; chunking.size 800 → 200\n" in body
    assert body.index("**Config changed**") < body.index("| recall@5 ")


def test_render__config_changed__many_settings_collapsed_in_details() -> None:
    body = _body("top_k_cut")
    keys = "chunking.overlap, chunking.size, retrieval.depth, …"
    assert f"<summary>Config changed: 4 settings ({keys})</summary>" in body
    rows = next(t for t in _tables(body) if t[0] == ["setting", "baseline", "this PR"])
    assert rows[1:] == [
        ["chunking.overlap", "160", "40"],
        ["chunking.size", "800", "200"],
        ["retrieval.depth", "10", "20"],
        ["retrieval.top\\_k", "5", "1"],
    ]


def test_render__config_unchanged__no_config_line() -> None:
    assert "Config" not in render_comment(run_gate(report("baseline"), report("baseline")))


def test_render__config_values__escaped_like_any_report_text() -> None:
    base = report("baseline")
    hostile = _with_settings(base, **{"provider.model": "@octocat </details> **x** | y"})
    body = render_comment(run_gate(base, hostile))
    assert f"provider.model stub-extractive-v1 → @{ZWJ}octocat &lt;/details&gt; \\*\\*x\\*\\* \\| y" in body


def test_experiment_settings__urls__credentials_query_and_fragment_left_out() -> None:
    config = Config.model_validate(
        {"target": "https://user:s3cret@rag.example:8443/answer?token=abc#frag", "chunking": {"size": 200}}
    )
    settings = experiment_settings(config)
    assert settings["target"] == "https://rag.example:8443/answer"
    assert settings["chunking.size"] == 200 and settings["retrieval.top_k"] == 5
    assert "run.cache_dir" not in settings and "corpus.path" not in settings  # not part of the experiment
    assert "s3cret" not in str(settings) and "abc" not in str(settings) and "frag" not in str(settings)


def test_render__report_older_than_config_snapshots__says_what_its_notes_show() -> None:
    base, candidate = report("baseline"), report("critical_lost")
    old = base.model_copy(update={"notes": base.notes.model_copy(update={"config": {}})})
    body = render_comment(run_gate(old, candidate))
    hashes = "e26592bbd90d0924 → a1b2c3d4e5f60718"
    assert f"**Config**: hash {hashes}; a report older than config snapshots" in body
    narrower = candidate.model_copy(update={"notes": candidate.notes.model_copy(update={"top_k": 3})})
    body = render_comment(run_gate(old, narrower))
    assert "**Config changed** (of the settings an older report records): retrieval.top\\_k 5 → 3" in body


def test_render__cases_that_went_wrong__say_why_from_the_evidence() -> None:
    body = _body("top_k_cut")
    broke = next(t for t in _tables(body) if t[0][0] == "case" and len(t[0]) == 4)
    cells = {row[0]: row for row in broke[1:]}
    assert cells["ret-002 · date"][3].endswith("why: support ranked 2, the answerer saw only 1 chunk")
    assert cells["ret-004 · name"][3].endswith("why: support not in the top 20 retrieved")
    assert cells["ret-005 · numeric"][3].endswith("why: withheld: confidence 0.31 below the threshold 0.50")
    assert all("why:" not in row[2] for row in broke[1:])  # the baseline was right: nothing to explain
    critical = _body("critical_lost")
    judged = "lexical judge said wrong; support seen (rank 1 of top 5)"
    assert f"| why          | —                                | {judged} |" in critical
    assert "why: confidence 0.62 cleared the threshold 0.50" in critical


def test_show_and_comment__support_beyond_what_the_answerer_saw__same_phrase() -> None:
    candidate = read_report(REPORTS / "top_k_cut.json")
    case = next(c for c in candidate.per_case if c.case_id == "ret-002")
    phrase = "support ranked 2, the answerer saw only 1 chunk"
    assert phrase in why(case, candidate) and phrase in _body("top_k_cut")


def test_render__leaderboard__one_metric_per_row_so_delta_cells_stay_short() -> None:
    for name in ("critical_lost", "slow_other_machine", "top_k_cut"):
        board = next(t for t in _tables(_body(name)) if t[0][0] == "")
        assert board[0] == ["", "baseline", "this PR", "Δ"]
        assert board[1][0] == "recall@5" and len(board) == 9
        # At GitHub's 760 px a four-column table keeps each Δ on one line (scripts/comment_width.py).
        assert max(len(row[3]) for row in board[1:]) <= 24, board


def test_render__title__one_line_with_status_and_config_the_headline_below() -> None:
    lines = _body("critical_lost").splitlines()
    assert lines[1] == "### ❌ Cairn: regression for default"
    assert lines[3] == "**2 broke, 1 fixed of 12 cases**"
    base, candidate = report("baseline"), report("critical_lost")
    long_name = "a-very-long-experiment-name-for-the-reranker-trial-v2"
    renamed = candidate.model_copy(update={"config_name": long_name})
    body = render_comment(run_gate(base.model_copy(update={"config_name": long_name}), renamed))
    title = body.splitlines()[1]
    assert len(title) <= 60 and title.endswith("…")
    assert f"config {long_name.replace('_', chr(92) + '_')}" in body  # the whole name, in the footer


def test_render__metric_names__no_zero_width_joiner_so_ctrl_f_finds_them() -> None:
    for name in ("critical_lost", "recall_drop", "top_k_cut"):
        body = _body(name)
        assert "recall@5 fell" in body or "| recall@5 " in body
        assert not re.search(f"[A-Za-z0-9]@{ZWJ}", body), name


def test_render__change_smaller_than_the_shown_precision__delta_agrees_with_the_two_values() -> None:
    base, candidate = report("baseline"), report("baseline")
    base = base.model_copy(update={"answer": base.answer.model_copy(update={"faithfulness": 0.0374})})
    candidate = candidate.model_copy(
        update={"answer": candidate.answer.model_copy(update={"faithfulness": 0.0368})}
    )
    rows = [
        r for t in _tables(render_comment(run_gate(base, candidate))) for r in t if r[0] == "faithfulness"
    ]
    assert rows
    for row in rows:
        assert row[1] == row[2] == "3.7%"  # the two values look the same...
        assert row[3].endswith("-0.06 pp")  # ...so the change is shown finer, not as "-0.1 pp"


def test_render__target_code_changed__the_comment_says_so_with_both_identities() -> None:
    base = report("baseline").model_copy(update={"target_hash": "1111222233334444"})
    candidate = report("baseline").model_copy(update={"target_hash": "aaaabbbbccccdddd"})
    body = render_comment(run_gate(base, candidate))
    assert "**Target code changed**: 1111222233334444 → aaaabbbbccccdddd" in body
    unchanged = render_comment(run_gate(base, base.model_copy(update={"created_at": "2099-01-01T00:00:00Z"})))
    assert "Target code changed" not in unchanged
