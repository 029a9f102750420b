"""What the commands share: where reports go, the clock, paths as the user types them, and the config in
force (with --config / --corpus / --golden / --cache-dir applied and its [gate] metric names checked)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.golden.history import MeasuredSet

REPORTS_DIR = Path("reports")


def utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shown(path: Path, cwd: Path) -> Path:
    """`path` relative to `cwd` when it lies below it, as the user would type it."""
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


def relative_to_cwd(path: Path) -> Path:
    """`path` as the user would type it from here, when it lies below the working directory."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def golden_and_corpus(args: argparse.Namespace) -> tuple[Path, Path]:
    """The golden set and corpus paths from --golden/--corpus, else from the config.

    With the embedded default config (no cairn.toml) and its golden set, the corpus is the generated
    sample in data/sample: it is written on first use. A corpus named by the user is never generated,
    nor is the sample for a golden set of the user's own (it was written for other documents).
    """
    if args.golden is not None and args.corpus is not None and args.config is None:
        return args.golden, args.corpus  # nothing to take from a config
    from cairn_action.config import load_config

    loaded = load_config(args.config)
    if args.golden is None:
        loaded.check_path("golden.path")
    if args.corpus is None:
        loaded.check_path("corpus.path")
    golden = args.golden or loaded.golden_path
    corpus = args.corpus or loaded.corpus_dir
    if args.corpus is None and args.golden is None and loaded.embedded:
        from cairn_action.sample.generate import ensure_sample_corpus

        done = ensure_sample_corpus(relative_to_cwd(corpus))
        if done is not None:
            print(done, file=sys.stderr)
    return golden, corpus


def critical_tags(args: argparse.Namespace) -> list[str]:
    """[gate] critical_tags of the config in force (--config, else cairn.toml here, else the default)."""
    from cairn_action.config import GateConfig, load_config

    if args.config is None and not Path("cairn.toml").is_file():
        return list(GateConfig().critical_tags)
    return list(load_config(args.config).config.gate.critical_tags)


def measured_sets(golden: Path) -> list[MeasuredSet]:
    """The golden set (version, content hash) each latest report of the set's project measured: the
    nearest `reports/latest/` in the set's folder or up to three above it (a set elsewhere, with a
    version of its own, is not the one those reports measured). Unreadable reports are skipped."""
    import json
    import os

    from cairn_action.errors import CairnError
    from cairn_action.files import LIMIT_REPORT, read_text
    from cairn_action.golden.history import MeasuredSet

    # No resolve(): a bad path (a loop, a missing folder) is the golden check's to report, as one line.
    absolute = Path(os.path.abspath(golden))
    folder = absolute if golden.suffix != ".jsonl" else absolute.parent
    try:
        latest = next(
            (
                f / REPORTS_DIR / "latest"
                for f in [folder, *folder.parents][:4]
                if (f / REPORTS_DIR / "latest").is_dir()
            ),
            None,
        )
        reports = sorted(latest.glob("*.json")) if latest is not None else []
    except OSError:
        return []
    found = []
    for path in reports:
        try:
            data = json.loads(read_text(path, what="a report", limit=LIMIT_REPORT))
            found.append(MeasuredSet(str(path), data["golden_version"], data["notes"].get("golden_hash", "")))
        except (CairnError, OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return found


def load_config_args(args: argparse.Namespace, cwd: Path) -> LoadedConfig:
    from cairn_action.config import load_config

    loaded = load_config(args.config, cwd=cwd).with_overrides(corpus=args.corpus, golden=args.golden, cwd=cwd)
    _check_gate_metric_names(loaded)
    return loaded


def with_cache_dir(loaded: LoadedConfig, cache_dir: Path | None, cwd: Path) -> LoadedConfig:
    """`--cache-dir`: the config with `run.cache_dir` replaced (the Action keeps it outside the checkout)."""
    if cache_dir is None:
        return loaded
    run = loaded.config.run.model_copy(update={"cache_dir": str((cwd / cache_dir).resolve())})
    return loaded.model_copy(update={"config": loaded.config.model_copy(update={"run": run})})


def _check_gate_metric_names(loaded: LoadedConfig) -> None:
    """A misspelt metric in [gate] is caught when the config is used, not when a later pull request is gated
    against the report it produced (the gate refuses such a baseline)."""
    from cairn_action.errors import ConfigError
    from cairn_action.score.metrics import METRICS_BY_NAME

    gate = loaded.config.gate
    for table in ("max_drop", "floors"):
        unknown = sorted(set(getattr(gate, table)) - set(METRICS_BY_NAME))
        if unknown:
            raise ConfigError(
                f"{loaded.where(('gate', table, unknown[0]))}: [gate] {table} names unknown metric(s): "
                f"{', '.join(unknown)}",
                f"max_drop and floors take metric names: {', '.join(METRICS_BY_NAME)}",
            )
