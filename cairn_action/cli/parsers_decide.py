"""The parsers of the commands that decide and show: gate, view, stamp and show."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn_action.cli.shared_args import lazy


def add_gate(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    gate = sub.add_parser(
        "gate",
        help="compare a report with the baseline item by item and decide",
        description="Compare a candidate report with the baseline report case by case, under the "
        "baseline's [gate] policy, and decide: exit 0 pass (or overridden), 1 regression, 2 refused "
        "(the reports measured different corpora, golden sets or splits).",
    )
    gate.add_argument(
        "baseline", type=Path, help="the baseline report (reports/latest/<config>.json from the base branch)"
    )
    gate.add_argument("candidate", type=Path, help="the report of this change")
    gate.add_argument(
        "--control",
        type=Path,
        metavar="REPORT",
        help="a control report (`cairn eval --baseline BASELINE --control BASE_CONFIG`): the base system "
        "re-asked at the same time as this change on the cases it changed; the change is compared with "
        "it there, so a shift of the provider since the baseline is not blamed on the change (from "
        "`--drift-probe`: unchanged cases re-asked; a block move makes the verdict incomplete, exit 3)",
    )
    gate.add_argument("--markdown", type=Path, help="write the pull-request comment (and job summary) here")
    gate.add_argument(
        "--json",
        type=Path,
        help="write the decision and the comparison here; `-` prints them on stdout (the rest on stderr)",
    )
    gate.add_argument(
        "--history",
        type=Path,
        help="folder of committed reports for the trend chart (default: reports, when it exists)",
    )
    gate.add_argument("--override-label", help="override: the label applied (must be the baseline's)")
    gate.add_argument("--override-actor", help="override: who applied it")
    gate.add_argument("--override-reason", help="override: why the regression is accepted")
    gate.add_argument("--override-pr", type=int, help="override: the pull request number")
    gate.add_argument("--override-sha", help="override: the head commit it applies to")
    gate.add_argument("--override-at", help="override: when it was applied (ISO 8601; default now)")
    gate.set_defaults(handler=lazy("decide", "cmd_gate"))


def add_view(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    vw = sub.add_parser(
        "view",
        help="write the case explorer: one self-contained HTML page to browse every case",
        description="Write one self-contained HTML page (no network: it opens from file:// and as a CI "
        "artifact) with the summary, every case (sortable, filterable, each with its question, answers, "
        "citations, retrieved chunks and the judge's verdict), the reliability plot, and with --baseline "
        "the gate's item diff.",
    )
    vw.add_argument("report", type=Path, help="the report (reports/latest/<config>.json)")
    vw.add_argument("--baseline", type=Path, help="a baseline report: add the item diff against it")
    vw.add_argument(
        "--run",
        dest="runs",
        nargs="+",
        type=Path,
        metavar="RUN.jsonl",
        help="the run artifact(s) the report was scored from: add each case's retrieved chunks with their "
        "scores, its claims and the judge's rationale (the report keeps only the cited chunks)",
    )
    vw.add_argument(
        "--out",
        type=Path,
        help="the HTML file to write (default: .cairn/explorer/<report>[-vs-<baseline>].html)",
    )
    vw.set_defaults(handler=lazy("explorer", "cmd_view"))


def add_stamp(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    st = sub.add_parser(
        "stamp",
        help="print the accuracy stamp as one line (or JSON) for the served tool's description",
        description="Print the accuracy a release was stamped with (--notes: its release notes) or a "
        "report measured (--report, default reports/latest/<config>.json) as one line, or --json: golden "
        "version and size, safety recall, answer rate, error among answered, the date and the commit. "
        "cairn_action.report.served puts the line into an MCP tool's or a function schema's description.",
    )
    source = st.add_mutually_exclusive_group()
    source.add_argument("--report", type=Path, help="a report (default: reports/latest/<config>.json)")
    source.add_argument("--notes", type=Path, help="a release's notes holding a Cairn stamp")
    st.add_argument(
        "--config-name", default="default", help="the config whose stamp to read (default: default)"
    )
    st.add_argument("--commit", help="the commit the stamp describes (default: $GITHUB_SHA)")
    st.add_argument("--json", action="store_true", help="the stamp as JSON (what load_served_stamp reads)")
    st.set_defaults(handler=lazy("stamp", "cmd_stamp"))


def add_show(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    show = sub.add_parser(
        "show",
        help="a report's cases in the terminal: asked, expected, answered, why",
        description="Print a report's cases: what was asked, expected and answered, the confidence, where "
        "the support ranked, and why the case was judged wrong. Colour on a terminal (NO_COLOR turns it "
        "off).",
    )
    show.add_argument("report", type=Path, help="a report (e.g. reports/latest/<config>.json)")
    show.add_argument("--failed", action="store_true", help="only the cases that are not right")
    show.add_argument("--case", metavar="ID", help="only this case")
    show.add_argument("--json", action="store_true", help="the cases as JSON, each with `right` and `why`")
    show.set_defaults(handler=lazy("show", "cmd_show"))
