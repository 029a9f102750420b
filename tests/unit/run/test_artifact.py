"""The run artifact on disk: append and read back, and every way a line can be broken."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from run_fakes import make_header, make_record

from cairn_action.errors import DataError
from cairn_action.run.artifact import ArtifactAppender, read_artifact, read_header, write_artifact


def _artifact(tmp_path: Path, n: int = 3) -> Path:
    path = tmp_path / "run.jsonl"
    write_artifact(path, make_header(n_cases=n), [make_record(f"q{i}", i) for i in range(1, n + 1)])
    return path


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _rewrite(path: Path, lines: list[str], *, final_newline: bool = True) -> None:
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")


def test_artifact__written__reads_back_equal(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    artifact = read_artifact(path)
    assert artifact.header == make_header(n_cases=3)
    assert [r.case_id for r in artifact.records] == ["q1", "q2", "q3"]
    assert artifact.records[0] == make_record("q1", 1)
    assert artifact.dropped is None


def test_appender__each_record__is_on_disk_when_append_returns(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "run.jsonl"
    with ArtifactAppender.create(path, make_header()) as appender:
        assert len(_lines(path)) == 1
        appender.append(make_record("q1", 1))
        # Another reader (a resume after kill -9) sees it without the appender closing.
        assert [r.case_id for r in read_artifact(path).records] == ["q1"]
        appender.append(make_record("q2", 2))
    assert [r.case_id for r in read_artifact(path).records] == ["q1", "q2"]


def test_appender__reopened__appends_after_existing_records(tmp_path: Path) -> None:
    path = _artifact(tmp_path, 2)
    with ArtifactAppender(path) as appender:
        appender.append(make_record("q9", 9))
    assert [r.case_id for r in read_artifact(path).records] == ["q1", "q2", "q9"]


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_appender__many_records__fsyncs_once_per_group_and_on_close(tmp_path: Path) -> None:
    path = _artifact(tmp_path, 0)
    with ArtifactAppender(path, sync_every=16, clock=_Clock()) as appender:
        for i in range(40):
            appender.append(make_record(f"q{i}", i + 1))
        assert appender.syncs == 2  # after records 16 and 32; the last 8 wait for close
    assert appender.syncs == 3
    assert len(read_artifact(path).records) == 40


def test_appender__slow_records__fsync_once_the_interval_passed(tmp_path: Path) -> None:
    clock = _Clock()
    with ArtifactAppender(_artifact(tmp_path, 0), sync_every=100, sync_seconds=1.0, clock=clock) as appender:
        appender.append(make_record("q1", 1))
        assert appender.syncs == 0
        clock.now = 1.5
        appender.append(make_record("q2", 2))
        assert appender.syncs == 1


def test_appender__process_killed_before_any_fsync__keeps_every_appended_record(tmp_path: Path) -> None:
    path = _artifact(tmp_path, 0)
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(Path(__file__).parents[1])!r})
        from run_fakes import make_record
        from cairn_action.run.artifact import ArtifactAppender
        appender = ArtifactAppender({str(path)!r}, sync_every=1000, sync_seconds=1e9)
        for i in range(50):
            appender.append(make_record(f"q{{i}}", i + 1))
        assert appender.syncs == 0
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    done = subprocess.run([sys.executable, "-c", child], check=False, capture_output=True, text=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert [r.case_id for r in read_artifact(path).records] == [f"q{i}" for i in range(50)]


def test_read__corrupt_line__names_file_and_line(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    lines[2] = lines[2][:40]  # a line cut short in the middle of the file
    _rewrite(path, lines)
    with pytest.raises(DataError) as caught:
        read_artifact(path, drop_incomplete_tail=True)  # never tolerated, resuming or not
    assert caught.value.message.startswith(f"{path}:3: invalid JSON")


def test_read__truncated_last_line__refused_with_its_line_number(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])  # a kill in the middle of writing line 4
    with pytest.raises(DataError) as caught:
        read_artifact(path)
    assert caught.value.message.startswith(f"{path}:4: incomplete last line")
    assert "again" in caught.value.hint


def test_read__truncated_last_line_when_resuming__dropped_and_reported(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])
    artifact = read_artifact(path, drop_incomplete_tail=True)
    assert [r.case_id for r in artifact.records] == ["q1", "q2"]
    assert artifact.dropped is not None
    assert artifact.dropped.line == 4


def test_read__complete_json_without_line_end__is_still_incomplete(tmp_path: Path) -> None:
    # The newline is the commit mark: without it the writer may have been killed before finishing.
    path = _artifact(tmp_path)
    _rewrite(path, _lines(path), final_newline=False)
    with pytest.raises(DataError, match=":4: incomplete last line"):
        read_artifact(path)


def test_read__first_line_not_a_header__refused(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    _rewrite(path, _lines(path)[1:])
    with pytest.raises(DataError, match=r":1: the first line must be the run header"):
        read_artifact(path)


def test_read__header_in_the_middle__refused(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    _rewrite(path, [*lines, lines[0]])
    with pytest.raises(DataError, match=r":5: expected a case record, found kind 'header'"):
        read_artifact(path)


def test_read__duplicate_case__refused_naming_both_lines(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    _rewrite(path, [*lines, lines[1]])
    with pytest.raises(DataError, match=r":5: case q1 appears twice \(first on line 2\)"):
        read_artifact(path)


def test_read__blank_line__refused(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    _rewrite(path, [lines[0], "", *lines[1:]])
    with pytest.raises(DataError, match=r":2: blank line"):
        read_artifact(path)


def test_read__invalid_field__names_line_and_field(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    record = json.loads(lines[3])
    record["status"] = "maybe"
    lines[3] = json.dumps(record)
    _rewrite(path, lines)
    with pytest.raises(DataError, match=r":4: invalid case record: 'status'"):
        read_artifact(path)


def test_read__unknown_field__refused(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    record = json.loads(lines[1])
    record["surprise"] = 1
    lines[1] = json.dumps(record)
    _rewrite(path, lines)
    with pytest.raises(DataError, match=r":2: invalid case record: 'surprise'"):
        read_artifact(path)


def test_read__other_schema_version__refused(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    lines = _lines(path)
    header = json.loads(lines[0])
    header["schema_version"] = 99
    lines[0] = json.dumps(header)
    _rewrite(path, lines)
    with pytest.raises(DataError, match=r":1: run artifact schema_version 99"):
        read_artifact(path)


def test_read__empty_or_missing_file__refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="empty run artifact"):
        read_artifact(empty)
    with pytest.raises(DataError, match="not found"):
        read_artifact(tmp_path / "missing.jsonl")


def test_read__only_a_partial_header__refused_even_when_resuming(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"kind": "header", "schema_ver')
    with pytest.raises(DataError, match=":1: incomplete last line"):
        read_artifact(path, drop_incomplete_tail=True)


def test_read_header__valid_partial_or_garbage(tmp_path: Path) -> None:
    path = _artifact(tmp_path)
    assert read_header(path) == make_header(n_cases=3)
    path.write_text('{"kind": "header"')
    assert read_header(path) is None
    path.write_text("not json\n")
    assert read_header(path) is None


def test_write_artifact__replaces_atomically__no_temporary_file_left(tmp_path: Path) -> None:
    path = _artifact(tmp_path, 3)
    write_artifact(path, make_header(n_cases=1), [make_record("q7", 7)])
    assert [r.case_id for r in read_artifact(path).records] == ["q7"]
    assert [p.name for p in tmp_path.iterdir()] == ["run.jsonl"]
