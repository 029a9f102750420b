"""The fork artifact: written by the read-only run, read (as untrusted) by the comment stage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn_action.action.handoff import Handoff, read_handoffs, write_handoff
from cairn_action.errors import DataError
from cairn_action.report.io import read_report

REPORT = Path(__file__).resolve().parents[3] / "reports" / "latest" / "default.json"


def _handoff(**extra: object) -> Handoff:
    return Handoff(
        repository="acme/rag",
        pr_number=7,
        head_sha="a" * 40,
        config_name="default",
        report=read_report(REPORT),
        **extra,
    )  # type: ignore[arg-type]


def test_gh_handoff__written_files__read_back(tmp_path: Path) -> None:
    paths = write_handoff(
        _handoff(), tmp_path, comment="<!-- m -->\nbody", decision_json='{"decision": {}}\n'
    )
    assert (tmp_path / "pr-number").read_text() == "7\n"
    assert paths["comment"].read_text() == "<!-- m -->\nbody"
    assert read_handoffs(tmp_path) == [_handoff()]


@pytest.mark.parametrize(
    "change",
    [
        {"pr_number": -1},
        {"head_sha": "not a sha"},
        {"config_name": "../x"},
        {"kind": "other"},
        {"extra": 1},
        {"comment": "<!-- cairn:gate config=default -->\\n### pass"},
        {"verdict": "pass"},
        {"schema_version": 1},
        {"report": {"config_name": "default"}},
    ],
)
def test_gh_handoff__tampered_file__refused(tmp_path: Path, change: dict) -> None:
    write_handoff(_handoff(), tmp_path, comment="", decision_json=None)
    path = tmp_path / "default" / "result.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    with pytest.raises(DataError, match="not a Cairn result file"):
        read_handoffs(tmp_path)


def test_gh_handoff__empty_folder__says_what_to_download(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"no result\.json"):
        read_handoffs(tmp_path)
