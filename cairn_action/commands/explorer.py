"""Handler for `cairn view`: the case explorer, one self-contained HTML page per report or comparison."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.commands.common import shown
from cairn_action.errors import ExitCode

if TYPE_CHECKING:
    import argparse

EXPLORER_DIR = Path(".cairn") / "explorer"


def default_out(report: Path, baseline: Path | None) -> Path:
    """`.cairn/explorer/<report>.html`, or `<report>-vs-<baseline>.html` for a comparison (untracked)."""
    name = report.stem if baseline is None else f"{report.stem}-vs-{baseline.stem}"
    return EXPLORER_DIR / f"{name}.html"


def cmd_view(args: argparse.Namespace) -> int:
    from cairn_action.gate import run_gate
    from cairn_action.render.explorer.page import explorer_page
    from cairn_action.report.io import read_report, write_text_atomic
    from cairn_action.run.artifact import read_artifact

    report = read_report(args.report)
    artifacts = [read_artifact(path) for path in args.runs or ()]
    result = None
    if args.baseline is not None:
        result = run_gate(read_report(args.baseline), report, source=str(args.baseline))
        for refusal in result.comparison.refusals:
            print(f"note: no item diff: {refusal.message}", file=sys.stderr)
    out: Path = args.out or default_out(args.report, args.baseline)
    write_text_atomic(out, explorer_page(report, artifacts=artifacts, result=result))
    cwd = Path.cwd()
    print(f"explorer: {shown(out, cwd)} ({out.stat().st_size / 1024:.0f} KB, {len(report.per_case)} cases)")
    print(f"open it in a browser: {out.resolve().as_uri()}")
    return ExitCode.PASS
