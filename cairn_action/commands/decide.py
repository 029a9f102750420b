"""Handlers for the commands that compare and decide: gate and demo."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action import __version__
from cairn_action.commands.evaluate import shown, utc_now
from cairn_action.errors import CairnError, ExitCode

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.gate.models import GateResult, Override
    from cairn_action.report.models import Report


def _gate_override(args: argparse.Namespace) -> Override | None:
    """The override the Action found (label, who, why), or None; the clock is read here, not in the policy."""
    from cairn_action.gate.models import Override

    given = (args.override_label, args.override_actor, args.override_reason)
    if not any(given):
        return None
    if not all(given):
        raise CairnError(
            "--override-label, --override-actor and --override-reason go together",
            "pass all three (the Action supplies them from the label event), or none",
        )
    at = args.override_at or utc_now()
    return Override(
        actor=args.override_actor,
        label=args.override_label,
        reason=args.override_reason,
        at=at,
        pr=args.override_pr,
        head_sha=args.override_sha,
    )


def _gate_history(folder: Path | None, config_name: str) -> list[Report]:
    """This config's committed reports (`<folder>/<config>-*.json`) for the trend; bad ones are skipped."""
    from cairn_action.report.io import read_report

    if folder is None or not folder.is_dir():
        return []
    history = []
    for path in sorted(folder.glob(f"{config_name}-*.json")):
        try:
            history.append(read_report(path))
        except CairnError as exc:
            print(f"note: left out of the trend: {exc.message}", file=sys.stderr)
    return history


def print_decision(result: GateResult) -> None:
    decision = result.decision
    print(f"{decision.status}: {decision.headline}")
    for reason in decision.reasons:
        print(f"  - {reason.message}")
    for outcome in ("broke", "fixed", "changed"):
        ids = sorted(c.case_id for c in result.comparison.by_outcome(outcome))
        if ids:
            more = f" and {len(ids) - 20} more" if len(ids) > 20 else ""
            print(f"  {outcome}: {', '.join(ids[:20])}{more}")
    for note in (*result.comparison.notes, *decision.notes):
        print(f"  note: {note}")


def cmd_gate(args: argparse.Namespace) -> int:
    from cairn_action.errors import RefusedComparison
    from cairn_action.gate import run_gate
    from cairn_action.render.markdown import render_comment
    from cairn_action.render.trend import build_trend
    from cairn_action.report.io import dumps, read_report, write_text_atomic

    baseline, candidate = read_report(args.baseline), read_report(args.candidate)
    result = run_gate(baseline, candidate, override=_gate_override(args), source=str(args.baseline))
    trend = build_trend(_gate_history(args.history, candidate.config_name), candidate)
    if args.markdown:
        write_text_atomic(args.markdown, render_comment(result, trend=trend))
        print(f"comment: {args.markdown}", file=sys.stderr)
    if args.json:
        write_text_atomic(args.json, dumps(result))
        print(f"decision: {args.json}", file=sys.stderr)
    refusals = result.comparison.refusals
    if refusals:
        raise RefusedComparison("; ".join(r.message for r in refusals), refusals[0].hint)
    print_decision(result)
    return result.decision.exit_code


def _demo_evaluator(cwd: Path, out_dir: Path) -> Callable[[LoadedConfig], Report]:
    """`cairn eval --split eval` for one config, offline: the stub answerer, no API key, a fresh run
    artifact and the reports kept under `out_dir`, never in the repository's reports/."""

    def evaluate(loaded: LoadedConfig) -> Report:
        from cairn_action.demo import run_artifact
        from cairn_action.report.pipeline import LoadedRun, report_from_run
        from cairn_action.run.evaluation import RunOptions, run_evaluation
        from cairn_action.run.progress import make_progress

        artifact = run_artifact(out_dir, loaded.config.name)
        artifact.unlink(missing_ok=True)  # a demo always runs afresh (the provider cache keeps it fast)
        outcome = run_evaluation(
            loaded,
            RunOptions(split="eval", artifact=artifact),
            cwd=cwd,
            log=sys.stderr,
            progress=make_progress(sys.stderr, enabled=False, is_tty=False),
            env={},
        )
        where = str(artifact)
        run = LoadedRun(header=outcome.header, records=outcome.records, where=where, sources=(where,))
        written = report_from_run(
            loaded,
            run,
            which="eval",
            reports_dir=out_dir / "reports",
            created_at=utc_now(),
            cairn_version=__version__,
        )
        return written.report

    return evaluate


def cmd_demo(args: argparse.Namespace) -> int:
    from cairn_action.config import embedded_default
    from cairn_action.demo import run_demo

    cwd = Path.cwd()
    out_dir = args.out if args.out.is_absolute() else cwd / args.out
    evaluate = _demo_evaluator(cwd, out_dir)
    outcome = run_demo(evaluate, base=embedded_default(cwd), out_dir=out_dir, log=sys.stderr)
    print_decision(outcome.result)
    if outcome.result.decision.status == "regression":
        print("(`cairn gate` would exit 1 here and fail the pull request's check)")
    print(f"the comment a pull request would show: {shown(outcome.comment_path, cwd)}")
    print(f"every case, with the item diff (open it in a browser): {shown(outcome.explorer_path, cwd)}")
    return ExitCode.PASS
