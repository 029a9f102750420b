"""The accuracy stamp a release carries, and how it is found again in release notes.

A stamp is a section of the release notes between two markers. Inside it, next to what people read, a
hidden line holds the stamp's figures as JSON in an HTML comment, so the next release compares against
them with no storage but the notes themselves:

    <!-- cairn:accuracy config=default -->
    ... the rendered stamp ...
    <!-- cairn:stamp {"schema_version": 1, ...} -->
    <!-- /cairn:accuracy config=default -->

One section per config, so a repository that gates several configs stamps each on its own. The JSON is
encoded so that nothing in it (a reason, a login) can end the comment: `<`, `>` and `&` are written as
`\\u003c`, `\\u003e`, `\\u0026`, which JSON reads back unchanged and HTML never sees.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cairn_action.report.models import OverrideRecord, Report
from cairn_action.score.metrics import METRICS_BY_NAME

STAMP_SCHEMA_VERSION = 1
CONFIG_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}"
"""A config's name, as `config.Config.name` allows it: safe inside an HTML comment as it is."""

STAMP_METRICS: tuple[str, ...] = (
    "answer_rate",
    "error_rate_answered",
    "token_f1",
    "judge_score",
    "recall_at_5",
    "cost_per_question_usd",
)
"""The primary figures every stamp carries, in the order the stamp shows them (names from score.metrics)."""

StampStatus = Literal["stamped", "published_over_regression", "refused"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TagFigure(_Model):
    """One critical tag in this release, and against the last stamped release."""

    tag: str
    n: int = 0
    """Scored cases carrying the tag; 0 when the report has none."""
    recall: float | None = None
    """The tag's correct rate over every case of the tag (an unanswered case counts as missed)."""
    recall_at_5: float | None = None
    previous: float | None = None
    """The last stamped release's recall of this tag; None without a comparable stamp or tag."""
    fell: bool = False
    """Recall fell below the last stamped release's, or the tag is no longer measured."""


class PreviousStamp(_Model):
    """The release this one was compared with."""

    release_tag: str
    url: str = ""
    golden_version: str
    corpus_hash: str
    figures: dict[str, float | None] = Field(default_factory=dict)
    comparable: bool
    """False when the two measured different golden sets, corpora or splits: no deltas, no refusal."""


class Publication(_Model):
    """A person published over the gate, and why: kept in the release for good."""

    actor: str
    role: str
    reason: str
    at: str
    via: str
    """`release notes` (a `cairn-override:` line) or `workflow_dispatch`."""


class Stamp(_Model):
    """A release's accuracy, as measured by the report at its tag."""

    schema_version: int = STAMP_SCHEMA_VERSION
    status: StampStatus
    release_tag: str
    config_name: str = Field(pattern=rf"^{CONFIG_NAME}$")
    stamped_at: str
    evaluated: bool
    """False when the tag's commit has no report from its current config and golden set."""
    report_path: str
    report_url: str = ""
    config_hash: str = ""
    golden_version: str = ""
    golden_hash: str = ""
    corpus_hash: str = ""
    split: str = ""
    n_cases: int = 0
    report_created_at: str = ""
    """When the report was made: overrides recorded after it belong to the next release."""
    threshold_source: str = ""
    alpha: float | None = None
    guarantee_met: bool | None = None
    figures: dict[str, float | None] = Field(default_factory=dict)
    """STAMP_METRICS, read from the report with their metric specs."""
    critical: list[TagFigure] = Field(default_factory=list)
    previous: PreviousStamp | None = None
    not_comparable: list[str] = Field(default_factory=list)
    """Why the previous stamp could not be compared, one sentence each."""
    reasons: list[str] = Field(default_factory=list)
    """Why the release was refused, or what it was published over."""
    overrides: list[OverrideRecord] = Field(default_factory=list)
    """Every pull-request override merged since the previous stamped release."""
    published_over: Publication | None = None
    notes: list[str] = Field(default_factory=list)

    @property
    def can_be_compared_with(self) -> bool:
        """A published stamp with figures: the bar the next release is held to."""
        return self.status != "refused" and self.evaluated


def figures_of(report: Report) -> dict[str, float | None]:
    """The stamp's primary figures from a report, in STAMP_METRICS order."""
    return {name: METRICS_BY_NAME[name].read(report) for name in STAMP_METRICS}


# ----- markers -----


def section_start(config_name: str) -> str:
    return f"<!-- cairn:accuracy config={config_name} -->"


def section_end(config_name: str) -> str:
    return f"<!-- /cairn:accuracy config={config_name} -->"


def section_pattern(config_name: str | None = None) -> re.Pattern[str]:
    """A complete section: a start marker, then anything *without another start marker*, then the end
    marker of the same config. A stray start marker in the author's text therefore stays their text
    instead of swallowing everything up to the next section's end."""
    name = re.escape(config_name) if config_name else f"(?P<name>{CONFIG_NAME})"
    end = re.escape(config_name) if config_name else "(?P=name)"
    body = r"(?:(?!<!-- cairn:accuracy config=).)*?"
    return re.compile(
        rf"<!-- cairn:accuracy config={name} -->{body}<!-- /cairn:accuracy config={end} -->", re.S
    )


_DATA = re.compile(r"^<!-- cairn:stamp (\{[^\n]*\}) -->\r?$", re.M)
_UNSAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def encode_stamp(stamp: Stamp) -> str:
    """The hidden line: JSON on one line, with nothing in it that HTML or markdown could act on."""
    text = json.dumps(
        stamp.model_dump(mode="json"), ensure_ascii=True, separators=(",", ":"), allow_nan=False
    )
    for raw, escaped in _UNSAFE.items():
        text = text.replace(raw, escaped)
    return f"<!-- cairn:stamp {text} -->"


@dataclass(frozen=True, kw_only=True)
class StampRead:
    """What a release's notes say for one config: a stamp, or why the section there is unreadable."""

    stamp: Stamp | None = None
    problem: str | None = None


def read_stamp(notes: str | None, config_name: str) -> StampRead:
    """The stamp for `config_name` in `notes`; a section without a readable data line is a problem,
    not an error, so an old hand-edited release never blocks the next one."""
    if not notes:
        return StampRead()
    section = section_pattern(config_name).search(notes)
    if section is None:
        return StampRead()
    data = _DATA.search(section.group(0))
    if data is None:
        return StampRead(problem="its Cairn section has no data line")
    try:
        raw = json.loads(data.group(1))
    except ValueError as exc:
        return StampRead(problem=f"its stamp data is not JSON ({exc.msg})")
    version = raw.get("schema_version") if isinstance(raw, dict) else None
    if isinstance(version, int) and version > STAMP_SCHEMA_VERSION:
        return StampRead(problem=f"its stamp has schema_version {version}, newer than this Cairn reads")
    try:
        stamp = Stamp.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        return StampRead(problem=f"its stamp data is malformed at '{where}': {err['msg']}")
    if stamp.config_name != config_name:
        return StampRead(problem=f"its stamp names config '{stamp.config_name}', not '{config_name}'")
    return StampRead(stamp=stamp)


def extract_stamp(notes: str | None, config_name: str) -> Stamp | None:
    """The stamp for `config_name` in a release's notes, or None when there is none readable."""
    return read_stamp(notes, config_name).stamp
