"""Versions with a history: `cairn golden diff OLD NEW` and its changelog entry.

The curation guide: "Never edit past versions ... Keep a changelog: which examples were added, removed, or
re-annotated, and why." Cases are matched by id. A case is re-annotated when what it scores against
changed (answerability, expected answer or its variants, support, deterministic checks); deprecated when
it became `deprecated: true`; edited when only its wording, tags or audit fields changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.golden.load import VERSION_FILE
from cairn_action.golden.models import GoldenCase, GoldenSet


@dataclass(frozen=True)
class MeasuredSet:
    """A golden set a committed report measured: where the report is, the version and content hash."""

    report: str
    version: str
    content_hash: str


def unbumped_version(golden: GoldenSet, measured: Sequence[MeasuredSet]) -> list[str]:
    """A warning for each report that measured this version with other content: the set was edited
    without a version bump, so the gate would compare the two as the same exam."""
    return [
        f"{golden.path}: the content changed since {m.report} measured version {golden.version}, but "
        f"{VERSION_FILE} did not: bump it (the gate refuses comparisons across versions, not across edits)"
        for m in measured
        if m.version == golden.version and m.content_hash and m.content_hash != golden.content_hash
    ]


LABEL_FIELDS = ("answerable", "expected_answer", "answer_variants", "support", "checks")
_SKIPPED = {"deprecated", "status", "confirmed_by"}
CHANGELOG_TITLE = "# Golden set changelog\n"


@dataclass(frozen=True)
class GoldenDiff:
    old_version: str
    new_version: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    re_annotated: tuple[tuple[str, tuple[str, ...]], ...]
    """(id, the label fields that changed)."""
    deprecated: tuple[str, ...]
    edited: tuple[tuple[str, tuple[str, ...]], ...]
    content_changed: bool

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.re_annotated or self.deprecated or self.edited)


def _all(golden: GoldenSet) -> dict[str, GoldenCase]:
    return {c.id: c for c in (*golden.cases, *golden.inactive)}


def _changed_fields(before: GoldenCase, after: GoldenCase) -> list[str]:
    # Support is compared without digests: re-confirming records a digest, it does not re-annotate.
    def strip(case: GoldenCase) -> dict[str, object]:
        data = case.model_dump()
        data["support"] = [{k: v for k, v in s.items() if k != "digest"} for s in data["support"]]
        return data

    a, b = strip(before), strip(after)
    return [name for name in a if a[name] != b[name]]


def diff_golden(old: GoldenSet, new: GoldenSet) -> GoldenDiff:
    before, after = _all(old), _all(new)
    re_annotated, edited, deprecated = [], [], []
    for case_id, case in after.items():
        if case_id not in before:
            continue
        fields = _changed_fields(before[case_id], case)
        if case.deprecated and not before[case_id].deprecated:
            deprecated.append(case_id)
        labels = tuple(f for f in fields if f in LABEL_FIELDS)
        others = tuple(f for f in fields if f not in LABEL_FIELDS and f not in _SKIPPED)
        if labels:
            re_annotated.append((case_id, labels))
        elif others:
            edited.append((case_id, others))
    return GoldenDiff(
        old_version=old.version,
        new_version=new.version,
        added=tuple(i for i in after if i not in before),
        removed=tuple(i for i in before if i not in after),
        re_annotated=tuple(re_annotated),
        deprecated=tuple(deprecated),
        edited=tuple(edited),
        content_changed=old.content_hash != new.content_hash,
    )


def format_diff(diff: GoldenDiff) -> str:
    lines = [f"golden set {diff.old_version} -> {diff.new_version}"]
    if diff.empty:
        lines.append("no case added, removed or changed")
    lines += _entry_lines(diff)
    if diff.content_changed and diff.old_version == diff.new_version:
        lines.append(
            f"warning: the content changed but the version did not ({diff.new_version}); bump golden.version "
            "(reports of the two would be compared as if they measured the same set)"
        )
    return "\n".join(lines)


def _entry_lines(diff: GoldenDiff) -> list[str]:
    lines = []
    for title, ids in (("added", diff.added), ("removed", diff.removed), ("deprecated", diff.deprecated)):
        if ids:
            lines.append(f"- {title} ({len(ids)}): {', '.join(ids)}")
    for title, items in (("re-annotated", diff.re_annotated), ("edited", diff.edited)):
        if items:
            shown = ", ".join(f"{i} ({', '.join(fields)})" for i, fields in items)
            lines.append(f"- {title} ({len(items)}): {shown}")
    return lines


def changelog_entry(diff: GoldenDiff, *, date: str, reason: str | None) -> str:
    """The markdown section `--changelog` appends."""
    lines = [f"## {diff.new_version} ({date}, from {diff.old_version})", ""]
    if reason:
        lines += [reason.strip(), ""]
    lines += _entry_lines(diff) or ["- no case added, removed or changed"]
    return "\n".join(lines) + "\n"
