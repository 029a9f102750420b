"""The committed JSON Schemas match the models; regenerate with scripts/export-schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn_action.report.schema import SCHEMAS, json_schema, schema_text

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_model(name: str) -> None:
    committed = ROOT / "schemas" / name
    assert committed.is_file(), f"{committed} missing: run scripts/export-schemas"
    assert committed.read_text(encoding="utf-8") == schema_text(SCHEMAS[name]), (
        f"{committed} is out of date with {SCHEMAS[name].__name__}: run scripts/export-schemas and commit"
    )


def test_report_schema__documents_fields_and_forbids_unknown_ones() -> None:
    schema = json_schema(SCHEMAS["report.schema.json"])
    assert schema["additionalProperties"] is False
    assert "n_with_support" in json.dumps(schema)
    props = schema["$defs"]["AbstentionMetrics"]["properties"]
    assert "answered unanswerable case is wrong" in props["error_rate_answered"]["description"]
