"""Which critical golden cases a pull request adds or changes: the golden set at the base commit (read as
the baseline is) against the checkout's, rendered by `render.golden_review`. A listing, never a verdict:
when either side cannot be read, the comment goes without it."""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Sequence
from pathlib import Path

from cairn_action.config import LoadedConfig
from cairn_action.errors import CairnError
from cairn_action.gh.baseline import read_base_copy
from cairn_action.gh.exam import exam_paths
from cairn_action.gh.runtime import Runtime
from cairn_action.golden.load import GOLDEN_FILE, VERSION_FILE, parse_golden
from cairn_action.golden.models import GoldenSet
from cairn_action.render.golden_review import critical_review_lines


def critical_review(
    rt: Runtime,
    loaded: LoadedConfig,
    config_file: str,
    *,
    base_sha: str,
    author: str,
    changed: list[str],
    critical_tags: Sequence[str],
) -> tuple[str, ...]:
    """The comment's block for the critical cases this pull request adds or changes (or none);
    `critical_tags` come from the trusted (base) config."""
    golden = exam_paths(loaded.config, config_file)[0][1]
    path = golden if golden.endswith(".jsonl") else posixpath.join(golden, GOLDEN_FILE)
    if path not in changed:
        return ()
    try:
        head = parse_golden(loaded.golden_path).golden
        data = read_base_copy(rt.gateway, path=path, ref=base_sha, workspace=rt.context.workspace).data
        base = _parse_bytes(data) if data is not None else None
    except CairnError as exc:
        rt.workflow.info(f"critical golden cases not listed: {exc.message}")
        return ()
    return critical_review_lines(base, head, critical_tags, author)


def _parse_bytes(data: bytes) -> GoldenSet:
    with tempfile.TemporaryDirectory() as folder:
        jsonl = Path(folder) / GOLDEN_FILE
        jsonl.write_bytes(data)
        (Path(folder) / VERSION_FILE).write_text("base\n", encoding="utf-8")
        return parse_golden(jsonl).golden
