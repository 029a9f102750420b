"""The bad-input sweep (benchmarks/bad_input_sweep.py) as a test: over every kind of input it generates
(config, golden set, report, run artifact, labels, CSV, command lines; content and file mutations), no
traceback, and every exit-2 message names its file, and its line where the input has one."""

from __future__ import annotations

import importlib.util
import random
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # about 300 CLI runs

SWEEP = Path(__file__).resolve().parents[2] / "benchmarks" / "bad_input_sweep.py"


def test_sweep__generated_malformed_inputs__no_traceback_and_every_refusal_names_file_and_line() -> None:
    spec = importlib.util.spec_from_file_location("bad_input_sweep", SWEEP)
    assert spec is not None and spec.loader is not None
    sweep = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bad_input_sweep", sweep)  # its dataclasses look their module up
    spec.loader.exec_module(sweep)
    root = Path(tempfile.mkdtemp(prefix="cairn-sweep-test-"))
    root.chmod(0o755)  # the permission inputs are read as nobody
    try:
        outcomes = sweep.Sweep(root, random.Random(5), 3).run()
    finally:
        for path in [root, *root.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)
    assert len(outcomes) > 250
    assert sum(o.ran.code == 2 for o in outcomes) > 200  # malformed input is mostly refused
    shown = [
        f"[{o.item.kind}: {o.item.mutation}] exit {o.ran.code}: {o.message[:300]}"
        for o in outcomes
        if o.crashed
        or (o.ran.code == 2 and not o.names_file)
        or (o.ran.code == 2 and o.item.line_expected and not o.names_line)
    ]
    assert shown == []
