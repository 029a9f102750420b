"""Which earlier artifact in reports/runs a new `cairn eval` resumes (run/evaluation.py `_unfinished`)."""

from __future__ import annotations

import io
from pathlib import Path

from run_fakes import make_header, make_record

from cairn_action.run.artifact import write_artifact
from cairn_action.run.evaluation import _unfinished

HEADER = make_header(n_cases=3)


def _write(runs: Path, stamp: str, n_records: int) -> Path:
    path = runs / f"default-{stamp}.jsonl"
    write_artifact(path, HEADER, [make_record(f"q{i}", i) for i in range(1, n_records + 1)])
    return path


def test_unfinished__newest_run_interrupted__resumed(tmp_path: Path) -> None:
    _write(tmp_path, "20261201T000000Z", 3)
    newest = _write(tmp_path, "20261202T000000Z", 2)
    assert _unfinished(tmp_path, "default", HEADER, io.StringIO()) == newest


def test_unfinished__newest_run_finished__older_runs_not_read(tmp_path: Path) -> None:
    older = _write(tmp_path, "20261201T000000Z", 1)
    older.write_bytes(older.read_bytes() + b"not json\n")  # read, it would be noted as not resumable
    _write(tmp_path, "20261202T000000Z", 3)
    log = io.StringIO()

    assert _unfinished(tmp_path, "default", HEADER, log) is None
    assert log.getvalue() == ""  # superseded by the finished run: never opened past its header
