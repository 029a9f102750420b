"""Writing reports (both paths, stable bytes) and reading them back with clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_report_build import _build, _calibration

from cairn_action.errors import DataError, ExitCode
from cairn_action.report.io import (
    dumps,
    read_calibration,
    read_latest_reports,
    read_report,
    timestamp_slug,
    write_calibration,
    write_report,
)


def test_write__kept_and_latest_copies_identical(tmp_path: Path) -> None:
    report = _build("all")
    kept, latest = write_report(report, tmp_path / "reports")
    assert kept == tmp_path / "reports" / "fixture-20260102T030405Z.json"
    assert latest == tmp_path / "reports" / "latest" / "fixture.json"
    assert kept.read_bytes() == latest.read_bytes()


def test_write__stable_bytes_utf8_field_order_and_newline(tmp_path: Path) -> None:
    report = _build("all")
    text = dumps(report)
    assert text == dumps(report.model_validate_json(text))  # round trip gives the same bytes
    assert text.endswith("}\n") and "£250" in text  # UTF-8, not \\u escapes
    keys = list(json.loads(text))
    assert keys[:14] == [
        "cairn_version",
        "config_name",
        "config_hash",
        "corpus_hash",
        "golden_version",
        "split",
        "created_at",
        "n_cases",
        "retrieval",
        "answer",
        "abstention",
        "operational",
        "per_case",
        "notes",
    ]
    assert list(json.loads(text)["retrieval"]["recall_at_k"]) == ["1", "3", "5", "10"]


def test_read__round_trip(tmp_path: Path) -> None:
    report = _build("eval")
    _, latest = write_report(report, tmp_path)
    assert read_report(latest) == report
    assert [p.name for p, _ in read_latest_reports(tmp_path)] == ["fixture.json"]


def test_timestamp_slug() -> None:
    assert timestamp_slug("2026-01-01T00:00:00Z") == "20260101T000000Z"
    assert timestamp_slug("2026-01-01T00:00:00.123Z") == "20260101T000000Z"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "report not found"),
        (b"\xff\xfe", "not valid UTF-8"),
        (b'{"cairn_version": "0.1.0",\n  "config_name": }', ":2:18: invalid JSON"),
        (b"[1, 2]", "expected a JSON object, found list"),
        (
            b'{"kind": "header", "schema_version": 1}',
            "not a Cairn report: no cairn_version and config_name (it is a header file)",
        ),
        (b'{"name": "some other tool"}', "not a Cairn report"),
    ],
)
def test_read__malformed_or_foreign__one_clear_error(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(DataError) as info:
        read_report(path)
    assert message in info.value.message and str(path) in info.value.message
    assert info.value.exit_code == ExitCode.USAGE and info.value.hint


def test_read__invalid_field__names_the_field(tmp_path: Path) -> None:
    data = json.loads(dumps(_build("all")))
    data["retrieval"]["mrr"] = "high"
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match=r"invalid report: 'retrieval.mrr'"):
        read_report(path)


def test_read__unknown_field__refused(tmp_path: Path) -> None:
    data = json.loads(dumps(_build("all")))
    data["notes"]["surprise"] = 1
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match=r"'notes.surprise': unknown field"):
        read_report(path)


def test_read__newer_schema__says_upgrade(tmp_path: Path) -> None:
    data = json.loads(dumps(_build("all")))
    data["schema_version"] = 99
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataError, match="written by a newer Cairn") as info:
        read_report(path)
    assert "upgrade" in info.value.hint


def test_calibration_file__round_trip__absent_is_none__report_is_not_one(tmp_path: Path) -> None:
    cal = _calibration(0.6)
    path = tmp_path / "cairn.calibration.json"
    assert read_calibration(path) is None
    write_calibration(cal, path)
    assert read_calibration(path) == cal
    _, latest = write_report(_build("all"), tmp_path)
    with pytest.raises(DataError, match="not a Cairn calibration file"):
        read_calibration(latest)


def test_write__two_reports_in_one_second__both_kept(tmp_path: Path) -> None:
    first = _build("all")
    second = _build("eval")
    kept_first, _ = write_report(first, tmp_path)
    kept_second, latest = write_report(second, tmp_path)
    assert kept_first != kept_second and kept_second.name == "fixture-20260102T030405Z-2.json"
    assert read_report(kept_first) == first and read_report(latest) == second
    assert write_report(second, tmp_path)[0] == kept_second  # the same report again is not a third file
