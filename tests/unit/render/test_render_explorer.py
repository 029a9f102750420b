"""The case explorer's page, checked structurally: every case is in it, nothing in it reaches the network,
and hostile report text stays text (the page's script is checked in a real browser by
scripts/explorer-browser-check)."""

from __future__ import annotations

import json

import pytest
from explorer_kit import (
    REPO,
    Page,
    _scoring_report_and_records,
    assert_self_contained,
)
from gate_fixtures import gate, report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field
from test_render_hostile import _expand, _reports, hostile

from cairn_action.gate import run_gate
from cairn_action.render.explorer.cases import RETRIEVED_COLUMNS, samples
from cairn_action.render.explorer.page import PAGE_SIZE, embed_json, render_explorer
from cairn_action.render.explorer.reliability import build_reliability, verdicts
from cairn_action.report.io import read_report
from cairn_action.report.models import PerCase, TagStats


def test_explorer__gate_fixture_with_baseline__every_case_and_the_gates_diff() -> None:
    result = gate("critical_lost")
    candidate = report("critical_lost")
    page = assert_self_contained(render_explorer(candidate, result=result))

    data = page.data
    assert [c["id"] for c in data["cases"]] == [c.case_id for c in candidate.per_case]
    assert [c["question"] for c in data["cases"]] == [c.question for c in candidate.per_case]
    changes = {c.case_id: c for c in result.comparison.changes}
    assert {c["id"] for c in data["cases"] if c["change"]} == set(changes)
    for case in data["cases"]:
        if case["change"]:
            gate_change = changes[case["id"]]
            assert case["change"]["outcome"] == gate_change.outcome
            assert case["change"]["baseline"]["answer"] == gate_change.baseline.answer_text
    # Critical first, and the lost critical case leads.
    order = data["diff"]["order"]
    assert sorted(order) == sorted(changes)
    critical = [changes[i].critical for i in order]
    assert critical == sorted(critical, reverse=True)
    assert order[0] == result.comparison.critical_losses[0].case_id
    assert data["has_run"] is False and data["cases"][0]["retrieved"] is None
    assert "Gate: regression" in render_explorer(candidate, result=result)


def test_explorer__scoring_fixture_with_run__retrieved_scores_claims_and_rationale() -> None:
    built, records = _scoring_report_and_records()
    page = assert_self_contained(render_explorer(built, records=records, run_sources=["run.jsonl"]))

    cases = {c["id"]: c for c in page.data["cases"]}
    docs = page.data["docs"]
    assert list(cases) == [c.case_id for c in built.per_case]
    for case_id, record in records.items():
        case = cases[case_id]
        chunks = [dict(zip(RETRIEVED_COLUMNS, row, strict=True)) for row in case["retrieved"]]
        assert [(c["rank"], c["chunk_id"], docs[c["doc"]], c["score"]) for c in chunks] == [
            (c.rank, c.chunk_id, c.doc, round(c.score, 4)) for c in record.retrieved
        ]
        assert {c["chunk_id"] for c in chunks if c["support"]} == set(record.support_chunk_ids) & {
            c.chunk_id for c in record.retrieved
        }
        assert {c["chunk_id"] for c in chunks if c["cited"]} == {c.chunk_id for c in record.citations} & {
            c.chunk_id for c in record.retrieved
        }
        assert [c["verified"] for c in case["claims"]] == [c.verified for c in record.claims]
        assert (case["judge"] or {}).get("rationale") == (record.judge.rationale if record.judge else None)
    assert page.data["has_run"] is True and page.data["diff"] is None


def test_explorer__shipped_sample__small_and_complete() -> None:
    sample = read_report(REPO / "reports" / "latest" / "default.json")
    html = render_explorer(sample)
    page = assert_self_contained(html)
    assert len(html.encode("utf-8")) < 500_000
    assert len(page.data["cases"]) == len(sample.per_case) == 72
    assert page.data["page_size"] == PAGE_SIZE
    assert 'id="threshold-line"' in html  # the shipped baseline is calibrated: the threshold is drawn


def test_embed_json__script_breaking_text__escaped_and_round_trips() -> None:
    texts = ["</script><script>alert(1)</script>", "<!--", "a & b > c", "https://evil.example/x"]
    texts.append("\u2028\u2029")
    blob = embed_json({"t": texts, "nan": float("nan")})
    assert not set("<>&") & set(blob) and "://" not in blob and "\u2028" not in blob and "\u2029" not in blob
    assert json.loads(blob) == {"t": texts, "nan": None}


def test_explorer__rows_with_samples__samples_line_shown() -> None:
    class Sample(BaseModel):  # one more ask of the case, as a repeated-sampling run records it
        sample: int
        status: str
        right: bool | None = None
        confidence: float | None = None
        answer_text: str | None = None

    class Sampled(PerCase):  # the fields a repeated-sampling run adds to each row
        n_samples: int = 1
        n_right: int | None = None
        agreement: float | None = None
        samples: list[Sample] = Field(default_factory=list)

    base = report("baseline").per_case[0]
    others = [
        Sample(sample=i, status="answered", right=i != 2, confidence=0.5, answer_text=f"a{i}") for i in (1, 2)
    ]
    fields = {**base.model_dump(), "n_samples": 3, "n_right": 2, "agreement": 2 / 3}
    repeated = Sampled(**{**fields, "samples": others})
    shown = samples(repeated)
    assert shown is not None and (shown["n"], shown["right"], shown["agreement"]) == (3, 2, 2 / 3)
    assert [(o["sample"], o["right"], o["answer"]) for o in shown["others"]] == [
        (1, True, "a1"),
        (2, False, "a2"),
    ]
    assert (
        samples(Sampled(**{**fields, "n_samples": 1, "samples": []})) is None
    )  # one sample: nothing to show
    assert samples(base) is None  # a report without the fields (or with one sample a case)
    page = Page(render_explorer(report("baseline").model_copy(update={"per_case": [repeated]})))
    assert page.data["cases"][0]["samples"]["others"][1]["answer"] == "a2"


def test_reliability__withheld_answers__plotted_only_with_their_verdicts() -> None:
    built, records = _scoring_report_and_records()
    withheld = built.per_case[0].model_copy(
        update={"status": "abstained", "abstained_by_threshold": True, "correct": None, "confidence": 0.3}
    )
    rows = [*built.per_case, withheld]
    with_run, unknown_with_run = verdicts(rows, records)
    without_run, unknown = verdicts(rows, None)
    answered = [c for c in built.per_case if c.status == "answered" and c.confidence is not None]
    assert len(without_run) == len(answered) and unknown == 1
    assert len(with_run) == len(answered) + 1 and unknown_with_run == 0
    assert with_run[-1] == (0.3, records[withheld.case_id].judge.correct is True)
    plot = build_reliability(rows, records, threshold=0.5)
    assert sum(b.n for b in plot.bins) == len(with_run)
    assert sum(b.right for b in plot.bins) == sum(r for _, r in with_run)
    assert plot.threshold_x is not None and plot.left < plot.threshold_x < plot.right_edge


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
@pytest.mark.slow  # a Hypothesis property over whole pages: several seconds
@given(texts=st.lists(hostile, min_size=1, max_size=6), name=hostile)
def test_explorer__hostile_report_text__stays_text(texts: list[str], name: str) -> None:
    texts, name = [_expand(t) for t in texts], _expand(name)
    baseline, candidate = _reports(texts, name)
    candidate = candidate.model_copy(update={"by_tag": {t[:40]: TagStats(n=1) for t in texts}})
    result = run_gate(baseline, candidate)
    html = render_explorer(candidate, result=result)

    page = assert_self_contained(html)
    [blob] = [text for attrs, text in page.scripts if attrs.get("type") == "application/json"]
    assert "\u2028" not in blob and "\u2029" not in blob  # they would end a line of script
    # The data comes back exactly as it went in: escaped for the page, not altered.
    data = page.data
    assert [c["question"] for c in data["cases"]] == [c.question for c in candidate.per_case]
    assert [c["answer"] for c in data["cases"]] == [c.answer_text for c in candidate.per_case]
    # Outside the data a hostile string is text: the config name is the heading's text, character for
    # character, whatever markup it holds (an injected element would have split it or added elements).
    assert page.h1 == f"Cairn case explorer: {name}"
