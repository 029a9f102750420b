"""The `cairn` process's start-up collector settings (startup.defer_collection, startup.settle_startup)."""

from __future__ import annotations

import gc
import subprocess
import sys
from collections.abc import Iterator

import pytest

from cairn_action.startup import defer_collection, settle_startup


@pytest.fixture
def collector() -> Iterator[tuple[int, int, int]]:
    """This process's collector settings, put back afterwards whatever the test did."""
    before = gc.get_threshold()
    yield before
    settle_startup()
    gc.unfreeze()
    gc.set_threshold(*before)


def test_defer_then_settle__rare_collections_then_frozen_and_thresholds_restored(
    collector: tuple[int, int, int],
) -> None:
    defer_collection()
    assert gc.get_threshold() == (100_000, 50, 1_000)
    frozen = gc.get_freeze_count()

    settle_startup()

    assert gc.get_threshold() == collector
    assert gc.get_freeze_count() > frozen  # what start-up built is never scanned again
    again = gc.get_freeze_count()
    settle_startup()  # once only
    assert gc.get_freeze_count() == again


def test_settle_startup__without_defer__leaves_the_collector_alone(collector: tuple[int, int, int]) -> None:
    frozen = gc.get_freeze_count()
    settle_startup()  # what a program calling `main` or `run_evaluation` itself reaches
    assert gc.get_threshold() == collector and gc.get_freeze_count() == frozen


def test_cli_run__the_cairn_entry_point__defers_collection_while_starting() -> None:
    code = (
        "import gc, sys; from cairn_action import cli; cli.main = lambda: print(gc.get_threshold()) or 0;"
        " sys.exit(cli.run())"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "(100000, 50, 1000)"
