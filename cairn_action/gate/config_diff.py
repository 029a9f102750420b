"""Which settings differ between the baseline's experiment and the candidate's, from what the reports
record: the config snapshot (`notes.config`) when both have one, else the few settings every report's
notes carry (retrieval mode, depth, top_k, reranking, rewriting, provider, judge)."""

from __future__ import annotations

from cairn_action.gate.models import ConfigChange
from cairn_action.report.models import Notes, Report

_SHOWN_IN_TITLE = {"name"}  # the config names head the comment already
TARGET_CODE = "target code"
"""The key under which a changed `target_hash` is listed with the settings."""


def _from_notes(notes: Notes) -> dict[str, object]:
    """The settings a report written before config snapshots still records."""
    return {
        "retrieval.mode": notes.retrieval_mode,
        "retrieval.depth": notes.retrieval_depth,
        "retrieval.top_k": notes.top_k,
        "retrieval.rerank": "llm" if notes.reranker else "none",
        "retrieval.rewrite": "llm" if notes.query_rewriting else "none",
        "retrieval.embedding_model": notes.extra.get("embedding_model"),
        "provider.name": notes.provider,
        "judge.name": notes.judge,
    }


def _text(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value) or "none"
    return str(value)


def config_changes(baseline: Report, candidate: Report) -> tuple[list[ConfigChange], bool]:
    """The differing settings, sorted by key, and whether both reports recorded their whole config."""
    whole = bool(baseline.notes.config) and bool(candidate.notes.config)
    before = baseline.notes.config if whole else _from_notes(baseline.notes)
    after = candidate.notes.config if whole else _from_notes(candidate.notes)
    changes = [
        ConfigChange(
            key=key,
            baseline=_text(before[key]) if key in before else None,
            candidate=_text(after[key]) if key in after else None,
        )
        for key in sorted(before.keys() | after.keys())
        if key not in _SHOWN_IN_TITLE and before.get(key, ...) != after.get(key, ...)
    ]
    if baseline.target_hash != candidate.target_hash and candidate.target_hash is not None:
        # The same config can run different code: say so, or a changed system passes for an unchanged one.
        changes.append(
            ConfigChange(
                key=TARGET_CODE, baseline=_text(baseline.target_hash), candidate=_text(candidate.target_hash)
            )
        )
    return changes, whole
