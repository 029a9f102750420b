"""The `cairn` command line: argparse, one handler per command, errors → message, hint, exit code.

The handlers live in `commands/`, each the composition root of its command (paths, config, providers,
clock); this package builds the parser (one `parsers_*` module per command family, the argument groups
they share in `shared_args`) and maps a `CairnError` to its message, hint and exit code.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from cairn_action import __version__
from cairn_action.cli import parsers_decide, parsers_github, parsers_golden, parsers_measure, parsers_start
from cairn_action.errors import CairnError, ExitCode, internal_error_message
from cairn_action.startup import defer_collection


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn",
        description="Evaluate a retrieval-augmented QA system over a frozen golden set, compare with the "
        "baseline item by item, and gate the change.",
    )
    parser.add_argument("--version", action="version", version=f"cairn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # In the order `cairn --help` lists them.
    parsers_golden.add_corpus(sub)
    parsers_golden.add_golden(sub)
    parsers_golden.add_judge(sub)
    parsers_measure.add_eval(sub)
    parsers_measure.add_merge(sub)
    parsers_decide.add_gate(sub)
    parsers_decide.add_view(sub)
    parsers_measure.add_score(sub)
    parsers_measure.add_calibrate(sub)
    parsers_measure.add_bench(sub)
    parsers_measure.add_attack(sub)
    parsers_start.add_demo(sub)
    parsers_github.add_release_stamp(sub)
    parsers_decide.add_stamp(sub)
    parsers_decide.add_show(sub)
    parsers_start.add_init(sub)
    parsers_github.add_action(sub)
    return parser


def run() -> int:
    """The `cairn` command and `python -m cairn_action`: `main` with the process's start-up made cheaper
    (`startup.defer_collection`); tests and programs that call `main` in their own process keep theirs."""
    defer_collection()
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except CairnError as exc:
        print(exc.render(), file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print(
            "interrupted: rerun the same command to resume (finished cases are kept in the run artifact)",
            file=sys.stderr,
        )
        return 130
    except Exception as exc:  # a bug: keep the traceback, and an exit code of its own
        traceback.print_exc(file=sys.stderr)
        print(internal_error_message(exc), file=sys.stderr)
        return int(ExitCode.INTERNAL)
