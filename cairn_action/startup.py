"""The `cairn` process's start-up: the cyclic garbage collector's settings while its modules are imported.

Kept apart from the code it speeds up: the entry point defers collection (`cli.main`), the run settles it
once the run's modules are imported (`run/runner.py`).
"""

from __future__ import annotations

import gc

# While `cairn` starts, the cyclic garbage collector runs at these thresholds instead of (700, 10, 10): the
# tens of thousands of objects that importing numpy, pydantic and Cairn's models create live as long as the
# process, yet every full collection scanned them all again, about 0.1 s of CPU of a warm `cairn eval` of
# the sample (benchmarks/README.md, the offline floor). Collections still happen, only rarely.
_STARTUP_THRESHOLDS = (100_000, 50, 1_000)
_deferred: tuple[int, int, int] | None = None


def defer_collection() -> None:
    """Collect garbage rarely until `settle_startup()`; for the `cairn` process's entry point only (an
    embedding program keeps its own collector settings)."""
    global _deferred
    if _deferred is None:
        _deferred = gc.get_threshold()
        gc.set_threshold(*_STARTUP_THRESHOLDS)


def settle_startup() -> None:
    """Start-up is over (the run's modules are imported): freeze what exists now, so that no collection
    scans it again, and restore the collector's thresholds. Does nothing unless `defer_collection` ran."""
    global _deferred
    if _deferred is not None:
        gc.freeze()
        gc.set_threshold(*_deferred)
        _deferred = None
