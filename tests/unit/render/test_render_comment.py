"""The pull-request comment: pinned against committed expected files, parsed as GitHub markdown, and
kept under GitHub's size limit. `CAIRN_REGENERATE=1` rewrites the expected files (review the diff)."""

from __future__ import annotations

import dataclasses
import re
from types import SimpleNamespace

import pytest
from gate_fixtures import OVERRIDE, REPORTS, assert_matches_expected, gate, report
from jinja2 import UndefinedError
from markdown_it import MarkdownIt

from cairn_action.gate import run_gate
from cairn_action.gate.models import Override
from cairn_action.render.comment_view import build_view
from cairn_action.render.markdown import MAX_COMMENT_CHARS, render_comment, render_view
from cairn_action.render.trend import Trend, build_trend
from cairn_action.report.io import read_report
from cairn_action.report.models import PerCase, Report

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def _history() -> list[Report]:
    return [read_report(p) for p in sorted((REPORTS / "history").glob("default-*.json"))]


def _render(
    candidate: str, *, override: Override | None = None, with_trend: bool = True, baseline: str = "baseline"
) -> str:
    trend = build_trend(_history(), report(candidate)) if with_trend else None
    return render_comment(gate(candidate, override=override, baseline=baseline), trend=trend)


CASES = {
    "pass_no_change.md": ("baseline", None),
    "regression_critical.md": ("critical_lost", None),
    "overridden.md": ("critical_lost", OVERRIDE),
    "refused_golden_version.md": ("golden_v2", None),
    "pass_improved.md": ("improved", None),
    "regression_recall.md": ("recall_drop", None),
    "regression_top_k.md": ("top_k_cut", None),
    "incomplete_missing_case.md": ("missing_case", None),
    "pass_other_machine.md": ("slow_other_machine", None),
}
# A system that is not deterministic, gated on its samples (the baseline asked critical cases 3 times).
NOISY = {
    "pass_flaky_critical.md": "noisy_flaky",
    "regression_confirmed_loss.md": "noisy_lost",
    "incomplete_errored.md": "noisy_errored",
}


@pytest.mark.parametrize("expected", sorted(CASES))
def test_render__fixture__matches_expected_markdown(expected: str) -> None:
    candidate, override = CASES[expected]
    assert_matches_expected(expected, _render(candidate, override=override))


@pytest.mark.parametrize("expected", sorted(NOISY))
def test_render__noisy_system__shows_the_samples_behind_each_verdict(expected: str) -> None:
    text = _render(NOISY[expected], baseline="noisy_baseline", with_trend=False)
    assert_matches_expected(expected, text)


def _html(tokens: list) -> list[str]:
    return [t.content.strip() for t in tokens if t.type in ("html_block", "html_inline")] + [
        c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "html_inline"
    ]


@pytest.mark.parametrize("expected", sorted(CASES))
def test_render__fixture__tables_and_details_parse_as_gfm(expected: str) -> None:
    candidate, override = CASES[expected]
    body = _render(candidate, override=override)
    tokens = MD.parse(body)
    assert body.startswith("<!-- cairn:gate config=default -->\n")
    # Every table in the source is a table to the parser, each row with as many cells as the header.
    separators = [line for line in body.splitlines() if re.fullmatch(r"\|(-+\|)+", line)]
    assert sum(t.type == "table_open" for t in tokens) == len(separators)
    header_cells, row_cells, in_head = 0, 0, False
    for t in tokens:
        if t.type in ("thead_open", "thead_close"):
            in_head = t.type == "thead_open"
            header_cells = 0 if in_head else header_cells
        elif t.type == "th_open":
            header_cells += 1
        elif t.type == "tr_open":
            row_cells = 0
        elif t.type == "td_open":
            row_cells += 1
        elif t.type == "tr_close" and not in_head:
            assert row_cells == header_cells
    # <details> blocks open and close in pairs, each with its summary; no other HTML but <br> and <sub>.
    html = _html(tokens)
    opens = [h for h in html if h.startswith("<details>")]
    assert len(opens) == html.count("</details>") == body.count("<summary>")
    allowed = ("<!-- cairn:gate", "<details>", "</details>", "<br>", "<sub>", "</sub>")
    assert all(h.startswith(allowed) for h in html)


def test_render__regression__verdict_reasons_and_critical_cases_lead() -> None:
    body = _render("critical_lost")
    lines = body.splitlines()
    assert lines[1] == "### ❌ Cairn: regression for default"
    assert lines[3] == "**2 broke, 1 fixed of 12 cases**"
    assert (
        body.index("critical case ret-008")
        < body.index("#### Critical cases lost (2)")
        < body.index("<details>")
    )
    assert "No, it is milk-free" in body and "Because drivers were reassigned to Saturdays" in body
    assert "```mermaid\nxychart-beta" in body


def test_render__overridden__who_which_label_and_why() -> None:
    body = _render("critical_lost", override=OVERRIDE)
    assert "### ⚠️ Cairn: regression, overridden" in body
    assert "maintainer-jo" in body and "cairn-override" in body and "#\u200d41" in body


def test_render__refused__reasons_with_what_to_do_and_nothing_else() -> None:
    body = _render("golden_v2")
    assert "### ⛔ Cairn: refused to compare" in body
    assert "golden\\_version '1', candidate golden\\_version '2'" in body
    assert "To fix: a new golden version is a new exam" in body
    assert "<details>" not in body


def test_render__no_history__no_trend() -> None:
    assert "mermaid" not in _render("critical_lost", with_trend=False)


def test_build_trend__history__earlier_runs_then_this_pr_on_same_golden_set() -> None:
    trend = build_trend(_history(), report("critical_lost"))
    assert isinstance(trend, Trend)
    assert [p.label for p in trend.points] == ["01-02 08:15", "01-03 16:40", "01-05 10:00", "this PR"]
    assert trend.metric.name == "token_f1"
    other = report("golden_v2")
    assert build_trend(_history(), other) is None


def _huge(n_cases: int, answer: str) -> tuple[Report, Report]:
    baseline = report("baseline")
    rows_before, rows_after = [], []
    for i in range(n_cases):
        case = dict(
            case_id=f"c-{i:05d}",
            answerable=True,
            question="Q? " + answer,
            expected_answer=answer,
            tags=["safety"],
            support_located=True,
            retrieved_support_rank=1,
        )
        rows_before.append(PerCase(status="answered", correct=True, answer_text=answer, token_f1=1.0, **case))
        rows_after.append(
            PerCase(status="answered", correct=False, answer_text=answer[::-1], token_f1=0.0, **case)
        )
    return (
        baseline.model_copy(update={"per_case": rows_before, "n_cases": n_cases}),
        baseline.model_copy(update={"per_case": rows_after, "n_cases": n_cases}),
    )


def test_render__thousands_of_long_changes__under_github_limit_with_cut_lines() -> None:
    before, after = _huge(3000, "<b>|`@x`|</b> " * 500)
    body = render_comment(run_gate(before, after))
    assert len(body) <= MAX_COMMENT_CHARS
    assert re.search(r"_\d+ more rows left out here", body)
    assert re.search(r"_\d+ more critical cases left out here", body)
    assert "and 2991 more reasons" in body or re.search(r"and \d+ more reasons", body)


def test_render__limit__shrinks_budget_until_it_fits() -> None:
    result = gate("critical_lost")
    full = render_comment(result)
    small = render_comment(result, limit=len(full) - 1)
    assert len(small) < len(full)
    assert small.startswith("<!-- cairn:gate config=default -->")


def test_render_view__field_missing_from_view__template_fails_loudly() -> None:
    view = build_view(gate("critical_lost"))
    fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view) if f.name != "footer"}
    with pytest.raises(UndefinedError, match="footer"):
        render_view(SimpleNamespace(**fields))  # type: ignore[arg-type]


def test_render__stale_by_a_changed_document__listed_with_the_document_apart_from_a_vanished_quote() -> None:
    baseline = report("baseline")
    stale = {
        "ret-008": ["policies/allergens.md"],  # a safety case whose passage changed
        "ret-002": ["handbook/leave.md", "handbook/leave-2027.md"],
        "ret-003": [],  # its quote vanished: stale too, but not listed as a changed document
    }
    rows = [
        row.model_copy(
            update={
                "status": "stale",
                "correct": None,
                "n_right": None,
                "changed_documents": stale[row.case_id],
            }
        )
        if row.case_id in stale
        else row
        for row in baseline.per_case
    ]
    candidate = baseline.model_copy(update={"per_case": rows})
    body = render_comment(run_gate(baseline, candidate), trend=None)
    assert_matches_expected("stale_changed_document.md", body)
    section = body[body.index("<summary>Stale: the document changed") :].split("</details>", 1)[0]
    assert "ret-003" not in section and "policies/allergens.md" in section


def test_tag_section__tag_with_fewer_cases_than_a_claim_needs__delta_marked_underpowered_cell_by_cell():
    from cairn_action.gate.paired import SUBGROUP_CLAIM_MIN
    from cairn_action.render.tables import UNDERPOWERED_MARK, Budget, tag_section

    comparison = gate("critical_lost").comparison
    big, small = comparison.tags[0], comparison.tags[1]
    # One tag large enough for a per-tag claim (correctness and recall), one too small; both changed.
    big = big.model_copy(
        update={
            "n": SUBGROUP_CLAIM_MIN,
            "n_with_support": SUBGROUP_CLAIM_MIN,
            "baseline_correct": 1.0,
            "candidate_correct": 0.9,
            "baseline_recall": 1.0,
            "candidate_recall": 0.5,
        }
    )
    small = small.model_copy(
        update={
            "n": SUBGROUP_CLAIM_MIN - 1,
            "n_with_support": SUBGROUP_CLAIM_MIN - 1,
            "baseline_correct": 1.0,
            "candidate_correct": 0.9,
            "baseline_recall": 1.0,
            "candidate_recall": 1.0,
        }
    )
    section = tag_section(comparison.model_copy(update={"tags": [big, small]}), Budget())
    assert section is not None
    big_row, small_row = [
        line for line in section.table.splitlines() if line.startswith("| ") and "→" in line
    ]
    assert UNDERPOWERED_MARK not in big_row
    assert "-10.0 pp" + UNDERPOWERED_MARK in small_row
    # The unchanged recall of the small tag claims nothing, so it carries no mark.
    assert small_row.count(UNDERPOWERED_MARK) == 1
    assert "underpowered: fewer than 50 cases" in section.omitted
    only_big = tag_section(comparison.model_copy(update={"tags": [big]}), Budget())
    assert only_big is not None and "underpowered" not in only_big.omitted


def test_render__noisy_system_with_base_control__says_what_the_base_system_answers_now() -> None:
    # The base control re-asked the base system on the one changed case (ret-008, right in 3 of 3 now): the
    # note names the control and its cost, the critical loss reads the base system's answers now, and the
    # statistics line carries the fresh pairing beside the test over every sample.
    from cairn_action.report.models import ControlNote

    baseline, candidate = report("noisy_baseline"), report("noisy_lost")
    note = ControlNote(
        cases=["ret-008"], samples=3, calls=3, cost_usd=0.0012, created_at="2026-12-06T05:00:00Z"
    )
    control = baseline.model_copy(update={"notes": baseline.notes.model_copy(update={"control": note})})
    result = run_gate(baseline, candidate, control=control)
    body = render_comment(result, trend=None)
    assert "on the 1 case(s) re-asked of both systems now, the base system right in 3 of 3" in body
    assert_matches_expected("regression_with_base_control.md", body)
