"""files.py, the one boundary to the file system: appending to a file another program reads, and writes
that skip the fsyncs for files made again on demand."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cairn_action import files
from cairn_action.errors import DataError


def test_append_text__existing_file__kept_and_extended_with_unix_line_ends(tmp_path: Path) -> None:
    path = tmp_path / "github_output"
    path.write_bytes(b"earlier=1\n")
    files.append_text(path, "verdict=pass\nstamp=x\n", what="the step's outputs")
    files.append_text(path, "more=2\n", what="the step's outputs")
    assert path.read_bytes() == b"earlier=1\nverdict=pass\nstamp=x\nmore=2\n"


def test_append_text__folder_missing__data_error_names_the_path_and_what(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "summary.md"
    with pytest.raises(DataError) as raised:
        files.append_text(path, "x\n", what="the job summary")
    assert raised.value.message.startswith(str(path)) and "the job summary" in raised.value.message


def test_write_bytes__not_durable__no_fsync_and_still_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    path = tmp_path / "plan.json"
    path.write_bytes(b"old")
    files.write_bytes(path, b'{"q1": 2}', what="the plan", durable=False)
    assert path.read_bytes() == b'{"q1": 2}' and synced == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]  # no temporary file left
    files.write_bytes(path, b"{}", what="the plan")
    assert len(synced) == 2  # durable (the default): the file, then its folder's entry
