"""The case explorer in the Action: written beside each config's comment, pointed to from the comment.

The page is a convenience, never part of the verdict: a failure to write it is a warning, and the gate's
exit code stands. It reads the run artifact the Action's own evaluation wrote (`action/child/supervisor.py`:
`cairn-results/<config>/run.jsonl`) for the retrieved chunks and the judge's rationale.
"""

from __future__ import annotations

from cairn_action.action.runtime import Runtime
from cairn_action.errors import CairnError
from cairn_action.gate.models import GateResult
from cairn_action.gate.sealed import sealed_report_view, sealed_result
from cairn_action.render.explorer.page import explorer_page
from cairn_action.report.io import write_text_atomic
from cairn_action.report.models import Report
from cairn_action.run.artifact import read_artifact

EXPLORER_FILE = "explorer.html"
RUN_FILE = "run.jsonl"
ARTIFACT_NAME = "cairn-explorer"
"""What the example workflows call the uploaded explorer pages."""


def write_explorer(rt: Runtime, report: Report, *, result: GateResult | None = None) -> str:
    """Write `cairn-results/<config>/explorer.html`; its path as the workflow sees it, or "" if it failed."""
    folder = rt.results_dir / report.config_name
    path, run = folder / EXPLORER_FILE, folder / RUN_FILE
    try:
        artifacts = [read_artifact(run)] if run.is_file() else []
        if report.notes.sealed_to:  # the upload shows what the comment shows (gate/sealed.py)
            report = sealed_report_view(report)
            result = sealed_result(result) if result is not None else None
        write_text_atomic(path, explorer_page(report, artifacts=artifacts, result=result))
    except CairnError as exc:
        rt.workflow.warning(
            f"the case explorer was not written: {exc.message}", title=f"Cairn ({report.config_name})"
        )
        return ""
    rt.workflow.info(f"case explorer: {rt.display(path)} (open it in a browser; no network needed)")
    return rt.display(path)


def explorer_link(rt: Runtime) -> str:
    """The comment's line pointing to the explorer among this run's artifacts ("" outside a run)."""
    url = rt.context.run_url
    if not url:
        return ""
    return (
        f"\n🔎 **Case explorer**: every case with its answers, citations and retrieved chunks, sortable and "
        f"filterable, in the `{ARTIFACT_NAME}` artifact of [this run]({url}) (open `{EXPLORER_FILE}`).\n"
    )
