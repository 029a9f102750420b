"""The JSON Schemas of Cairn's persisted outputs, exported for users and pinned by a test.

`scripts/export-schemas` writes them to `schemas/`; `test_report_schema.py` fails when a model and its
committed schema disagree, so a change to the report's shape is always a reviewable diff.

The fields' descriptions are their attribute docstrings (the string under each field), for the models of
`DOCUMENTED` modules. They are read here, when a schema is exported, and not by pydantic when each class is
built (`use_attribute_docstrings`): that read the source of every model class with `inspect`, `tokenize`
and `ast` on every start of `cairn`, 70 to 80 ms of CPU on a loaded machine, for descriptions nothing else
uses (benchmarks/README.md, the offline floor).
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import textwrap
import typing
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


# The modules whose models' attribute docstrings are their fields' descriptions in the exported schemas.
DOCUMENTED = frozenset(
    {
        "cairn_action.golden.models",
        "cairn_action.golden.split",
        "cairn_action.report.models",
        "cairn_action.report.stamp",
        "cairn_action.score.calibration.committed",
    }
)


def _models_in(annotation: object, found: list[type[BaseModel]]) -> None:
    """The models `annotation` holds, at any depth, each after the models it holds (children first)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation not in found:
            for field in annotation.model_fields.values():
                _models_in(field.annotation, found)
            found.append(annotation)
        return
    for argument in typing.get_args(annotation):
        _models_in(argument, found)


def attribute_docstrings(cls: type) -> dict[str, str]:
    """Each annotated attribute's docstring: the string literal right under `name: type` in the class body
    (what pydantic's `use_attribute_docstrings` reads; its reader is private, so this is ours)."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    body = ast.parse(source).body[0].body
    docs = {}
    for above, node in itertools.pairwise(body):
        if (
            isinstance(above, ast.AnnAssign)
            and isinstance(above.target, ast.Name)
            and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            docs[above.target.id] = inspect.cleandoc(node.value.value)
    return docs


def _describe_fields(model: type[BaseModel]) -> None:
    """Set each field's description to its attribute docstring, as `use_attribute_docstrings` would, and
    rebuild the models (children first, so that each parent's schema holds its children's descriptions)."""
    models: list[type[BaseModel]] = []
    _models_in(model, models)
    for cls in models:
        if cls.__module__ in DOCUMENTED:
            docs = attribute_docstrings(cls)
            for name, field in cls.model_fields.items():
                if field.description is None and name in docs:
                    field.description = docs[name]
    for cls in models:
        cls.model_rebuild(force=True)


def json_schema(model: type[BaseModel]) -> dict[str, object]:
    """The model's JSON Schema (validation mode), declared as draft 2020-12, which pydantic emits."""
    _describe_fields(model)
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
