"""What a release's readers see: each kind of stamp section pinned by a committed expected file
(`CAIRN_REGENERATE=1` rewrites them; review the diff), and untrusted text rendered inert."""

from __future__ import annotations

import pytest
from release_builders import (
    GOLDEN_V2,
    assert_expected,
    override,
    override_claim,
    previous_release,
    release_decision,
    release_evaluation,
    release_report,
)

from cairn_action.errors import CairnError
from cairn_action.gate.release_decision import decide_release
from cairn_action.render.stamp import MAX_RELEASE_BODY, render_stamp, stamp_notes
from cairn_action.report.stamp import Stamp, extract_stamp

OVERRIDES = (
    override(
        12, "alice", "prompt rewrite, reviewed by hand", "2026-11-10T08:00:00Z", ("recall@5 fell 6 pp",)
    ),
    override(15, "bob", "flaky judge on ret-006", "2026-11-12T08:00:00Z"),
)


def _with_overrides(stamp: Stamp) -> Stamp:
    return stamp.model_copy(update={"overrides": list(OVERRIDES)})


def test_stamp_render__first_release() -> None:
    stamp = _with_overrides(release_decision(release_report(), tag="v1.0.0").stamp)
    assert_expected("first.md", render_stamp(stamp))


def test_stamp_render__second_release__deltas_since_the_last_stamp() -> None:
    report = release_report(unanswerable=1.0, token_f1=0.95, answer_rate=0.8)
    stamp = _with_overrides(release_decision(report, previous_release(release_report())).stamp)
    assert_expected("deltas.md", render_stamp(stamp))


def test_stamp_render__refused() -> None:
    stamp = release_decision(
        release_report(safety=0.75), previous_release(release_report()), override_claim(allowed=False)
    ).stamp
    assert_expected("refused.md", render_stamp(stamp))


def test_stamp_render__published_over_a_regression() -> None:
    stamp = release_decision(
        release_report(safety=0.75), previous_release(release_report()), override_claim()
    ).stamp
    assert_expected("over_regression.md", render_stamp(stamp))


def test_stamp_render__golden_version_changed__says_not_comparable() -> None:
    report = release_report(safety=0.25, golden=GOLDEN_V2, golden_version="2")
    evaluation = release_evaluation(report, golden=GOLDEN_V2, version="2")
    stamp = release_decision(report, previous_release(release_report()), evaluation=evaluation).stamp
    text = render_stamp(stamp)
    assert "**Not comparable with [v1.0.0]" in text
    assert_expected("not_comparable.md", text)


def test_stamp_render__not_evaluated() -> None:
    assert_expected(
        "not_evaluated.md", render_stamp(release_decision(None, previous_release(release_report())).stamp)
    )


def test_stamp_render__hostile_reason_and_login__inert() -> None:
    hostile = "@acme/security see #12 <!-- --> <img src=x> | [x](https://evil.example) `code`\n- list"
    claim = override_claim(reason=hostile)
    stamp = release_decision(release_report(safety=0.75), previous_release(release_report()), claim).stamp
    stamp = stamp.model_copy(update={"overrides": [override(3, "@mallory", hostile, "2026-11-10T08:00:00Z")]})
    text = render_stamp(stamp)
    visible = text.rsplit("<!-- cairn:stamp ", 1)[0]
    for raw in ("@acme", "@mallory", "#12", "<img", "<!-- -->", "[x](https", "`code`", "\n- list"):
        assert raw not in visible, raw
    assert extract_stamp(text, "default") == stamp, "the data line keeps the text exactly"


def test_stamp_render__many_overrides__table_cut_but_data_keeps_all() -> None:
    many = [override(i, "alice", "x" * 300, f"2026-11-10T08:{i % 60:02d}:00Z") for i in range(1, 81)]
    stamp = release_decision(release_report(), tag="v1.0.0").stamp.model_copy(update={"overrides": many})
    assert len(render_stamp(stamp)) + 30_000 > MAX_RELEASE_BODY, "the whole table would not fit"
    notes = stamp_notes("n" * 30_000, stamp)
    assert len(notes) <= MAX_RELEASE_BODY
    assert "more, cut for length; the hidden stamp data lists them all" in notes
    found = extract_stamp(notes, "default")
    assert found is not None and len(found.overrides) == 80


def test_stamp_render__no_room_left__one_line_error() -> None:
    stamp = release_decision(release_report(), tag="v1.0.0").stamp
    with pytest.raises(CairnError, match="leave room for"):
        stamp_notes("n" * (MAX_RELEASE_BODY - 100), stamp)


def test_stamp_render__custom_override_prefix__named_in_the_refusal() -> None:
    stamp = decide_release(
        release_tag="v1.1.0",
        config_name="default",
        evaluation=release_evaluation(None),
        previous=None,
        overrides=(),
        claim=None,
        report_url="",
        stamped_at="2026-11-30T12:00:00Z",
    ).stamp
    assert "`ship-it: <reason>`" in render_stamp(stamp, override_prefix="ship-it")


def test_stamp_render__as_markdown__markers_and_data_hidden_tables_rendered() -> None:
    from markdown_it import MarkdownIt

    report = release_report(unanswerable=1.0)
    stamp = _with_overrides(release_decision(report, previous_release(release_report())).stamp)
    notes = stamp_notes("Author notes\n\n<!-- an unclosed comment", stamp)
    html = MarkdownIt("commonmark").enable("table").render(notes)
    hidden = [t.content for t in MarkdownIt("commonmark").parse(notes) if t.type == "html_block"]
    assert any("<!-- cairn:stamp {" in block for block in hidden), "the data line is an HTML comment block"
    assert "<h3>Accuracy (Cairn): default</h3>" in html, "the author's open comment does not hide the stamp"
    assert html.count("<table>") == 3
    visible = html
    for block in hidden:
        visible = visible.replace(block, "")
    assert "cairn:stamp" not in visible and "cairn:accuracy" not in visible


def test_stamp_render__self_override__marked_in_the_table_and_kept_in_the_data() -> None:
    own = override(21, "carol", "my own call", "2026-11-20T08:00:00Z").model_copy(
        update={"self_override": True}
    )
    stamp = release_decision(release_report(), tag="v1.0.0").stamp.model_copy(update={"overrides": [own]})
    text = render_stamp(stamp)
    assert "carol (self-override)" in text.rsplit("<!-- cairn:stamp ", 1)[0]
    assert extract_stamp(text, "default") == stamp
