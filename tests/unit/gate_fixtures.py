"""Shared by the gate and render tests: the committed report fixtures and the expected-file check.

`CAIRN_REGENERATE=1 pytest tests/unit/render/test_render_comment.py` rewrites the expected markdown files; the
diff is then reviewed like any other change to what users see.
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn_action.gate import run_gate
from cairn_action.gate.models import GateResult, Override
from cairn_action.report.io import read_report
from cairn_action.report.models import Report

DATA = Path(__file__).resolve().parents[1] / "data"
REPORTS = DATA / "reports"
EXPECTED = DATA / "expected"
REGENERATE = os.environ.get("CAIRN_REGENERATE") == "1"

OVERRIDE = Override(
    actor="maintainer-jo",
    label="cairn-override",
    reason="The safety answer changed because the allergen sheet is being rewritten; tracked in #41.",
    at="2026-01-06T12:00:00Z",
    pr=42,
    head_sha="0123456789abcdef0123456789abcdef01234567",
)


def report(name: str) -> Report:
    return read_report(REPORTS / f"{name}.json")


def gate(candidate: str, *, baseline: str = "baseline", override: Override | None = None) -> GateResult:
    return run_gate(report(baseline), report(candidate), override=override)


def assert_matches_expected(name: str, text: str) -> None:
    """`text` equals tests/data/expected/<name>; with CAIRN_REGENERATE=1 the file is rewritten instead."""
    path = EXPECTED / name
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"{path} is missing: run with CAIRN_REGENERATE=1 to write it, then review it"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{path} differs: run with CAIRN_REGENERATE=1 and review the diff"
