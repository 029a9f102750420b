"""`cairn stamp`: the accuracy stamp as the served tool's description carries it (release gate spec)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.errors import DataError, ExitCode

if TYPE_CHECKING:
    import argparse


def cmd_stamp(args: argparse.Namespace) -> int:
    """`cairn stamp`: the served line of the last release stamp (--notes) or of a report (--report)."""
    import os

    from cairn_action.files import LIMIT_GOLDEN, read_text
    from cairn_action.report.io import read_report
    from cairn_action.report.served import from_report, from_stamp, stamp_json
    from cairn_action.report.stamp import read_stamp

    commit = args.commit or os.environ.get("GITHUB_SHA") or None
    if args.notes is not None:
        notes = read_text(args.notes, what="release notes", limit=LIMIT_GOLDEN)
        found = read_stamp(notes, args.config_name)
        if found.stamp is None:
            raise DataError(
                f"{args.notes}: {found.problem or f'no Cairn accuracy stamp for config {args.config_name}'}",
                "pass the notes of a release `cairn release-stamp` (or the Action's release mode) stamped, "
                "and --config-name when the config is not `default`",
            )
        served = from_stamp(found.stamp, commit=commit)
    else:
        report = args.report or Path("reports") / "latest" / f"{args.config_name}.json"
        served = from_report(read_report(report), commit=commit)
    print(stamp_json(served) if args.json else served.line(), end="" if args.json else "\n")
    return ExitCode.PASS
