"""Where attack reports live and how they are read (`cairn attack`, `cairn gate`, the Action)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from cairn_action.attack.models import ATTACK_KIND, AttackReport
from cairn_action.attack.render import render_attack_report
from cairn_action.errors import CairnError, DataError
from cairn_action.files import LIMIT_REPORT, JsonProblem, parse_json, read_bytes, read_text
from cairn_action.report.io import dumps, write_text_atomic


def attack_paths(reports_dir: Path, config_name: str) -> tuple[Path, Path]:
    """`reports/attack-<config>.json` and `.md` (docs/reference/report.md#where)."""
    return reports_dir / f"attack-{config_name}.json", reports_dir / f"attack-{config_name}.md"


def is_attack_report(path: Path) -> bool:
    """True when the file holds an attack report (how `cairn gate` tells the two kinds apart)."""
    try:
        data = parse_json(read_text(path, what="the report", limit=LIMIT_REPORT, bom=False))
    except (CairnError, JsonProblem, ValueError):
        return False  # the ordinary report reader says what is wrong with it
    return isinstance(data, dict) and data.get("kind") == ATTACK_KIND


def read_attack_report(path: Path) -> AttackReport:
    try:
        return AttackReport.model_validate_json(
            read_bytes(path, what="the attack report", limit=LIMIT_REPORT)
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise DataError(
            f"{path}: not a valid attack report: {where}: {first['msg']}",
            "it should be a file written by `cairn attack` (schema: schemas/attack-report.schema.json)",
        ) from None


def write_attack_report(report: AttackReport, reports_dir: Path) -> tuple[Path, Path]:
    """Write `attack-<config>.json` and `.md` into `reports_dir`, each atomically; returns both paths."""
    json_path, md_path = attack_paths(reports_dir, report.config_name)
    write_text_atomic(json_path, dumps(report))
    write_text_atomic(md_path, render_attack_report(report))
    return json_path, md_path
