"""`cairn show REPORT`: the report's cases in the terminal (`--failed`, `--case ID`), or as JSON."""

from __future__ import annotations

import difflib
import json
import os
import sys
from typing import TYPE_CHECKING

from cairn_action.errors import CairnError, ExitCode

if TYPE_CHECKING:
    import argparse


def colour_enabled(stream: object, env: dict[str, str] | os._Environ[str]) -> bool:
    """Colour on a terminal unless NO_COLOR is set to anything non-empty (no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not env.get("NO_COLOR")


def cmd_show(args: argparse.Namespace) -> int:
    from cairn_action.gate.outcome import is_right
    from cairn_action.render.terminal import Paint, case_json, show_lines
    from cairn_action.report.io import read_report

    report = read_report(args.report)
    cases = list(report.per_case)
    if args.case:
        ids = [c.case_id for c in cases]
        if args.case not in ids:
            close = difflib.get_close_matches(args.case, ids, n=3)
            mean = f"did you mean {', '.join(close)}? " if close else ""
            raise CairnError(
                f"{args.report}: no case '{args.case}' in this report "
                f"({len(ids)} cases, split {report.split})",
                f"{mean}`cairn show {args.report}` lists them all",
            )
        cases = [c for c in cases if c.case_id == args.case]
    if args.failed:
        cases = [c for c in cases if is_right(c) is not True]
    if args.json:
        lines = [json.dumps([case_json(c, report) for c in cases], indent=2, ensure_ascii=False)]
    else:
        lines = show_lines(report, cases, Paint(colour_enabled(sys.stdout, os.environ)))
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:  # `cairn show ... | head`: the reader has seen enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return ExitCode.PASS
