"""Handlers for `cairn attack` and for `cairn gate` given two attack reports."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action import __version__
from cairn_action.attack.io import read_attack_report
from cairn_action.commands.common import load_config_args, shown, utc_now, with_cache_dir
from cairn_action.errors import DataError, ExitCode, InfrastructureError

if TYPE_CHECKING:
    import argparse


def _families(args: argparse.Namespace) -> list[str]:
    from cairn_action.config import ATTACK_FAMILIES
    from cairn_action.errors import CairnError

    if not args.families:
        return []
    asked = [f.strip() for part in args.families for f in part.split(",") if f.strip()]
    unknown = [f for f in asked if f not in ATTACK_FAMILIES]
    if unknown:
        raise CairnError(
            f"--families: unknown famil{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)}",
            f"choose from: {', '.join(ATTACK_FAMILIES)}",
        )
    return asked


def cmd_attack(args: argparse.Namespace) -> int:
    import os

    from cairn_action.attack.execute import run_attack
    from cairn_action.attack.io import write_attack_report
    from cairn_action.attack.render import summary_lines
    from cairn_action.attack.score import build_attack_report
    from cairn_action.commands.compose import run_evaluation
    from cairn_action.run.progress import make_progress

    cwd = Path.cwd()
    loaded = with_cache_dir(load_config_args(args, cwd), args.cache_dir, cwd)
    families = _families(args) or list(loaded.config.attack.families)
    progress = make_progress(sys.stderr, enabled=not args.no_progress, is_tty=sys.stderr.isatty())
    run = run_attack(
        loaded,
        families=families,
        cwd=cwd,
        log=sys.stderr,
        progress=progress,
        evaluate=run_evaluation,
        env=os.environ,
        artifact=args.artifact,
    )
    records = [r for samples in run.records.values() for r in samples]
    if records and all(r.status == "error" for r in records):
        raise InfrastructureError(
            "every probe failed to reach the system under test; the run artifact lists why",
            "check the provider settings and that it is reachable, then rerun to retry",
        )
    if args.run_only:
        for line in run.summary:
            print(line)
        return ExitCode.PASS
    report = build_attack_report(
        run, config=loaded.config.attack, families=families, created_at=utc_now(), cairn_version=__version__
    )
    json_path, md_path = write_attack_report(report, cwd / args.reports)
    for line in summary_lines(report, extra=run.summary):
        print(line)
    print(f"attack report: {shown(json_path, cwd)} (also {shown(md_path, cwd)})")
    return ExitCode.PASS if report.verdict == "pass" else ExitCode.GATE_FAILED


def gate_attack_reports(args: argparse.Namespace) -> int:
    """`cairn gate BASELINE CANDIDATE` when both are attack reports."""
    from cairn_action.attack.compare import compare_attacks
    from cairn_action.attack.io import is_attack_report
    from cairn_action.attack.render import render_attack_section
    from cairn_action.errors import RefusedComparison
    from cairn_action.report.io import dumps, write_text_atomic

    for path in (args.baseline, args.candidate):
        if not is_attack_report(path):
            raise DataError(
                f"{path}: not an attack report, while the other one is",
                "gate two `cairn eval` reports, or two `cairn attack` reports (reports/attack-<config>.json)",
            )
    baseline, candidate = read_attack_report(args.baseline), read_attack_report(args.candidate)
    gate = compare_attacks(baseline, candidate)
    if args.markdown:
        write_text_atomic(args.markdown, render_attack_section(gate))
        print(f"comment: {args.markdown}", file=sys.stderr)
    if args.json:
        write_text_atomic(args.json, dumps(gate))
        print(f"decision: {args.json}", file=sys.stderr)
    if gate.status == "refused":
        raise RefusedComparison(
            "; ".join(gate.reasons), "run `cairn attack` on both sides with the same suite (seed and version)"
        )
    print(f"{gate.status}: {gate.headline}")
    for reason in gate.reasons:
        print(f"  - {reason}")
    for outcome in ("broke", "fixed"):
        ids = [p.probe_id for p in gate.probes if p.outcome == outcome]
        if ids:
            print(
                f"  {outcome}: {', '.join(ids[:20])}"
                + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")
            )
    return gate.exit_code
