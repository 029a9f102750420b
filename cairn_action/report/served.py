"""The stamp travels with the served system: one line an agent's builder reads in the tool description.

The release gate spec: "Every release carries its accuracy stamp, and the served tool's description
includes it, so an agent's builder can see what the data was measured against." `cairn stamp` prints the
line (and `--json` this module's `ServedStamp`); a team's server puts it into its tool description with
`describe_tool`, for an MCP tool (`{"name", "description", "inputSchema"}`) or a function-calling schema
(`{"type": "function", "function": {"name", "description", "parameters"}}`):

    from cairn_action.report.served import describe_tool, load_served_stamp

    # the release asset the release gate attaches (or `cairn stamp --json > cairn-stamp.json`)
    stamp = load_served_stamp("cairn-stamp-default.json")
    tool = describe_tool({"name": "ask_handbook", "description": "Answers HR questions.",
                          "inputSchema": {"type": "object"}}, stamp)

This module needs pydantic only, so a server can import it without the rest of Cairn's dependencies
being used.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from cairn_action.files import LIMIT_CONFIG, read_text
from cairn_action.report.models import Report
from cairn_action.report.stamp import Stamp

SAFETY_TAG = "safety"
STAMP_PREFIX = "Accuracy (Cairn):"


class ServedStamp(BaseModel):
    """What the served tool says it was measured at."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    config_name: str
    release_tag: str | None = None
    golden_version: str
    golden_cases: int
    safety_recall: float | None
    """Correct rate over the cases tagged safety (an unanswered one counts as missed); None without any."""
    answer_rate: float | None
    error_rate_answered: float | None
    date: str
    commit: str | None = None

    def line(self) -> str:
        """The one line: golden set, safety recall, answer rate, error among answered, when and where."""
        where = self.release_tag or self.config_name
        parts = [
            f"golden {self.golden_version} ({self.golden_cases} cases)",
            f"safety recall {_share(self.safety_recall)}",
            f"answer rate {_share(self.answer_rate)}",
            f"error among answered {_share(self.error_rate_answered)}",
            self.date[:10],
        ]
        if self.commit:
            parts.append(f"commit {self.commit[:12]}")
        return f"{STAMP_PREFIX} {where}: " + ", ".join(parts)


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def from_stamp(stamp: Stamp, *, commit: str | None = None) -> ServedStamp:
    """The served stamp of a release's stamp (its notes' data line)."""
    safety = next((t.recall for t in stamp.critical if t.tag == SAFETY_TAG), None)
    return ServedStamp(
        config_name=stamp.config_name,
        release_tag=stamp.release_tag,
        golden_version=stamp.golden_version,
        golden_cases=stamp.n_cases,
        safety_recall=safety,
        answer_rate=stamp.figures.get("answer_rate"),
        error_rate_answered=stamp.figures.get("error_rate_answered"),
        date=stamp.stamped_at,
        commit=commit,
    )


def from_report(report: Report, *, commit: str | None = None) -> ServedStamp:
    """The served stamp of a report (no release yet: a branch's latest report)."""
    safety = report.by_tag.get(SAFETY_TAG)
    return ServedStamp(
        config_name=report.config_name,
        golden_version=report.golden_version,
        golden_cases=report.n_cases,
        safety_recall=safety.correct_rate if safety is not None else None,
        answer_rate=report.abstention.answer_rate,
        error_rate_answered=report.abstention.error_rate_answered,
        date=report.created_at,
        commit=commit,
    )


def load_served_stamp(path: str | Path) -> ServedStamp:
    """Read the JSON `cairn stamp --json` wrote."""
    return ServedStamp.model_validate_json(read_text(Path(path), what="the served stamp", limit=LIMIT_CONFIG))


def with_stamp(description: str, stamp: ServedStamp) -> str:
    """`description` with the stamp's line as its last paragraph (an earlier stamp line is replaced)."""
    kept = [p for p in description.rstrip().split("\n\n") if not p.startswith(STAMP_PREFIX)]
    return "\n\n".join([*(p for p in kept if p), stamp.line()])


def describe_tool(tool: dict[str, Any], stamp: ServedStamp) -> dict[str, Any]:
    """A copy of an MCP tool or a function-calling schema whose description carries the stamp."""
    out = copy.deepcopy(tool)
    target = out["function"] if isinstance(out.get("function"), dict) else out
    target["description"] = with_stamp(str(target.get("description", "")), stamp)
    return out


def stamp_json(stamp: ServedStamp) -> str:
    return json.dumps(stamp.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n"
