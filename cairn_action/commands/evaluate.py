"""Handlers for the commands that build and score runs: corpus generate, golden check, eval, score,
calibrate, bench and merge. What they share with the other commands is in `common`; eval's confirmation,
control and drift probe in `rechecks`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cairn_action import __version__
from cairn_action.commands.common import (
    REPORTS_DIR,
    critical_tags,
    golden_and_corpus,
    load_config_args,
    measured_sets,
    relative_to_cwd,
    shown,
    utc_now,
    with_cache_dir,
)
from cairn_action.commands.rechecks import as_run, confirm_changed, run_cases, run_control
from cairn_action.errors import CairnError, DataError, ExitCode
from cairn_action.files import check_output_file

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.golden.models import GoldenSet
    from cairn_action.golden.split import SplitName
    from cairn_action.report.models import Report
    from cairn_action.report.pipeline import WrittenReport
    from cairn_action.run.evaluation import RunOptions
    from cairn_action.run.models import LoadedRun


def cmd_corpus_generate(args: argparse.Namespace) -> int:
    from cairn_action.sample.generate import generate_corpus

    result = generate_corpus(Path(args.out), seed=args.seed)
    print(f"wrote {len(result.files)} documents ({result.words} words) to {result.root}")
    print(f"corpus_hash {result.corpus_hash}")
    if result.pinned is None:
        print(f"note: no digest is pinned for seed {args.seed}; only seed 7 is checked against one")
    else:
        print(f"matches the digest pinned for seed {args.seed}")
    return ExitCode.PASS


def cmd_golden_check(args: argparse.Namespace) -> int:
    from cairn_action.golden.check import run_golden_check

    golden, corpus = golden_and_corpus(args)
    return run_golden_check(golden, corpus, sys.stdout, critical_tags(args), measured_sets(golden))


def _read_plan(path: Path) -> dict[str, int]:
    """`--confirm-plan`: {case id: total asks}, each a whole number from 1 to 100."""
    import json

    from cairn_action.files import LIMIT_CONFIG, read_text

    try:
        data = json.loads(read_text(path, what="confirmation plan", limit=LIMIT_CONFIG))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}:{exc.lineno}: not JSON ({exc.msg})", "write {case id: total asks}") from None
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and 1 <= v <= 100 for k, v in data.items()
    ):
        raise DataError(f"{path}:1: not an object of case ids to asks (1-100)", 'write {"q001": 5}')
    return data


def _ask_plan_options(loaded: LoadedConfig, plan_file: Path, artifact: Path | None) -> RunOptions:
    """`--ask-plan`: only the plan's cases, each asked as often as it says (a case the golden set does not
    have is an error: the plan was written for another set)."""
    from cairn_action.golden.load import load_golden
    from cairn_action.run.evaluation import RunOptions

    plan = _read_plan(plan_file)
    golden = load_golden(loaded.golden_path)
    missing = sorted(set(plan) - {c.id for c in golden.cases})
    if missing:
        raise DataError(
            f"{plan_file}:1: case {missing[0]} is not in {loaded.golden_path}",
            "the plan must name cases of the config's golden set",
        )
    cases = tuple(c for c in golden.cases if c.id in plan)
    return RunOptions(
        split="all", artifact=artifact, sampling="candidate", confirm=plan, cases=cases, stem="control"
    )


def _emit_json(target: Path | None, data: dict[str, object], real_stdout: TextIO) -> None:
    """`--json FILE` writes `data` there; `--json -` prints it on stdout (the human lines went to stderr)."""
    import json

    from cairn_action.report.io import write_text_atomic

    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if target is None:
        return
    if str(target) == "-":
        real_stdout.write(text)
        real_stdout.flush()
    else:
        write_text_atomic(target, text)


def cmd_eval(args: argparse.Namespace) -> int:
    """`cairn eval`; with `--json -` every human line goes to stderr and stdout carries only the JSON."""
    import contextlib

    real_stdout = sys.stdout
    to_stdout = args.json is not None and str(args.json) == "-"
    with contextlib.redirect_stdout(sys.stderr) if to_stdout else contextlib.nullcontext():
        code, data = _eval(args)
    _emit_json(args.json, data, real_stdout)
    return code


def _eval(args: argparse.Namespace) -> tuple[int, dict[str, object]]:
    from cairn_action.run.evaluation import RunOptions
    from cairn_action.run.shard import parse_shard

    if (args.control is not None or args.drift_probe) and args.baseline is None:
        flag = "--control" if args.control is not None else "--drift-probe"
        raise CairnError(
            f"{flag} needs --baseline: a control re-asks cases chosen by comparing with the baseline",
            "cairn eval --baseline BASELINE --control BASE_CONFIG (or --drift-probe)",
        )
    if args.control is not None and args.drift_probe:
        raise CairnError(
            "--control and --drift-probe are two kinds of control: give one",
            "--control BASE_CONFIG when the base system can be run, else --drift-probe",
        )
    if args.ask_plan is not None and not args.run_only:
        raise CairnError(
            "--ask-plan asks a chosen few cases and writes no report: it needs --run-only",
            "cairn eval --run-only --ask-plan PLAN.json --artifact FILE",
        )
    split = args.split or ("all" if args.run_only else "eval")
    options = RunOptions(
        split=split,
        shard=parse_shard(args.shard) if args.shard is not None else None,
        artifact=args.artifact,
        sampling="candidate" if args.baseline is not None else "baseline",
        run_only=args.run_only,
    )
    cwd = Path.cwd()
    loaded = load_config_args(args, cwd)
    loaded = with_cache_dir(loaded, args.cache_dir, cwd)
    if args.ask_plan is not None:
        options = _ask_plan_options(loaded, args.ask_plan, args.artifact)
    if not args.run_only and options.shard is None:  # the report is written after the paid part
        from cairn_action.report.io import check_reports_dir

        check_reports_dir(cwd / REPORTS_DIR)
    from dataclasses import replace

    caller = args.judged_by_caller
    if args.confirm_plan is not None:
        options = replace(options, confirm=_read_plan(args.confirm_plan), sampling="candidate")
    outcome = run_cases(loaded, options, cwd=cwd, no_progress=args.no_progress, judged_by_caller=caller)
    if args.baseline is not None:
        outcome = confirm_changed(
            loaded,
            options,
            outcome,
            Path(args.baseline),
            cwd=cwd,
            no_progress=args.no_progress,
            judged_by_caller=caller,
        )
    control_path = None
    if args.control is not None or args.drift_probe:
        control_path = run_control(loaded, options, outcome, Path(args.baseline), args, cwd=cwd)
    for line in outcome.summary():
        print(line)
    print(f"run artifact: {shown(outcome.path, cwd)}")
    outcome.check_failures()
    data: dict[str, object] = {
        "config": loaded.config.name,
        "split": split,
        "artifact": str(shown(outcome.path, cwd)),
        "counts": dict(outcome.counts),
        "failed": outcome.failed,
    }
    if control_path is not None:
        data["control"] = str(shown(control_path, cwd))
    if args.run_only:
        return ExitCode.PASS, data
    if options.shard is not None:
        print(
            f"note: this is shard {options.shard}; once every shard is done, score them together: "
            "`cairn score SHARD.jsonl ...`"
        )
        return ExitCode.PASS, data
    run = as_run(outcome, cwd)
    # The run read and hashed the config's corpus in this process (a resumed artifact's header must
    # match it), and read the golden set: the scoring need not read them again.
    written = _score_and_report(
        loaded,
        run,
        which=split,
        reports_dir=cwd / REPORTS_DIR,
        cwd=cwd,
        corpus_hash=run.header.corpus_hash,
        golden=outcome.golden,
    )
    return ExitCode.PASS, {**data, **_report_json(written, cwd)}


def _report_json(written: WrittenReport, cwd: Path) -> dict[str, object]:
    """What a script needs from `cairn eval --json`: where the report is and its headline figures."""
    from cairn_action.score.metrics import METRICS

    report = written.report
    return {
        "report": str(shown(written.kept, cwd)),
        "latest": None if written.latest is None else str(shown(written.latest, cwd)),
        "n_cases": report.n_cases,
        "calibrated": report.notes.calibrated,
        "threshold_source": report.notes.threshold_source,
        "guarantee_met": report.abstention.guarantee_met,
        "metrics": {m.name: m.read(report) for m in METRICS},
    }


def _score_and_report(
    loaded: LoadedConfig,
    run: LoadedRun,
    *,
    which: SplitName,
    reports_dir: Path,
    cwd: Path,
    corpus_hash: str | None = None,
    golden: GoldenSet | None = None,
) -> WrittenReport:
    """Score a run, write the report (kept and latest), print the summary. `golden`: see `score_run`."""
    from cairn_action.report.pipeline import report_from_run
    from cairn_action.report.summary import summary_lines

    for note in run.notes:
        print(f"note: {note}", file=sys.stderr)
    written = report_from_run(
        loaded,
        run,
        which=which,
        reports_dir=reports_dir,
        created_at=utc_now(),
        cairn_version=__version__,
        corpus_hash=corpus_hash,
        golden=golden,
    )
    for line in summary_lines(written.report):
        print(line)
    if written.latest is None:
        print(
            f"report: {shown(written.kept, cwd)} (split {which}: reports/latest, the baseline pull requests "
            "are gated against, is only written by the eval split)"
        )
    else:
        print(f"report: {shown(written.kept, cwd)} (also {shown(written.latest, cwd)})")
        for line in _next_steps(loaded, written.report, shown(written.latest, cwd)):
            print(line)
    return written


def _next_steps(loaded: LoadedConfig, report: Report, latest: Path) -> list[str]:
    """What to do after a first eval of one's own project: calibrate, then commit the baseline."""
    if loaded.embedded or report.notes.calibration is not None:
        return []
    source = loaded.source
    config = f" --config {relative_to_cwd(source)}" if source and source.name != "cairn.toml" else ""
    # Say where the calibration was looked for: it travels with the config file (a variant copied
    # without its .calibration.json, or run from a package that does not carry it, finds none).
    return [
        f"next: `cairn calibrate{config}` fits the abstention threshold on the calibration slice (there is "
        f"none at {relative_to_cwd(loaded.calibration_out_path)}: commit it there); then commit {latest}: "
        "it is the baseline pull requests are gated against"
    ]


def _read_runs(paths: Sequence[Path]) -> LoadedRun:
    from cairn_action.run.artifact import read_artifact
    from cairn_action.run.shard import combine_artifacts

    return combine_artifacts([read_artifact(Path(p)) for p in paths])


def complete_sealed(loaded: LoadedConfig, run: LoadedRun) -> LoadedRun:
    """A sealed set's run (it held only the questions) completed where the key is: answerability and
    support from the key, every answer judged by this config's judge (run/sealed.py)."""
    import os
    import time
    from dataclasses import replace

    from cairn_action.commands.compose import create_judge
    from cairn_action.golden.load import load_golden
    from cairn_action.index.corpus import load_corpus
    from cairn_action.providers.services import ProviderServices
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.sealed import judge_again, locate_sealed

    golden = load_golden(loaded.golden_path, os.environ)
    records = locate_sealed(
        run.records, golden, load_corpus(loaded.corpus_dir), loaded.config.gate.critical_tags
    )
    warn = lambda message: print(f"warning: {message}", file=sys.stderr)  # noqa: E731
    services = ProviderServices.from_config(loaded.config, env=os.environ, warn=warn)
    try:
        judge = create_judge(loaded, os.environ, services)
        workers = 1 if getattr(judge, "deterministic", False) else loaded.config.run.max_concurrency
        cache = ResultCache(loaded.cache_dir)
        records = judge_again(
            judge, records, golden.by_id(), cache=cache, clock=time.perf_counter, workers=workers
        )
    finally:
        services.close()
    header = run.header.model_copy(update={"judge": str(getattr(judge, "label", loaded.config.judge.name))})
    return replace(run, header=header, records=tuple(records))


def cmd_score(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    loaded = load_config_args(args, cwd)
    from cairn_action.report.io import check_reports_dir

    check_reports_dir(cwd / args.reports)
    run = _read_runs(args.artifacts)
    if run.header.sealed:
        run = complete_sealed(loaded, run)
    _score_and_report(loaded, run, which=args.split, reports_dir=cwd / args.reports, cwd=cwd)
    return ExitCode.PASS


def cmd_calibrate(args: argparse.Namespace) -> int:
    from cairn_action.report.pipeline import calibration_from_run, calibration_lines

    cwd = Path.cwd()
    loaded = load_config_args(args, cwd)
    check_output_file(loaded.calibration_path, what="the calibration file")  # before the paid run
    if args.runs:
        run = _read_runs(args.runs)
        if run.header.sealed:  # calibration reads the key here, never in the run
            run = complete_sealed(loaded, run)
    else:
        from cairn_action.run.evaluation import RunOptions

        outcome = run_cases(loaded, RunOptions(split="calibration"), cwd=cwd, no_progress=args.no_progress)
        for line in outcome.summary():
            print(line, file=sys.stderr)
        run = as_run(outcome, cwd)
    calibration, path = calibration_from_run(
        loaded, run, created_at=utc_now(), cairn_version=__version__, procedure=args.procedure
    )
    for line in calibration_lines(calibration):
        print(line)
    print(f"calibration: {shown(path, cwd)} (commit it beside the config; `cairn eval` applies it)")
    return ExitCode.PASS


def cmd_bench(args: argparse.Namespace) -> int:
    from cairn_action.report.io import LATEST_DIR, read_latest_reports, write_text_atomic
    from cairn_action.report.leaderboard import group_key, render_leaderboard

    cwd = Path.cwd()
    reports_dir = cwd / args.reports
    out = cwd / args.out if args.out else reports_dir / "leaderboard.md"
    check_output_file(out, what="the leaderboard")
    found = read_latest_reports(reports_dir, cases=False)
    if not found:
        raise CairnError(
            f"{shown(reports_dir / LATEST_DIR, cwd)}: no reports to rank",
            "run `cairn eval` for each config first (it writes reports/latest/<config>.json)",
        )
    reports = [r for _, r in found]
    out = cwd / args.out if args.out else reports_dir / "leaderboard.md"
    write_text_atomic(out, render_leaderboard(reports), what="the leaderboard")
    tables = len({group_key(r) for r in reports})
    print(f"leaderboard: {len(reports)} config(s) in {tables} table(s): {shown(out, cwd)}")
    return ExitCode.PASS


def cmd_merge(args: argparse.Namespace) -> int:
    from cairn_action.run.artifact import read_artifact, write_artifact
    from cairn_action.run.shard import merge

    check_output_file(Path(args.out), what="the merged run artifact")
    merged = merge([read_artifact(Path(p)) for p in args.artifacts])
    write_artifact(Path(args.out), merged.header, merged.records)
    for note in merged.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"merged {len(args.artifacts)} shards, {len(merged.records)} cases, into {args.out}")
    return ExitCode.PASS
