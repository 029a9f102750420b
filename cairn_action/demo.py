"""`cairn demo`: the comment a pull request would get, produced offline from the sample corpus.

It evaluates the default config and a deliberately worse variant (the answerer sees one chunk, and
chunks are small enough to split a supporting passage), gates the variant against the default, and
writes the comment and the case explorer (the variant's cases, with the item diff). The numbers are
real: the variant is worse because its config is, not because anything was edited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cairn_action.config import ChunkingConfig, LoadedConfig
from cairn_action.gate import run_gate
from cairn_action.gate.models import GateResult
from cairn_action.render.explorer.page import explorer_page
from cairn_action.render.markdown import render_comment
from cairn_action.render.trend import build_trend
from cairn_action.report.io import dumps, write_text_atomic
from cairn_action.report.models import Report
from cairn_action.run.artifact import read_artifact

Evaluate = Callable[[LoadedConfig], Report]
"""Runs and scores one config, returning its report (the real one is `cairn eval`'s); a config without
its calibration file gets one fitted first (`cairn calibrate`)."""

WORSE_NAME = "worse"
WORSE_TOP_K = 1
WORSE_CHUNK_SIZE = 200
EXPLORER_FILE = "explorer.html"


def run_artifact(out_dir: Path, config_name: str, split: str = "eval") -> Path:
    """Where the demo's evaluation of a config's split writes its run artifact (the explorer reads the
    eval split's)."""
    return out_dir / "runs" / f"{config_name}-{split}.jsonl"


@dataclass(frozen=True, kw_only=True)
class DemoOutcome:
    result: GateResult
    comment_path: Path
    json_path: Path
    baseline_path: Path
    candidate_path: Path
    explorer_path: Path


def worse_variant(base: LoadedConfig, calibration: Path | None = None) -> LoadedConfig:
    """The default config with one chunk handed to the answerer and 200-character chunks, no overlap.

    Its calibration is its own (`calibration`, fitted by the evaluator as a pull request's author would
    run `cairn calibrate`), never the default's, which was fitted for another system.
    """
    config = base.config
    worse = config.model_copy(
        update={
            "name": WORSE_NAME,
            "description": "cairn demo: a deliberately worse variant (top_k 1, 200-character chunks)",
            "retrieval": config.retrieval.model_copy(update={"top_k": WORSE_TOP_K}),
            "chunking": ChunkingConfig(size=WORSE_CHUNK_SIZE, overlap=0),
            "calibration": config.calibration.model_copy(
                update={"path": None if calibration is None else str(calibration)}
            ),
        }
    )
    return base.model_copy(update={"config": worse, "shipped_calibration": None})


def run_demo(evaluate: Evaluate, *, base: LoadedConfig, out_dir: Path, log: TextIO) -> DemoOutcome:
    """Evaluate `base` and its worse variant, gate the variant against it, write reports and comment."""
    log.write(f"evaluating '{base.config.name}' (the baseline)\n")
    baseline = evaluate(base)
    own_calibration = out_dir / f"{WORSE_NAME}.calibration.json"
    own_calibration.unlink(missing_ok=True)  # fitted afresh, like the reports
    variant = worse_variant(base, calibration=own_calibration)
    log.write(
        f"evaluating '{variant.config.name}' (top_k {WORSE_TOP_K}, {WORSE_CHUNK_SIZE}-character chunks)\n"
    )
    candidate = evaluate(variant)
    result = run_gate(baseline, candidate)
    paths = {
        "baseline": out_dir / f"{baseline.config_name}.json",
        "candidate": out_dir / f"{candidate.config_name}.json",
        "comment": out_dir / "comment.md",
        "json": out_dir / "gate.json",
        "explorer": out_dir / EXPLORER_FILE,
    }
    write_text_atomic(paths["baseline"], dumps(baseline))
    write_text_atomic(paths["candidate"], dumps(candidate))
    write_text_atomic(paths["comment"], render_comment(result, trend=build_trend([baseline], candidate)))
    write_text_atomic(paths["json"], dumps(result))
    run = run_artifact(out_dir, candidate.config_name)
    artifacts = [read_artifact(run)] if run.is_file() else []
    write_text_atomic(paths["explorer"], explorer_page(candidate, artifacts=artifacts, result=result))
    return DemoOutcome(
        result=result,
        comment_path=paths["comment"],
        json_path=paths["json"],
        baseline_path=paths["baseline"],
        candidate_path=paths["candidate"],
        explorer_path=paths["explorer"],
    )
