"""The stamp's hidden data line: round trip, nothing inside can end the comment, bad data is a problem."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st
from release_builders import override, release_report

from cairn_action.gate.release_decision import Evaluation, decide_release
from cairn_action.render.stamp import render_stamp
from cairn_action.report.stamp import (
    Stamp,
    encode_stamp,
    extract_stamp,
    figures_of,
    read_stamp,
    section_end,
    section_start,
)


def _stamp(**update: object) -> Stamp:
    report = release_report(overrides=(override(12, "alice", "prompt rewrite", "2026-11-02T00:00:00Z"),))
    decision = decide_release(
        release_tag="v1.0.0",
        config_name="default",
        evaluation=Evaluation(report=report, report_path="reports/latest/default.json"),
        previous=None,
        overrides=report.notes.overrides,
        claim=None,
        report_url="https://github.com/acme/rag/blob/v1.0.0/reports/latest/default.json",
        stamped_at="2026-11-30T12:00:00Z",
    )
    return decision.stamp.model_copy(update=update)


def _wrap(stamp: Stamp, inner: str | None = None) -> str:
    name = stamp.config_name
    return (
        f"{section_start(name)}\n{inner if inner is not None else encode_stamp(stamp)}\n{section_end(name)}"
    )


def test_stamp__rendered_section__round_trips_through_the_notes() -> None:
    stamp = _stamp()
    notes = "Author notes\n\n" + render_stamp(stamp)
    assert extract_stamp(notes, "default") == stamp


def test_stamp__figures__read_with_the_metric_specs() -> None:
    report = release_report(token_f1=0.5)
    assert figures_of(report)["token_f1"] == 0.5
    assert list(figures_of(report)) == [
        "answer_rate",
        "error_rate_answered",
        "token_f1",
        "judge_score",
        "recall_at_5",
        "cost_per_question_usd",
    ]


_hostile = st.text(alphabet=st.sampled_from(["-", "!", ">", "<", "&", "a", "\n", "\u2028", '"', "\\", "`"]))


@given(reason=_hostile, actor=_hostile)
def test_stamp__hostile_text_in_the_data__cannot_end_the_comment(reason: str, actor: str) -> None:
    stamp = _stamp(reasons=[reason], notes=[actor])
    line = encode_stamp(stamp)
    body = line.removeprefix("<!-- cairn:stamp ").removesuffix(" -->")
    assert "\n" not in line and "\u2028" not in line
    assert not re.search(r"[<>&]", body), "nothing in the JSON can open or close an HTML comment"
    assert json.loads(body)["reasons"] == [reason]
    assert extract_stamp(_wrap(stamp), "default") == stamp


def test_stamp__other_config__not_found() -> None:
    stamp = _stamp()
    assert extract_stamp(_wrap(stamp), "other") is None


def test_stamp__no_section__no_stamp_and_no_problem() -> None:
    found = read_stamp("plain notes <!-- cairn:stamp {} -->", "default")
    assert found.stamp is None and found.problem is None


def test_stamp__section_without_data__is_a_problem_not_an_error() -> None:
    found = read_stamp(_wrap(_stamp(), inner="hand-edited"), "default")
    assert found.stamp is None and found.problem == "its Cairn section has no data line"


def test_stamp__malformed_data__names_the_field() -> None:
    stamp = _stamp()
    broken = encode_stamp(stamp).replace('"evaluated":true', '"evaluated":"perhaps"')
    found = read_stamp(_wrap(stamp, inner=broken), "default")
    assert found.stamp is None and found.problem is not None and "'evaluated'" in found.problem


def test_stamp__newer_schema__is_a_problem() -> None:
    stamp = _stamp()
    newer = encode_stamp(stamp).replace('"schema_version":1', '"schema_version":9')
    found = read_stamp(_wrap(stamp, inner=newer), "default")
    assert found.problem == "its stamp has schema_version 9, newer than this Cairn reads"


def test_stamp__refused_or_unevaluated__is_not_a_bar_to_compare_with() -> None:
    assert _stamp().can_be_compared_with
    assert not _stamp(status="refused").can_be_compared_with
    assert not _stamp(status="published_over_regression", evaluated=False).can_be_compared_with
