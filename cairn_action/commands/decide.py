"""Handlers for the commands that compare and decide: gate and demo."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cairn_action import __version__
from cairn_action.commands.common import shown, utc_now
from cairn_action.errors import CairnError, ExitCode
from cairn_action.files import check_output_dir, check_output_file, exists, is_dir, os_reason

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.gate.models import GateResult, Override
    from cairn_action.golden.split import SplitName
    from cairn_action.report.models import Report
    from cairn_action.run.models import LoadedRun


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

    if folder is None:
        folder = Path("reports")
        if not is_dir(folder):
            return []
    elif not is_dir(folder):
        raise CairnError(
            f"{folder}: --history {'is not a folder' if exists(folder) else 'folder not found'}",
            "pass --history DIR: the folder of committed reports (reports/), or leave it out",
        )
    history = []
    try:
        paths = sorted(folder.glob(f"{config_name}-*.json"))
    except OSError as exc:
        raise CairnError(f"{folder}: cannot list --history: {os_reason(exc)}", "make it readable") from None
    for path in paths:
        try:
            history.append(read_report(path, cases=False))  # the trend needs the aggregates only
        except CairnError as exc:
            print(f"note: left out of the trend: {exc.message}", file=sys.stderr)
    return history


def print_decision(result: GateResult, out: TextIO | None = None) -> None:
    decision = result.decision
    out = out or sys.stdout
    print(f"{decision.status}: {decision.headline}", file=out)
    for reason in decision.reasons:
        print(f"  - {reason.message}", file=out)
    for outcome in ("broke", "fixed", "changed"):
        ids = sorted(c.case_id for c in result.comparison.by_outcome(outcome))
        if ids:
            more = f" and {len(ids) - 20} more" if len(ids) > 20 else ""
            print(f"  {outcome}: {', '.join(ids[:20])}{more}", file=out)
    for note in (*result.comparison.notes, *decision.notes):
        print(f"  note: {note}", file=out)


def cmd_gate(args: argparse.Namespace) -> int:
    from cairn_action.attack.io import is_attack_report
    from cairn_action.commands.attack import gate_attack_reports
    from cairn_action.errors import RefusedComparison
    from cairn_action.gate import run_gate
    from cairn_action.render.markdown import render_comment
    from cairn_action.render.trend import build_trend
    from cairn_action.report.io import dumps, read_report, write_text_atomic

    for out, what in ((args.markdown, "the comment (--markdown)"), (args.json, "the decision (--json)")):
        if out is not None:
            check_output_file(out, what=what)
    if is_attack_report(args.baseline) or is_attack_report(args.candidate):
        return gate_attack_reports(args)  # both must be attack reports; its reader says so otherwise
    baseline, candidate = read_report(args.baseline), read_report(args.candidate)
    control = read_report(args.control) if args.control is not None else None
    result = run_gate(
        baseline,
        candidate,
        override=_gate_override(args),
        source=str(args.baseline),
        control=control,
        control_source=str(args.control),
    )
    trend = build_trend(_gate_history(args.history, candidate.config_name), candidate)
    if args.markdown:
        write_text_atomic(args.markdown, render_comment(result, trend=trend), what="the comment")
        print(f"comment: {args.markdown}", file=sys.stderr)
    to_stdout = args.json is not None and str(args.json) == "-"
    if to_stdout:
        sys.stdout.write(dumps(result))  # for scripts: the decision alone on stdout
    elif args.json:
        write_text_atomic(args.json, dumps(result), what="the decision")
        print(f"decision: {args.json}", file=sys.stderr)
    refusals = result.comparison.refusals
    if refusals:
        raise RefusedComparison("; ".join(r.message for r in refusals), refusals[0].hint)
    print_decision(result, out=sys.stderr if to_stdout else sys.stdout)
    return result.decision.exit_code


def _demo_evaluator(cwd: Path, out_dir: Path) -> Callable[[LoadedConfig], Report]:
    """`cairn eval --split eval` for one config, offline: the stub answerer, no API key, a fresh run
    artifact and the reports kept under `out_dir`, never in the repository's reports/."""

    def run_split(loaded: LoadedConfig, split: SplitName) -> LoadedRun:
        from cairn_action.commands.compose import run_evaluation
        from cairn_action.demo import run_artifact
        from cairn_action.run.evaluation import RunOptions
        from cairn_action.run.models import LoadedRun
        from cairn_action.run.progress import make_progress

        artifact = run_artifact(out_dir, loaded.config.name, split)
        check_output_file(artifact, what="the demo's run artifact")
        artifact.unlink(missing_ok=True)  # a demo always runs afresh (the provider cache keeps it fast)
        outcome = run_evaluation(
            loaded,
            RunOptions(split=split, artifact=artifact),
            cwd=cwd,
            log=sys.stderr,
            progress=make_progress(sys.stderr, enabled=False, is_tty=False),
            env={},
        )
        where = str(artifact)
        return LoadedRun(header=outcome.header, records=outcome.records, where=where, sources=(where,))

    def evaluate(loaded: LoadedConfig) -> Report:
        from cairn_action.report.pipeline import calibration_from_run, report_from_run

        if not loaded.calibration_path.is_file():  # what the pull request's author runs first
            calibration, _ = calibration_from_run(
                loaded, run_split(loaded, "calibration"), created_at=utc_now(), cairn_version=__version__
            )
            sys.stderr.write(f"fitted a calibration for '{loaded.config.name}': {calibration.status}\n")
        written = report_from_run(
            loaded,
            run_split(loaded, "eval"),
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
    for folder in (out_dir, out_dir / "runs", out_dir / "reports", out_dir / "reports" / "latest"):
        check_output_dir(folder, what="the demo's output folder (--out)")
    for name in ("comment.md", "gate.json"):
        check_output_file(out_dir / name, what="the demo's output (--out)")
    evaluate = _demo_evaluator(cwd, out_dir)
    outcome = run_demo(evaluate, base=embedded_default(cwd), out_dir=out_dir, log=sys.stderr)
    print_decision(outcome.result)
    if outcome.result.decision.status == "regression":
        print("(`cairn gate` would exit 1 here and fail the pull request's check)")
    print(f"the comment a pull request would show: {shown(outcome.comment_path, cwd)}")
    print(f"every case, with the item diff (open it in a browser): {shown(outcome.explorer_path, cwd)}")
    return ExitCode.PASS
