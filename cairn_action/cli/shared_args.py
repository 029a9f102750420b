"""What the command families share: handlers imported when their command runs, and the argument groups
several commands take (one definition each, so their flags and help agree)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path

from cairn_action.commands.common import REPORTS_DIR


def lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A command handler imported when its command runs: `cairn eval` should not pay for scipy.stats and
    the gate, the attack suite or the GitHub client (together more than half a warm eval's time)."""

    def handler(args: argparse.Namespace) -> int:
        command = importlib.import_module(f"cairn_action.commands.{module}")
        return getattr(command, name)(args)

    handler.__name__ = name
    return handler


# The argument groups several commands share: one definition each, so their flags and help agree.


def add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        type=Path,
        help="config TOML (default: cairn.toml if present, else the "
        "embedded default: the sample corpus and the shipped golden set)",
    )
    p.add_argument("--corpus", type=Path, help="corpus folder; overrides the config's corpus.path")
    p.add_argument("--golden", type=Path, help="golden.jsonl or its folder; overrides golden.path")


def add_split(p: argparse.ArgumentParser, *, default: str | None, help: str) -> None:
    p.add_argument("--split", choices=("eval", "calibration", "all"), default=default, help=help)


def add_reports(p: argparse.ArgumentParser, *, help: str) -> None:
    p.add_argument("--reports", type=Path, default=REPORTS_DIR, help=help)


def add_no_progress(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
