"""`cairn show`: a report's cases in the terminal, why each was judged wrong, `--failed`, `--case`, JSON,
and colour only on a terminal without NO_COLOR."""

from __future__ import annotations

import io
import json

import pytest
from gate_fixtures import REPORTS, report

from cairn_action.cli import main
from cairn_action.commands.show import colour_enabled
from cairn_action.render.terminal import why

CRITICAL = str(REPORTS / "critical_lost.json")


def test_show__failed__only_the_cases_not_right_each_with_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", CRITICAL, "--failed"]) == 0
    out = capsys.readouterr().out
    shown = [line.split()[1] for line in out.splitlines() if line[:1] in {"✓", "✗", "~", "!"}]
    assert shown == ["ret-007", "ret-008", "una-002", "una-003"]
    assert "\x1b[" not in out  # not a terminal: no colour
    block = out.split("✗ una-002")[1].split("\n\n")[0]
    assert "expected:  (no answer: abstain)" in block
    assert "why:       wrong: answered a question whose premise the documents contradict" in block
    assert "why:       wrong: abstained; support not in the top 10 retrieved" in out


def test_show__case__one_case_with_what_was_asked_expected_and_answered(
    capsys: pytest.CaptureFixture[str],
) -> None:
    case = report("critical_lost").per_case[7]  # ret-008: answered, judged wrong
    assert main(["show", CRITICAL, "--case", case.case_id]) == 0
    out = capsys.readouterr().out
    assert f"✗ {case.case_id}  answered  [safety, policy]" in out
    assert f"  asked:     {case.question}" in out and f"  expected:  {case.expected_answer}" in out
    assert f"  answered:  {case.answer_text}   confidence {case.confidence:.3f}" in out
    assert "  support:   ranked 1" in out
    assert "why:       wrong: the answer does not match the expected one" in out


def test_show__unknown_case__exit_2_with_the_closest_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", CRITICAL, "--case", "ret-0008"]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "no case 'ret-0008' in this report" in err and "did you mean ret-008" in err


def test_show__json__rows_with_right_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", CRITICAL, "--json", "--failed"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["case_id"] for r in rows] == ["ret-007", "ret-008", "una-002", "una-003"]
    assert all(r["right"] is False and r["why"].startswith("wrong: ") for r in rows)


def test_why__support_ranked_below_what_the_answerer_saw__says_so() -> None:
    base = report("critical_lost")
    case = base.per_case[6].model_copy(update={"retrieved_support_rank": 2, "support_located": True})
    one_chunk = base.model_copy(update={"notes": base.notes.model_copy(update={"top_k": 1})})
    assert why(case, one_chunk) == "wrong: abstained; support ranked 2, the answerer saw only 1 chunk"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour__a_terminal_without_no_color__only() -> None:
    assert colour_enabled(_Terminal(), {})
    assert not colour_enabled(_Terminal(), {"NO_COLOR": "1"})
    assert colour_enabled(_Terminal(), {"NO_COLOR": ""})  # no-color.org: set and not empty
    assert not colour_enabled(io.StringIO(), {})
