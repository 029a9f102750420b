"""The comment's config diff: which settings of the experiment changed, baseline to this PR, on one line
for a few, in a collapsed table for more. Keys and values come from the reports (the candidate's from the
pull request) and are escaped like any report text."""

from __future__ import annotations

from cairn_action.gate.config_diff import TARGET_CODE
from cairn_action.gate.models import Comparison
from cairn_action.render.escape import escape_text
from cairn_action.render.tables import NONE, Budget, Section, table

CONFIG_INLINE = 3
"""Changed settings listed on one line; more go in a collapsed table."""


def _setting(value: str | None, budget: Budget) -> str:
    return escape_text(value, limit=min(budget.field, 60), empty=NONE)


def config_diff(comparison: Comparison, budget: Budget) -> tuple[str, Section | None]:
    """What changed in the config, baseline to this PR: a line for a few settings, else a collapsed table;
    a changed target (the user's own system's code) on a line of its own, before it."""
    code = [c for c in comparison.config_changes if c.key == TARGET_CODE]
    line, section = _settings_diff(
        comparison.model_copy(
            update={"config_changes": [c for c in comparison.config_changes if c not in code]}
        ),
        budget,
    )
    if not code:
        return line, section
    before, after = _setting(code[0].baseline, budget), _setting(code[0].candidate, budget)
    target = f"**Target code changed**: {before} → {after}"
    return (f"{target}  \n{line}" if line else target), section


def _settings_diff(comparison: Comparison, budget: Budget) -> tuple[str, Section | None]:
    changes = comparison.config_changes
    base, cand = comparison.baseline.config_hash, comparison.candidate.config_hash
    if not changes:
        if base == cand or comparison.config_recorded:
            return "", None
        return (
            f"**Config**: hash {escape_text(base, limit=20)} → {escape_text(cand, limit=20)}; a report "
            "older than config snapshots does not record which settings changed (retrieval, provider and "
            "judge did not)"
        ), None
    partial = "" if comparison.config_recorded else " (of the settings an older report records)"
    if len(changes) <= CONFIG_INLINE:
        shown = "; ".join(
            f"{escape_text(c.key, limit=60)} {_setting(c.baseline, budget)} → {_setting(c.candidate, budget)}"
            for c in changes
        )
        return f"**Config changed**{partial}: {shown}", None
    rows = [
        [escape_text(c.key, limit=60), _setting(c.baseline, budget), _setting(c.candidate, budget)]
        for c in changes[: budget.rows or CONFIG_INLINE]
    ]
    body, omitted = table(("setting", "baseline", "this PR"), rows, len(changes))
    keys = ", ".join(escape_text(c.key, limit=60) for c in changes[:CONFIG_INLINE])
    summary = f"Config changed{partial}: {len(changes)} settings ({keys}, …)"
    return "", Section(summary=summary, table=body, omitted=omitted)
