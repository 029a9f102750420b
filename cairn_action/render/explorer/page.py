"""`cairn view`: one self-contained HTML page per report (and per comparison) to browse every case.

One file, no network: the CSS and the script are inline, nothing is loaded from anywhere, so it opens
from `file://` and as a downloaded CI artifact. The summary and the reliability plot are laid out by a
jinja2 template with autoescaping; the cases travel as JSON in a `<script type="application/json">`
(`embed_json`: no `<`, `>`, `&`, `/`, U+2028 or U+2029 left raw, so no string can end the element or
spell a URL) and the page's script builds their rows with `textContent` only, lazily, a page at a time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup, escape

from cairn_action.errors import DataError
from cairn_action.gate.models import GateResult
from cairn_action.gate.policy import policy_of
from cairn_action.render.explorer.cases import cases_data, diff_order, removed_data
from cairn_action.render.explorer.overview import build_summary
from cairn_action.render.explorer.reliability import build_reliability
from cairn_action.report.models import Report
from cairn_action.run.models import CaseRecord, RunHeader

EXPLORER_DATA_VERSION = 1
PAGE_SIZE = 100
"""Rows the table renders at a time: a 10,000-case report stays quick to sort, filter and scroll."""
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "/": "\\/",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}


def _text(value: object) -> Markup:
    """Every `{{ value }}` of the template: HTML-escaped, and `://` written with entities, so that no
    URL appears in the file even as text (a browser shows the same characters)."""
    if isinstance(value, Markup):  # the embedded data, style and script: already safe, and URL-free
        return value
    return Markup(str(escape(value)).replace("://", ":&#47;&#47;"))


@cache  # compiling the template costs more than rendering a 72-case page
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("cairn_action.render", "templates"),
        undefined=StrictUndefined,
        autoescape=True,
        finalize=_text,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a non-finite number becomes null (shown as a dash)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def embed_json(data: Any) -> str:
    """`data` as JSON safe inside a `<script type="application/json">` element (and `JSON.parse` reads
    it back unchanged): `\\u003c` for `<` and so on, `\\/` for `/`, and ASCII only."""
    try:
        text = json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    except ValueError:  # a NaN somewhere: rare, so only then is the whole tree walked
        text = json.dumps(_finite(data), ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    for raw, escaped in _JSON_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def explorer_data(
    report: Report, *, records: Mapping[str, CaseRecord] | None, result: GateResult | None
) -> dict[str, Any]:
    """Everything the page's script reads."""
    comparison = result.comparison if result is not None and result.comparison.comparable else None
    critical = result.comparison.critical_tags if result is not None else policy_of(report).critical_tags
    docs: dict[str, int] = {}
    cases = cases_data(
        report.per_case, critical_tags=critical, records=records, comparison=comparison, docs=docs
    )
    diff = None
    if comparison is not None:
        diff = {
            "order": diff_order(comparison),
            "removed": removed_data(comparison.removed),
            "baseline": comparison.baseline.config_name,
        }
    return {
        "version": EXPLORER_DATA_VERSION,
        "config": report.config_name,
        "threshold": report.abstention.threshold,
        "top_k": report.notes.top_k,
        # A target retrieves and answers for itself: what its answerer saw is per case (`context`).
        "target": report.notes.retrieval_mode == "target",
        "retrieval_k": comparison.retrieval_k if comparison else 5,
        "has_run": records is not None,
        "critical_tags": list(critical),
        "tags": sorted({t for c in report.per_case for t in c.tags}),
        "page_size": PAGE_SIZE,
        "cases": cases,
        "docs": list(docs),
        "diff": diff,
    }


class RunArtifact(Protocol):
    """A run artifact as read (`run.artifact.RunArtifact`); only its shape, so this stage stays pure."""

    path: Path
    header: RunHeader
    records: tuple[CaseRecord, ...]


def records_for(report: Report, artifacts: Sequence[RunArtifact]) -> dict[str, CaseRecord] | None:
    """The records of the run(s) `report` was scored from, by case id; None without artifacts.

    A run of another config, corpus or golden set would put another system's chunks under these cases,
    so it is refused, naming the field that differs."""
    if not artifacts:
        return None
    found: dict[str, CaseRecord] = {}
    for artifact in artifacts:
        header = artifact.header
        for field, ours, theirs in (
            ("config_hash", report.config_hash, header.config_hash),
            ("corpus_hash", report.corpus_hash, header.corpus_hash),
            ("golden_version", report.golden_version, header.golden_version),
        ):
            if ours != theirs:
                raise DataError(
                    f"{artifact.path}: not the run this report was scored from: its {field} is {theirs} "
                    f"({header.config_name}), the report's is {ours} ({report.config_name})",
                    "pass the run artifact `cairn eval` wrote for this report "
                    "(reports/runs/<config>-<UTC>.jsonl), or every shard of it",
                )
        found.update((r.case_id, r) for r in artifact.records if r.sample == 0)  # what the report scored
    return found


def explorer_page(
    report: Report, *, artifacts: Sequence[RunArtifact] = (), result: GateResult | None = None
) -> str:
    """The page for `report`, with the detail of its run artifact(s) and the diff of `result` if given."""
    return render_explorer(
        report,
        records=records_for(report, artifacts),
        result=result,
        run_sources=[a.path.name for a in artifacts],
    )


def render_explorer(
    report: Report,
    *,
    records: Mapping[str, CaseRecord] | None = None,
    result: GateResult | None = None,
    run_sources: Sequence[str] = (),
) -> str:
    """The page for `report`; `records` (the run artifact's, by case id) add the retrieved lists and
    the judge's rationale; `result` (the gate run against a baseline) adds the item diff."""
    env = _environment()
    critical = result.comparison.critical_tags if result is not None else policy_of(report).critical_tags
    assert env.loader is not None
    style = env.loader.get_source(env, "explorer.css")[0]
    script = env.loader.get_source(env, "explorer.js")[0]
    page = env.get_template("explorer.html.j2").render(
        summary=build_summary(report, critical_tags=critical, result=result, run_sources=run_sources),
        plot=build_reliability(report.per_case, records, report.abstention.threshold),
        has_baseline=result is not None and result.comparison.comparable,
        data=Markup(embed_json(explorer_data(report, records=records, result=result))),
        style=Markup(style),
        script=Markup(script),
    )
    # A lone surrogate (JSON text can carry one) cannot be written as UTF-8: it becomes `?`.
    return page.encode("utf-8", "replace").decode("utf-8")
