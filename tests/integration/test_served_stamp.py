"""The stamp travels with the served system: `cairn stamp` and the helper that puts its line into a tool's
description (an MCP tool, a function-calling schema)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.render.stamp import stamp_notes
from cairn_action.report.io import read_report
from cairn_action.report.served import (
    STAMP_PREFIX,
    ServedStamp,
    describe_tool,
    from_report,
    load_served_stamp,
)
from cairn_action.report.stamp import Stamp, TagFigure

REPO = Path(__file__).resolve().parents[2]
LATEST = REPO / "reports" / "latest" / "default.json"


def released() -> Stamp:
    return Stamp(
        status="stamped",
        release_tag="v1.4.0",
        config_name="default",
        stamped_at="2026-12-01T10:00:00Z",
        evaluated=True,
        report_path="reports/latest/default.json",
        golden_version="2026.12",
        n_cases=72,
        figures={"answer_rate": 0.8, "error_rate_answered": 0.05},
        critical=[TagFigure(tag="safety", n=17, recall=0.9412)],
    )


def test_cairn_stamp__committed_report__one_line_and_json_with_the_reports_figures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = read_report(LATEST)
    assert main(["stamp", "--report", str(LATEST), "--commit", "0123456789abcdef"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{STAMP_PREFIX} default: golden {report.golden_version} ({report.n_cases} cases)")
    assert f"answer rate {report.abstention.answer_rate:.1%}" in line
    assert line.endswith("commit 0123456789ab")
    assert main(["stamp", "--report", str(LATEST), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["safety_recall"] == report.by_tag["safety"].correct_rate
    assert data["error_rate_answered"] == report.abstention.error_rate_answered
    (tmp_path / "stamp.json").write_text(json.dumps(data), encoding="utf-8")
    assert load_served_stamp(tmp_path / "stamp.json") == from_report(report)


def test_cairn_stamp__release_notes__reads_the_stamp_section(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(stamp_notes("## What changed\n\nFaster answers.\n", released()), encoding="utf-8")
    assert main(["stamp", "--notes", str(notes)]) == 0
    assert capsys.readouterr().out.strip() == (
        f"{STAMP_PREFIX} v1.4.0: golden 2026.12 (72 cases), safety recall 94.1%, answer rate 80.0%, "
        "error among answered 5.0%, 2026-12-01"
    )


def test_cairn_stamp__notes_without_a_stamp__one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("Just notes.\n", encoding="utf-8")
    assert main(["stamp", "--notes", str(notes)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {notes}: no Cairn accuracy stamp for config default")
    assert "Traceback" not in err


def test_describe_tool__mcp_and_function_schema__description_carries_the_line_once() -> None:
    stamp = ServedStamp.model_validate(
        {**json.loads(from_report(read_report(LATEST)).model_dump_json()), "commit": "abc1234"}
    )
    mcp = {"name": "ask_handbook", "description": "Answers HR questions.", "inputSchema": {"type": "object"}}
    described = describe_tool(mcp, stamp)
    assert described["description"] == f"Answers HR questions.\n\n{stamp.line()}"
    assert mcp["description"] == "Answers HR questions."  # the caller's dict is left as it was
    again = describe_tool(described, stamp.model_copy(update={"commit": "def5678"}))
    assert again["description"].count(STAMP_PREFIX) == 1 and again["description"].endswith("commit def5678")
    function = {"type": "function", "function": {"name": "ask", "description": "Ask.", "parameters": {}}}
    assert describe_tool(function, stamp)["function"]["description"] == f"Ask.\n\n{stamp.line()}"
