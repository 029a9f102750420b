"""The JSON Schemas of Cairn's persisted outputs, exported for users and pinned by a test.

`scripts/export-schemas` writes them to `schemas/`; `test_report_schema.py` fails when a model and its
committed schema disagree, so a change to the report's shape is always a reviewable diff.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from cairn_action.files import write_text
from cairn_action.golden.models import GoldenCase
from cairn_action.report.models import Report
from cairn_action.score.calibration.committed import CalibrationFile

SCHEMAS: dict[str, type[BaseModel]] = {
    "report.schema.json": Report,
    "calibration.schema.json": CalibrationFile,
    "golden-case.schema.json": GoldenCase,
}


def json_schema(model: type[BaseModel]) -> dict[str, object]:
    """The model's JSON Schema (validation mode), declared as draft 2020-12, which pydantic emits."""
    schema = model.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text(model: type[BaseModel]) -> str:
    return json.dumps(json_schema(model), indent=2, ensure_ascii=False) + "\n"


def export_schemas(folder: Path) -> list[Path]:
    """Write every schema into `folder`; returns the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, model in SCHEMAS.items():
        path = folder / name
        write_text(path, schema_text(model), what="the schema")
        written.append(path)
    return written
