"""Workflow commands and the runner's files: escaping, multi-line outputs, masks, summaries."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from cairn_action.gh.workflow import MAX_SUMMARY_BYTES, Workflow, escape_property, format_output


def _workflow(tmp_path: Path) -> tuple[Workflow, io.StringIO]:
    out = io.StringIO()
    return Workflow(out, output_file=tmp_path / "out", summary_file=tmp_path / "summary"), out


def test_workflow__single_line_output__name_equals_value() -> None:
    assert format_output("verdict", "pass") == "verdict=pass\n"


def test_workflow__multi_line_output__uses_a_fresh_delimiter() -> None:
    entry = format_output("results", "a\nb")
    header, first, second, footer, end = entry.split("\n")
    name, delimiter = header.split("<<")
    assert (name, first, second, footer, end) == ("results", "a", "b", delimiter, "")
    assert delimiter.startswith("ghadelimiter_")


def test_workflow__message_with_newline__cannot_start_a_command(tmp_path: Path) -> None:
    workflow, out = _workflow(tmp_path)
    workflow.error("broke\n::add-mask::x\r\n100%", title="a: b, c")
    assert out.getvalue() == "::error title=a%3A b%2C c::broke%0A::add-mask::x%0D%0A100%25\n"


def test_workflow__property_escaping__covers_colon_and_comma() -> None:
    assert escape_property("x:y,z%\n") == "x%3Ay%2Cz%25%0A"


def test_workflow__mask__once_per_value_and_per_line(tmp_path: Path) -> None:
    workflow, out = _workflow(tmp_path)
    workflow.mask("line-one-secret\nline-two-secret")
    workflow.mask("line-one-secret\nline-two-secret")
    workflow.mask("")
    assert out.getvalue() == "::add-mask::line-one-secret\n::add-mask::line-two-secret\n"


def test_workflow__untrusted_block__stops_commands_until_its_token(tmp_path: Path) -> None:
    workflow, out = _workflow(tmp_path)
    with workflow.untrusted():
        workflow.stream.write("::error::forged by a document name\n")
    start, forged, end = out.getvalue().splitlines()
    token = start.removeprefix("::stop-commands::")
    assert len(token) == 32 and end == f"::{token}::" and forged.startswith("::error::")


def test_workflow__outputs_and_summary__append(tmp_path: Path) -> None:
    workflow, _ = _workflow(tmp_path)
    workflow.set_output("verdict", "pass")
    workflow.set_output("results", "[1,\n2]")
    workflow.add_summary("# one")
    workflow.add_summary("# two\n")
    assert (tmp_path / "out").read_text().startswith("verdict=pass\nresults<<ghadelimiter_")
    assert (tmp_path / "summary").read_text() == "# one\n# two\n"


def test_workflow__huge_summary__cut_below_the_limit_with_a_warning(tmp_path: Path) -> None:
    workflow, out = _workflow(tmp_path)
    workflow.add_summary("é" * MAX_SUMMARY_BYTES)
    assert (tmp_path / "summary").stat().st_size < MAX_SUMMARY_BYTES
    assert "summary cut" in (tmp_path / "summary").read_text(encoding="utf-8")
    assert out.getvalue().startswith("::warning::")


def test_workflow__outside_a_runner__outputs_are_printed(tmp_path: Path) -> None:
    out = io.StringIO()
    Workflow(out, output_file=None, summary_file=None).set_output("verdict", "pass")
    assert out.getvalue() == "output verdict: pass\n"


def test_workflow__output_name_with_equals__rejected() -> None:
    with pytest.raises(ValueError):
        format_output("a=b", "x")


def test_workflow__untrusted_output_without_final_newline__resume_token_on_its_own_line(
    tmp_path: Path,
) -> None:
    workflow, out = _workflow(tmp_path)
    with workflow.untrusted():
        workflow.write_raw("the last line has no newline")
    start, last, end = out.getvalue().splitlines()
    assert last == "the last line has no newline" and end == f"::{start.removeprefix('::stop-commands::')}::"
