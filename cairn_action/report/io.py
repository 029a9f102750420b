"""Reports and calibration files on disk: stable JSON out, validated models in, clear errors.

Writing: UTF-8, two-space indent, keys in the model's field order (dict-valued fields are built in a
fixed order), a final newline, replaced atomically. The same report always gives the same bytes, so
committed reports diff cleanly.

Reading: a missing file, broken JSON, a foreign file, a report from a newer Cairn or a malformed field
each gives one `DataError` saying what and where, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from cairn_action.errors import CairnError, DataError
from cairn_action.files import (
    LIMIT_REPORT,
    JsonProblem,
    check_output_dir,
    exists,
    is_dir,
    is_file,
    os_reason,
    parse_json,
    read_text,
    write_text,
)
from cairn_action.report.models import REPORT_SCHEMA_VERSION, Report
from cairn_action.score.calibration.committed import (
    CALIBRATION_KIND,
    CALIBRATION_SCHEMA_VERSION,
    CalibrationFile,
)

M = TypeVar("M", bound=BaseModel)

LATEST_DIR = "latest"
HINT_REPORT = "pass a report written by `cairn eval` or `cairn score` (reports/latest/<config>.json)"
HINT_CALIBRATION = "run `cairn calibrate` to write it again"


def dumps(model: BaseModel) -> str:
    """The canonical JSON text of a persisted model."""
    return json.dumps(model.model_dump(mode="json"), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_text_atomic(path: Path, text: str, *, what: str = "the file") -> None:
    """Write `text` to `path` via a temporary file beside it, so a reader never sees half a file; a path
    that cannot be written (a folder, a read-only folder, a file where a folder belongs) is a DataError."""
    write_text(Path(path), text, what=what)


def check_reports_dir(reports_dir: Path) -> None:
    """Refuse, before a run, a reports folder whose report files could not be written."""
    check_output_dir(reports_dir, what="the reports folder")
    check_output_dir(Path(reports_dir) / LATEST_DIR, what="the reports folder")


def timestamp_slug(created_at: str) -> str:
    """`2026-01-01T00:00:00Z` -> `20260101T000000Z`, for file names that sort by time."""
    return created_at.replace("-", "").replace(":", "").split(".")[0].rstrip("Z") + "Z"


def report_paths(reports_dir: Path, report: Report) -> tuple[Path, Path]:
    """(`<dir>/<config>-<UTC timestamp>.json`, `<dir>/latest/<config>.json`)."""
    name = report.config_name
    return (
        reports_dir / f"{name}-{timestamp_slug(report.created_at)}.json",
        reports_dir / LATEST_DIR / f"{name}.json",
    )


def sealed_copy(report: Report) -> Report:
    """A sealed golden set's report with its per-case rows encrypted to the set's recipients (a committed
    baseline sits in the checkout the system under test can read: its rows would hand over the expected
    answers, which cases are unanswerable, and every right answer of the base system). Any other report
    is returned as it is."""
    if not report.notes.sealed_to or not report.per_case:
        return report
    from pyrage import x25519

    from cairn_action.golden.sealed import encrypt

    rows = [row.model_dump(mode="json") for row in report.per_case]
    plain = json.dumps(rows, ensure_ascii=False, allow_nan=False).encode()
    recipients = [x25519.Recipient.from_str(r) for r in report.notes.sealed_to]
    sealed = encrypt(plain, recipients).decode("ascii")
    return report.model_copy(update={"per_case": [], "per_case_sealed": sealed})


def report_text(report: Report) -> str:
    """A report's file content: sealed rows for a sealed golden set, else the JSON as it is."""
    return dumps(sealed_copy(report))


def write_report(report: Report, reports_dir: Path) -> tuple[Path, Path]:
    """Write the kept copy and overwrite the latest; returns both paths."""
    text = report_text(report)
    kept, latest = report_paths(reports_dir, report)
    base, n = kept.stem, 1
    check_reports_dir(reports_dir)
    while is_file(kept) and _same_text(kept, text) is False:  # two reports in one second
        n += 1
        kept = kept.with_name(f"{base}-{n}.json")
    write_text_atomic(kept, text, what="the report")
    write_text_atomic(latest, text, what="the latest report")
    return kept, latest


def _same_text(path: Path, text: str) -> bool | None:
    try:
        return read_text(path, what="the report", limit=LIMIT_REPORT) == text
    except CairnError:
        return False


def _load_json(path: Path, what: str, hint: str) -> dict[str, Any]:
    text = read_text(path, what=what, hint=hint, limit=LIMIT_REPORT, bom=False)
    try:
        data = parse_json(text)
    except JsonProblem as exc:
        where = f"{path}:{exc.line}:{exc.column}" if exc.line else str(path)
        raise DataError(f"{where}: {exc.message}", hint) from None
    if not isinstance(data, dict):
        raise DataError(
            f"{path}: not a Cairn {what} (expected a JSON object, found {type(data).__name__})", hint
        )
    return data


def _validate(model: type[M], data: dict[str, Any], path: Path, what: str, hint: str) -> M:
    if "schema_version" not in data:
        raise DataError(f"{path}: invalid {what}: 'schema_version' is missing", hint)
    try:
        # Strict: a report is written by Cairn, so "yes" for a boolean or "5" for a number is damage.
        return model.model_validate(data, strict=True)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        problem = "unknown field" if err["type"] == "extra_forbidden" else err["msg"]
        raise DataError(f"{path}: invalid {what}: '{where}': {problem}{more}", hint) from None


def _check_version(data: dict[str, Any], path: Path, what: str, current: int) -> None:
    version = data.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > current:
        raise DataError(
            f"{path}: {what} schema_version {version} was written by a newer Cairn; this one reads {current}",
            "upgrade cairn-action, or regenerate the file with this version",
        )


def _open_rows(report: Report, path: Path) -> Report:
    """A sealed report's per-case rows, opened with the key (golden/sealed.py's variable)."""
    import pyrage

    from cairn_action.golden.sealed import HINT_KEY, KEY_ENV, identity_from
    from cairn_action.report.models import PerCase

    identity = identity_from()
    if identity is None:
        raise DataError(
            f"{path}: the report's cases are sealed (its golden set is) and {KEY_ENV} is not set", HINT_KEY
        )
    try:
        rows = pyrage.decrypt((report.per_case_sealed or "").encode("ascii"), [identity])  # type: ignore[list-item]
    except (pyrage.DecryptError, UnicodeEncodeError):
        raise DataError(f"{path}: the report's sealed cases do not open with {KEY_ENV}", HINT_KEY) from None
    try:
        parsed = [PerCase.model_validate(row, strict=True) for row in json.loads(rows)]
    except (ValueError, ValidationError, TypeError):
        raise DataError(
            f"{path}: invalid report: 'per_case_sealed' does not hold per-case rows", HINT_REPORT
        ) from None
    return report.model_copy(update={"per_case": parsed, "per_case_sealed": None})


def read_report(path: Path, *, cases: bool = True) -> Report:
    """Read and validate a report; DataError for a missing, malformed, foreign or newer file. A sealed
    golden set's report has its per-case rows opened with the key, or (`cases=False`, for what needs only
    the aggregates: the leaderboard, the stamp) left empty."""
    path = Path(path)
    data = _load_json(path, "report", HINT_REPORT)
    if "cairn_version" not in data or "config_name" not in data:
        kind = data.get("kind")
        found = f" (it is a {kind} file)" if isinstance(kind, str) else ""
        raise DataError(f"{path}: not a Cairn report: no cairn_version and config_name{found}", HINT_REPORT)
    _check_version(data, path, "report", REPORT_SCHEMA_VERSION)
    report = _validate(Report, data, path, "report", HINT_REPORT)
    if report.per_case_sealed is not None and cases:
        report = _open_rows(report, path)
    seen: dict[str, int] = {}
    for index, row in enumerate(report.per_case):
        if row.case_id in seen:
            raise DataError(
                f"{path}: invalid report: per_case[{index}] repeats case {row.case_id[:80]!r} "
                f"(first at per_case[{seen[row.case_id]}])",
                HINT_REPORT,
            )
        seen[row.case_id] = index
    return report


def read_latest_reports(reports_dir: Path, *, cases: bool = True) -> list[tuple[Path, Report]]:
    """Every `<dir>/latest/*.json`, sorted by file name, each validated."""
    folder = Path(reports_dir) / LATEST_DIR
    if exists(folder) and not is_dir(folder):
        raise DataError(f"{folder}: not a folder", "pass --reports DIR: the folder holding latest/")
    try:
        found = sorted(folder.glob("*.json"))
    except OSError as exc:
        raise DataError(f"{folder}: cannot list the reports: {os_reason(exc)}", HINT_REPORT) from None
    return [(p, read_report(p, cases=cases)) for p in found]


def write_calibration(calibration: CalibrationFile, path: Path) -> None:
    write_text_atomic(Path(path), dumps(calibration), what="the calibration file")


def read_calibration(path: Path) -> CalibrationFile | None:
    """The calibration at `path`, None when there is none; DataError when it is malformed."""
    path = Path(path)
    if not exists(path):
        return None
    data = _load_json(path, "calibration file", HINT_CALIBRATION)
    if data.get("kind") != CALIBRATION_KIND:
        raise DataError(f"{path}: not a Cairn calibration file (kind {data.get('kind')!r})", HINT_CALIBRATION)
    _check_version(data, path, "calibration file", CALIBRATION_SCHEMA_VERSION)
    return _validate(CalibrationFile, data, path, "calibration file", HINT_CALIBRATION)
