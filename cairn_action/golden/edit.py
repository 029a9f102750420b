"""Writing golden sets: one case per line, the other lines left byte for byte as they were.

Commands that change a case (`accept`, `confirm`) rewrite only that case's line, so a pull request's diff
shows exactly the cases a person touched; commands that write a new set (`import`) write it whole. Every
write is atomic (a crash leaves the old file), and what is written is read back by the loader first: a
command never leaves a file `cairn golden check` would refuse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from cairn_action.errors import DataError
from cairn_action.files import LIMIT_GOLDEN, parse_json, read_text, write_text
from cairn_action.golden.load import VERSION_FILE, golden_files, parse_golden, problems_error
from cairn_action.golden.models import GoldenCase

# The order a reader expects: what is asked, what is right, where it says so, then the audit trail.
_ORDER = (
    "id",
    "question",
    "answerable",
    "expected_answer",
    "answer_variants",
    "support",
    "checks",
    "tags",
    "notes",
    "difficulty",
    "added",
    "annotator",
    "status",
    "confirmed_by",
    "deprecated",
)
_ALWAYS = ("id", "question", "answerable", "support", "tags")


def case_line(case: GoldenCase) -> str:
    """One JSONL line for `case`: fields in the reference's order, defaults left out (but the ones every
    shipped case shows), non-ASCII kept readable."""
    data = case.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
    full = case.model_dump(mode="json")
    ordered = {key: data.get(key, full[key]) for key in _ORDER if key in data or key in _ALWAYS}
    return json.dumps(ordered, ensure_ascii=False)


def write_cases(path: Path, cases: Sequence[GoldenCase], *, version: str | None = None) -> None:
    """Write a new golden set (and its golden.version when given), refusing an existing one."""
    for existing in (path, path.parent / VERSION_FILE if version is not None else None):
        if existing is not None and existing.exists():
            raise DataError(
                f"{existing}: already exists", "pass --out a new folder; a golden set is never overwritten"
            )
    write_text(path, "".join(case_line(c) + "\n" for c in cases), what="the golden set")
    if version is not None:
        write_text(path.parent / VERSION_FILE, version + "\n", what=VERSION_FILE)
    _read_back(path)


def replace_cases(golden_path: Path, changed: Mapping[str, GoldenCase]) -> Path:
    """Rewrite the lines of the cases in `changed` (by id) in place; every other line is kept as is."""
    jsonl, _ = golden_files(golden_path)
    text = read_text(jsonl, what="golden set", limit=LIMIT_GOLDEN)
    lines = text.split("\n")
    left = dict(changed)
    for number, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            obj = parse_json(raw)
        except ValueError:
            continue
        case_id = obj.get("id") if isinstance(obj, dict) else None
        if isinstance(case_id, str) and case_id in left:
            lines[number] = case_line(left.pop(case_id))
    if left:
        raise DataError(f"{jsonl}: no case {', '.join(sorted(left))}", "`cairn golden check` lists the ids")
    write_text(jsonl, "\n".join(lines), what="the golden set")
    _read_back(jsonl)
    return jsonl


def _read_back(path: Path) -> None:
    """What a command wrote must load: a bug here is caught before the user's next command meets it."""
    parsed = parse_golden(path)
    if parsed.problems:
        raise problems_error(parsed.problems, str(path))
