"""The parsers of the commands that start a user off: demo and init."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn_action.cli.shared_args import lazy


def add_demo(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    demo = sub.add_parser(
        "demo",
        help="see the pull-request comment Cairn writes, offline",
        description="Evaluate the default config and a deliberately worse variant (top_k 1, 200-character "
        "chunks) on the sample corpus, gate the second against the first, and write the comment a pull "
        "request would show. Offline: no token, no network.",
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path(".cairn") / "demo",
        help="folder for the two reports, the comment and the decision (default: .cairn/demo)",
    )
    demo.set_defaults(handler=lazy("decide", "cmd_demo"))


def add_init(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    init = sub.add_parser(
        "init",
        help="start a project: config, golden set, target stub and workflows",
        description="Write a commented cairn.toml, an example document, a golden set for it, my_rag.py "
        "(a stand-in target to replace with your system) and the pull-request, baseline and release "
        "workflows into DIR. Never overwrites: nothing is written if any of them exists.",
    )
    init.add_argument("dir", nargs="?", type=Path, default=Path("."), help="the folder (default: here)")
    init.set_defaults(handler=lazy("init", "cmd_init"))
