"""Which critical golden cases a pull request adds or changes: the golden set at the base commit (read as
the baseline is) against the checkout's, rendered by `render.golden_review`; and which of them the
evaluation leaves out of the pull request's scores because the pull request's author confirmed them
(`golden.review.confirmed_by_author`). When either side cannot be read, the comment goes without the
listing, and the checkout's own cases are held to the rule as if all were new."""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cairn_action.action.baseline import read_base_copy
from cairn_action.action.exam import exam_paths
from cairn_action.action.runtime import Runtime
from cairn_action.config import LoadedConfig
from cairn_action.errors import CairnError
from cairn_action.files import write_bytes, write_text
from cairn_action.golden.load import GOLDEN_FILE, VERSION_FILE, parse_golden
from cairn_action.golden.models import GoldenSet
from cairn_action.golden.review import confirmed_by_author
from cairn_action.render.golden_review import critical_review_lines


@dataclass(frozen=True)
class CriticalReview:
    lines: tuple[str, ...] = ()
    """The comment's block (none when the pull request touches no critical case)."""
    left_out: Mapping[str, str] = field(default_factory=dict)
    """Case id -> why the evaluation leaves it out of this pull request's scores."""


def critical_review(
    rt: Runtime,
    loaded: LoadedConfig,
    config_file: str,
    *,
    base_sha: str,
    author: str,
    changed: list[str],
    critical_tags: Sequence[str],
) -> CriticalReview:
    """The critical cases this pull request adds or changes, and those its author confirmed;
    `critical_tags` come from the trusted (base) config."""
    golden = exam_paths(loaded.config, config_file)[0][1]
    path = golden if golden.endswith(".jsonl") else posixpath.join(golden, GOLDEN_FILE)
    if path not in changed:
        return CriticalReview()
    try:
        head = parse_golden(loaded.golden_path).golden
    except CairnError as exc:  # the evaluation reports the broken set itself
        rt.workflow.info(f"critical golden cases not listed: {exc.message}")
        return CriticalReview()
    try:
        data = read_base_copy(rt.gateway, path=path, ref=base_sha, workspace=rt.context.workspace).data
        base = _parse_bytes(data) if data is not None else None
    except CairnError as exc:
        rt.workflow.info(f"critical golden cases not listed: {exc.message}")
        return CriticalReview(left_out=confirmed_by_author(None, head, critical_tags, author))
    left_out = confirmed_by_author(base, head, critical_tags, author)
    for case_id in sorted(left_out):
        rt.workflow.warning(
            f"critical case {case_id} is confirmed only by the pull request's author {author}: left out of "
            "this pull request's scores",
            title="Cairn: golden review",
        )
    return CriticalReview(lines=critical_review_lines(base, head, critical_tags, author), left_out=left_out)


def _parse_bytes(data: bytes) -> GoldenSet:
    with tempfile.TemporaryDirectory() as folder:
        jsonl = Path(folder) / GOLDEN_FILE
        write_bytes(jsonl, data, what="the base golden set", durable=False)
        write_text(Path(folder) / VERSION_FILE, "base\n", what="its version", durable=False)
        return parse_golden(jsonl).golden
