"""What a pull_request run hands to the comment stage (`mode: comment`), as files for an artifact.

A fork's pull_request run has a read-only token, so it writes, per config, `result.json` (this model:
which pull request, head and config, and the candidate report), and `pr-number` at the top, for
`actions/upload-artifact`; `comment.md` and `decision.json` beside it are for people, not for the comment
stage. That stage runs from `workflow_run` in the base repository, and everything in the artifact is
untrusted there: the fork may have changed the workflow that wrote it. So the artifact carries data, not
markdown: the stage validates it against this schema (size-limited, `extra="forbid"`), re-reads the
baseline from the base branch itself, decides again and renders with its own renderer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cairn_action.errors import DataError
from cairn_action.files import read_text
from cairn_action.report.io import dumps, sealed_copy, write_text_atomic
from cairn_action.report.models import Report

HANDOFF_KIND = "cairn-action-result"
HANDOFF_SCHEMA_VERSION = 2
RESULTS_DIR = "cairn-results"
"""Under GITHUB_WORKSPACE, not hidden: upload-artifact leaves out dot-folders by default."""
MAX_RESULT_BYTES = 2 * 1024 * 1024
MAX_RESULTS = 20

Verdict = Literal["pass", "regression", "refused", "overridden", "no-baseline", "incomplete"]


class Handoff(BaseModel):
    """One config's candidate report on one pull request head, for the comment stage."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["cairn-action-result"] = HANDOFF_KIND
    schema_version: Literal[2] = HANDOFF_SCHEMA_VERSION
    repository: str = Field(max_length=200)
    pr_number: int = Field(gt=0)
    head_sha: str = Field(pattern=r"^[0-9a-f]{7,64}$")
    config_name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    report: Report
    """The candidate's report, as measured by the pull_request run (the fork's claim)."""
    control: Report | None = None
    """The contemporaneous control the pull_request run measured (action/control.py), as much the fork's claim
    as the report; the gate checks that it belongs to the base commit's baseline."""


def write_handoff(
    handoff: Handoff, folder: Path, *, comment: str, decision_json: str | None
) -> dict[str, Path]:
    """Write `<folder>/<config>/{result.json,comment.md,decision.json}` and `<folder>/pr-number`."""
    config_dir = folder / handoff.config_name
    paths = {"result": config_dir / "result.json", "comment": config_dir / "comment.md"}
    # A sealed set's reports travel with their rows sealed, as they are committed (report/io.py).
    control = sealed_copy(handoff.control) if handoff.control is not None else None
    sealed = handoff.model_copy(update={"report": sealed_copy(handoff.report), "control": control})
    write_text_atomic(paths["result"], dumps(sealed))
    write_text_atomic(paths["comment"], comment)
    if decision_json is not None:
        paths["decision"] = config_dir / "decision.json"
        write_text_atomic(paths["decision"], decision_json)
    write_text_atomic(folder / "pr-number", f"{handoff.pr_number}\n")
    return paths


def read_handoffs(folder: Path) -> list[Handoff]:
    """Every `*/result.json` under `folder` (the downloaded artifact), validated; DataError otherwise."""
    found = sorted(p for p in folder.rglob("result.json") if p.is_file())
    if not found:
        raise DataError(
            f"{folder}: no result.json from a Cairn pull_request run",
            "download the artifact the pull_request run uploaded into `working-directory`",
        )
    if len(found) > MAX_RESULTS:
        raise DataError(
            f"{folder}: {len(found)} result files; at most {MAX_RESULTS}", "upload one per config"
        )
    handoffs = []
    for path in found:
        if path.stat().st_size > MAX_RESULT_BYTES:
            raise DataError(f"{path}: larger than {MAX_RESULT_BYTES} bytes", "this is not Cairn's file")
        try:
            text = read_text(path, what="a Cairn result file", limit=MAX_RESULT_BYTES)
            handoffs.append(Handoff.model_validate(json.loads(text)))
        except (ValueError, ValidationError) as exc:
            raise DataError(
                f"{path}: not a Cairn result file: {str(exc).splitlines()[0][:200]}",
                "upload the cairn-results folder the pull_request run wrote",
            ) from None
    return handoffs
