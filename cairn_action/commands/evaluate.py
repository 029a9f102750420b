"""Handlers for the commands that build and score runs: corpus generate, golden check, eval, score,
calibrate, bench and merge."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from cairn_action import __version__
from cairn_action.errors import CairnError, DataError, ExitCode
from cairn_action.files import check_output_file

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.golden.history import MeasuredSet
    from cairn_action.golden.split import SplitName
    from cairn_action.report.models import Report
    from cairn_action.report.pipeline import WrittenReport
    from cairn_action.run.evaluation import RunOptions, RunOutcome
    from cairn_action.run.models import CaseRecord, LoadedRun

REPORTS_DIR = Path("reports")


def utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shown(path: Path, cwd: Path) -> Path:
    """`path` relative to `cwd` when it lies below it, as the user would type it."""
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


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


def _relative_to_cwd(path: Path) -> Path:
    """`path` as the user would type it from here, when it lies below the working directory."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def _golden_and_corpus(args: argparse.Namespace) -> tuple[Path, Path]:
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

        done = ensure_sample_corpus(_relative_to_cwd(corpus))
        if done is not None:
            print(done, file=sys.stderr)
    return golden, corpus


def critical_tags(args: argparse.Namespace) -> list[str]:
    """[gate] critical_tags of the config in force (--config, else cairn.toml here, else the default)."""
    from cairn_action.config import GateConfig, load_config

    if args.config is None and not Path("cairn.toml").is_file():
        return list(GateConfig().critical_tags)
    return list(load_config(args.config).config.gate.critical_tags)


def cmd_golden_check(args: argparse.Namespace) -> int:
    from cairn_action.golden.check import run_golden_check

    golden, corpus = _golden_and_corpus(args)
    return run_golden_check(golden, corpus, sys.stdout, critical_tags(args), measured_sets(golden))


def measured_sets(golden: Path) -> list[MeasuredSet]:
    """The golden set (version, content hash) each latest report of the set's project measured: the
    nearest `reports/latest/` in the set's folder or up to three above it (a set elsewhere, with a
    version of its own, is not the one those reports measured). Unreadable reports are skipped."""
    import json
    import os

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
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append(MeasuredSet(str(path), data["golden_version"], data["notes"].get("golden_hash", "")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
    return found


def _load_config_args(args: argparse.Namespace, cwd: Path) -> LoadedConfig:
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


def _evaluate(
    loaded: LoadedConfig,
    options: RunOptions,
    *,
    cwd: Path,
    no_progress: bool,
    judged_by_caller: str | None = None,
) -> RunOutcome:
    """Run the config's cases (the expensive half), with progress on stderr unless --no-progress."""
    import os

    from cairn_action.run.evaluation import run_evaluation
    from cairn_action.run.judge import PlaceholderJudge
    from cairn_action.run.progress import make_progress

    progress = make_progress(sys.stderr, enabled=not no_progress, is_tty=sys.stderr.isatty())
    judge = None
    if judged_by_caller is not None:
        judge = PlaceholderJudge(deterministic=judged_by_caller == "deterministic")
    return run_evaluation(
        loaded, options, cwd=cwd, log=sys.stderr, progress=progress, env=os.environ, judge=judge
    )


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


def _as_run(outcome: RunOutcome, cwd: Path) -> LoadedRun:
    from cairn_action.run.models import LoadedRun

    return LoadedRun(
        header=outcome.header,
        records=outcome.records,
        where=str(shown(outcome.path, cwd)),
        sources=(str(outcome.path),),
    )


def _confirm_blind(
    loaded: LoadedConfig,
    options: RunOptions,
    outcome: RunOutcome,
    baseline: Report,
    *,
    cwd: Path,
    no_progress: bool,
    judged_by_caller: str | None,
) -> RunOutcome:
    """A sealed set's run cannot tell which verdicts changed (it holds no answers), so every case gets the
    baseline policy's confirmation samples: the scoring side then finds the re-asks it needs already made.
    It costs (1 + confirm_samples) asks a case instead of re-asking the changed ones only."""
    from dataclasses import replace

    from cairn_action.gate import policy_of

    extra = policy_of(baseline, source="the baseline").confirm_samples
    plan = {record.case_id: 1 + extra for record in outcome.records}
    confirmed = _evaluate(
        loaded,
        replace(options, artifact=outcome.path, confirm=plan),
        cwd=cwd,
        no_progress=no_progress,
        judged_by_caller=judged_by_caller,
    )
    print(
        f"confirmation (sealed golden set: the run cannot see which verdicts changed): every case asked "
        f"{1 + extra} times, {confirmed.calls_made()[0]} provider call(s)"
    )
    return confirmed


def _confirm(
    loaded: LoadedConfig,
    options: RunOptions,
    outcome: RunOutcome,
    baseline_path: Path,
    *,
    cwd: Path,
    no_progress: bool,
    judged_by_caller: str | None = None,
) -> RunOutcome:
    """Re-ask the cases whose verdict differs from the baseline's (and retry the errored ones once).

    The number of re-asks is the *baseline's* `[gate] confirm_samples`, so a pull request cannot opt
    out of the evidence its changes are judged on.
    """
    from dataclasses import replace

    from cairn_action.gate import policy_of
    from cairn_action.gate.confirm import confirmation_plan, flaky_plan
    from cairn_action.report.io import read_report
    from cairn_action.report.pipeline import score_run

    # A sealed set's run holds no key: it reads the baseline's policy, never its (sealed) cases.
    baseline = read_report(baseline_path, cases=not outcome.header.sealed)
    if options.shard is not None:
        print("note: --baseline with --shard: confirmation needs every case; score the merged shards")
        return outcome
    if outcome.header.deterministic and not outcome.failed:
        print(f"confirmation against {baseline_path.name}: none needed, the system is deterministic")
        return outcome  # asking a deterministic system again can only repeat its answers
    if outcome.header.sealed:
        return _confirm_blind(
            loaded,
            options,
            outcome,
            baseline,
            cwd=cwd,
            no_progress=no_progress,
            judged_by_caller=judged_by_caller,
        )
    provisional = score_run(
        loaded,
        _as_run(outcome, cwd),
        which=options.split,
        created_at=utc_now(),
        cairn_version=__version__,
        corpus_hash=outcome.header.corpus_hash,  # this process read and hashed the corpus for the run
    )
    asked: dict[str, int] = {}
    for record in outcome.records:
        asked[record.case_id] = asked.get(record.case_id, 0) + 1
    extra = policy_of(baseline, source=str(baseline_path)).confirm_samples
    plan = confirmation_plan(baseline, provisional, extra=extra, asked=asked)
    if not plan and not outcome.failed:
        print("confirmation: no case's verdict differs from the baseline's; nothing to re-ask")
        return outcome
    before = outcome.calls_made()[0]
    confirmed = _evaluate(
        loaded,
        replace(options, artifact=outcome.path, confirm=plan),
        cwd=cwd,
        no_progress=no_progress,
        judged_by_caller=judged_by_caller,
    )
    made = confirmed.calls_made()[0]
    print(
        f"confirmation: re-asked {len(plan)} case(s) whose verdict differs from the baseline's "
        f"({sum(plan.values()) - sum(asked[c] for c in plan)} more samples, {made} provider call(s); "
        f"{before} in the first pass)"
        + (f", retried {len(outcome.failed)} errored case(s)" if outcome.failed else "")
    )
    if judged_by_caller is not None:
        return confirmed  # placeholder verdicts cannot tell a split case: the caller plans that round
    scored = score_run(
        loaded, _as_run(confirmed, cwd), which=options.split, created_at=utc_now(), cairn_version=__version__
    )
    flaky = flaky_plan(baseline, scored, plan, extra=extra)
    if not flaky:
        return confirmed
    again = _evaluate(
        loaded,
        replace(options, artifact=outcome.path, confirm={**plan, **flaky}),
        cwd=cwd,
        no_progress=no_progress,
    )
    print(
        f"confirmation: {len(flaky)} case(s) known flaky (their samples disagree): "
        f"{sum(flaky.values()) - sum(plan[c] for c in flaky)} more samples, "
        f"{again.calls_made()[0]} provider call(s)"
    )
    return again


def _control(
    loaded: LoadedConfig,
    options: RunOptions,
    outcome: RunOutcome,
    baseline_path: Path,
    args: argparse.Namespace,
    *,
    cwd: Path,
) -> Path | None:
    """Re-ask the base system (`--control BASE_CONFIG`) on every case whose verdict differs from the
    baseline's, `baseline_samples` times, and write the control report (report/control.py).

    The control gets a cache of its own, named after this run's artifact: answers cached from the
    baseline's run would be the old environment again, while a rerun of this very command resumes."""
    import argparse

    from cairn_action.gate import policy_of
    from cairn_action.gate.control import changed_cases, probe_cases, probe_size
    from cairn_action.golden.load import load_golden
    from cairn_action.report.control import control_report
    from cairn_action.report.io import read_report, report_text, write_text_atomic
    from cairn_action.report.pipeline import score_run
    from cairn_action.run.evaluation import RunOptions

    baseline = read_report(baseline_path)
    scored = score_run(
        loaded, _as_run(outcome, cwd), which=options.split, created_at=utc_now(), cairn_version=__version__
    )
    asked: dict[str, int] = {}
    for record in outcome.records:
        asked[record.case_id] = asked.get(record.case_id, 0) + 1
    changed = changed_cases(baseline, scored)
    if not changed:
        print("control: no case's verdict differs from the baseline's; the base system was not re-asked")
        return None
    golden = load_golden(loaded.golden_path)
    if args.control is None:  # --drift-probe: this system re-asked on unchanged cases, no base system
        return _drift_probe(loaded, baseline, scored, changed, outcome, args, cwd=cwd)
    base = _load_config_args(argparse.Namespace(**{**vars(args), "config": args.control}), cwd)
    cache = Path(base.cache_dir) / "control" / outcome.path.stem
    base = with_cache_dir(base, cache, cwd)
    # As many samples as the baseline has (its policy's baseline_samples): the control stands in for the
    # baseline on these cases, and the shift is measured like for like. The candidate's own extra samples
    # are its evidence, not the control's. The drift probe (unchanged cases, asked once) measures the
    # environment where this change cannot have moved it (gate/control.py).
    plan = {case: policy_of(baseline, source=str(baseline_path)).baseline_samples for case in changed}
    size = probe_size(len(changed), scored.notes.extra_samples.samples + sum(plan.values()))
    probe = probe_cases(baseline, exclude=set(changed), size=size, seed=outcome.path.stem)
    plan.update({case: 1 for case in probe})
    cases = tuple(c for c in golden.cases if c.id in plan)
    artifact = outcome.path.with_name(f"{outcome.path.stem}.control.jsonl")
    control_options = RunOptions(
        split="all", artifact=artifact, sampling="candidate", confirm=plan, cases=cases, stem="control"
    )
    ran = _evaluate(base, control_options, cwd=cwd, no_progress=args.no_progress)
    report = control_report(baseline, ran.records, golden, created_at=utc_now(), probe=set(probe))
    path = cwd / REPORTS_DIR / "control" / f"{loaded.config.name}-{outcome.path.stem}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, report_text(report), what="the control report")
    note = report.notes.control
    print(
        f"control: re-asked the base system on {len(changed)} changed case(s) ({note.samples if note else 0} "
        f"samples) and {len(probe)} unchanged one(s) of the drift probe, {ran.calls_made()[0]} provider "
        f"call(s): {shown(path, cwd)} (cairn gate --control)"
    )
    return path


def _drift_probe(
    loaded: LoadedConfig,
    baseline: Report,
    scored: Report,
    changed: Sequence[str],
    outcome: RunOutcome,
    args: argparse.Namespace,
    *,
    cwd: Path,
) -> Path:
    """`--drift-probe`: re-ask a seeded sample of unchanged cases of this system once each, with a cache of
    its own, and write a probe-kind control report (report/control.py's probe_report)."""
    from cairn_action.gate.control import probe_cases, probe_size
    from cairn_action.golden.load import load_golden
    from cairn_action.report.control import probe_report
    from cairn_action.report.io import dumps, write_text_atomic
    from cairn_action.run.evaluation import RunOptions

    golden = load_golden(loaded.golden_path)
    size = probe_size(len(changed), scored.notes.extra_samples.samples)
    probe = probe_cases(baseline, exclude=set(changed), size=size, seed=outcome.path.stem)
    records: Sequence[CaseRecord] = ()
    calls = 0
    if probe:
        here = with_cache_dir(loaded, Path(loaded.cache_dir) / "probe" / outcome.path.stem, cwd)
        options = RunOptions(
            split="all",
            artifact=outcome.path.with_name(f"{outcome.path.stem}.probe.jsonl"),
            sampling="candidate",
            confirm={case: 1 for case in probe},
            cases=tuple(c for c in golden.cases if c.id in probe),
            stem="control",
        )
        ran = _evaluate(here, options, cwd=cwd, no_progress=args.no_progress)
        records, calls = ran.records, ran.calls_made()[0]
    why = "--drift-probe: no base config was given"
    report = probe_report(baseline, records, golden, why=why, created_at=utc_now())
    path = cwd / REPORTS_DIR / "control" / f"{loaded.config.name}-{outcome.path.stem}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, dumps(report), what="the control report")
    print(
        f"drift probe: re-asked {len(probe)} unchanged case(s) of this system once each ({calls} provider "
        f"call(s)): {shown(path, cwd)} (cairn gate --control)"
    )
    return path


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
    loaded = _load_config_args(args, cwd)
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
    outcome = _evaluate(loaded, options, cwd=cwd, no_progress=args.no_progress, judged_by_caller=caller)
    if args.baseline is not None:
        outcome = _confirm(
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
        control_path = _control(loaded, options, outcome, Path(args.baseline), args, cwd=cwd)
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
    run = _as_run(outcome, cwd)
    # The run read and hashed the config's corpus in this process (a resumed artifact's header must
    # match it): the scoring need not read it again.
    written = _score_and_report(
        loaded, run, which=split, reports_dir=cwd / REPORTS_DIR, cwd=cwd, corpus_hash=run.header.corpus_hash
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
) -> WrittenReport:
    """Score a run, write the report (kept and latest), print the summary."""
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
    config = f" --config {_relative_to_cwd(source)}" if source and source.name != "cairn.toml" else ""
    # Say where the calibration was looked for: it travels with the config file (a variant copied
    # without its .calibration.json, or run from a package that does not carry it, finds none).
    return [
        f"next: `cairn calibrate{config}` fits the abstention threshold on the calibration slice (there is "
        f"none at {_relative_to_cwd(loaded.calibration_out_path)}: commit it there); then commit {latest}: "
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

    from cairn_action.golden.load import load_golden
    from cairn_action.index.corpus import load_corpus
    from cairn_action.providers.services import ProviderServices
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.evaluation import create_judge
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
    loaded = _load_config_args(args, cwd)
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
    loaded = _load_config_args(args, cwd)
    check_output_file(loaded.calibration_path, what="the calibration file")  # before the paid run
    if args.runs:
        run = _read_runs(args.runs)
        if run.header.sealed:  # calibration reads the key here, never in the run
            run = complete_sealed(loaded, run)
    else:
        from cairn_action.run.evaluation import RunOptions

        outcome = _evaluate(loaded, RunOptions(split="calibration"), cwd=cwd, no_progress=args.no_progress)
        for line in outcome.summary():
            print(line, file=sys.stderr)
        run = _as_run(outcome, cwd)
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
