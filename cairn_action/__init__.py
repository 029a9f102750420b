"""Cairn: gate every change to a retrieval-augmented QA system on what it did to each answer.

The public API (docs/reference/python-api.md), pinned by tests/unit/test_public_api.py:

- the target contract: `TargetReply`, `TargetPassage`, `TargetCitation`, `TargetUsage`, `TargetRequest`;
- the report: `Report` (pydantic; `Report.model_validate_json(text)` reads `reports/latest/<config>.json`);
- the gate: `run_gate(baseline, candidate)` -> `GateResult` (`.decision.verdict`, `.comparison`);
- the SQuAD v1.1 text metrics: `exact_match`, `token_f1`.

Everything is imported on first use (PEP 562), so `import cairn_action` stays as cheap as it was: the report
and gate modules pull in pydantic, numpy and scipy, which a `python:` target importing the contract types
should not pay for.
"""

__version__ = "0.1.0"

# Not `from typing import TYPE_CHECKING` (typing pulls in re, enum and collections: ten times this module's
# import time), nor `from __future__ import annotations` (half of it again). Type checkers treat a
# module-level `TYPE_CHECKING` as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn_action.contract import TargetCitation, TargetPassage, TargetReply, TargetRequest, TargetUsage
    from cairn_action.gate import run_gate
    from cairn_action.gate.models import GateResult
    from cairn_action.report.models import Report
    from cairn_action.squad import exact_match, token_f1

_EXPORTS = {
    "TargetCitation": "cairn_action.contract",
    "TargetPassage": "cairn_action.contract",
    "TargetReply": "cairn_action.contract",
    "TargetRequest": "cairn_action.contract",
    "TargetUsage": "cairn_action.contract",
    "Report": "cairn_action.report.models",
    "GateResult": "cairn_action.gate.models",
    "run_gate": "cairn_action.gate",
    "exact_match": "cairn_action.squad",
    "token_f1": "cairn_action.squad",
}

__all__ = [
    "GateResult",
    "Report",
    "TargetCitation",
    "TargetPassage",
    "TargetReply",
    "TargetRequest",
    "TargetUsage",
    "__version__",
    "exact_match",
    "run_gate",
    "token_f1",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'cairn_action' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
