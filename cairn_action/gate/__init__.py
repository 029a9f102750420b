"""Compare a candidate report with the baseline item by item and decide: pass, regression, refused or
overridden. Pure: no files, no clock, no network; the caller reads the reports and renders the result."""

from __future__ import annotations

from cairn_action.gate.compare import compare
from cairn_action.gate.models import Comparison, Decision, GateResult, Override
from cairn_action.gate.policy import decide, policy_of
from cairn_action.report.models import Report

__all__ = ["Comparison", "Decision", "GateResult", "Override", "compare", "decide", "policy_of", "run_gate"]


def run_gate(
    baseline: Report, candidate: Report, *, override: Override | None = None, source: str = "baseline report"
) -> GateResult:
    """Compare under the *baseline's* policy and decide; `source` names the baseline in error messages."""
    policy = policy_of(baseline, source=source)
    comparison = compare(
        baseline, candidate, critical_tags=policy.critical_tags, critical_max_p=policy.critical_max_p
    )
    return GateResult(decision=decide(comparison, policy, override), comparison=comparison)
