"""`cairn eval`'s second looks, after the first run: confirmation (re-asking the cases whose verdict differs
from the baseline's, as many times as the *baseline's* policy says), the contemporaneous control (the base
system re-asked on those cases) and the drift probe (this system re-asked on unchanged ones).

Each runs the evaluation again through `evaluate`, with a cache of its own where a stale answer would be
the old environment again.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action import __version__
from cairn_action.commands.common import REPORTS_DIR, load_config_args, shown, utc_now, with_cache_dir

if TYPE_CHECKING:
    import argparse

    from cairn_action.config import LoadedConfig
    from cairn_action.report.models import Report
    from cairn_action.run.evaluation import RunOptions, RunOutcome
    from cairn_action.run.models import CaseRecord, LoadedRun


def run_cases(
    loaded: LoadedConfig,
    options: RunOptions,
    *,
    cwd: Path,
    no_progress: bool,
    judged_by_caller: str | None = None,
) -> RunOutcome:
    """Run the config's cases (the expensive half), with progress on stderr unless --no-progress."""
    import os

    from cairn_action.commands.compose import run_evaluation
    from cairn_action.run.judge import PlaceholderJudge
    from cairn_action.run.progress import make_progress

    progress = make_progress(sys.stderr, enabled=not no_progress, is_tty=sys.stderr.isatty())
    judge = None
    if judged_by_caller is not None:
        judge = PlaceholderJudge(deterministic=judged_by_caller == "deterministic")
    return run_evaluation(
        loaded, options, cwd=cwd, log=sys.stderr, progress=progress, env=os.environ, judge=judge
    )


def as_run(outcome: RunOutcome, cwd: Path) -> LoadedRun:
    from cairn_action.run.models import LoadedRun

    return LoadedRun(
        header=outcome.header,
        records=outcome.records,
        where=str(shown(outcome.path, cwd)),
        sources=(str(outcome.path),),
    )


def confirm_blind(
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
    confirmed = run_cases(
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


def confirm_changed(
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
        return confirm_blind(
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
        as_run(outcome, cwd),
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
    confirmed = run_cases(
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
        loaded, as_run(confirmed, cwd), which=options.split, created_at=utc_now(), cairn_version=__version__
    )
    flaky = flaky_plan(baseline, scored, plan, extra=extra)
    if not flaky:
        return confirmed
    again = run_cases(
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


def run_control(
    loaded: LoadedConfig,
    options: RunOptions,
    outcome: RunOutcome,
    baseline_path: Path,
    args: argparse.Namespace,
    *,
    cwd: Path,
) -> Path | None:
    """Re-ask the base system (`--control BASE_CONFIG`) on every case whose verdict differs from the
    baseline's, `baseline_samples` times (at most 3), and write the control report (report/control.py).

    The control gets a cache of its own, named after this run's artifact: answers cached from the
    baseline's run would be the old environment again, while a rerun of this very command resumes."""
    import argparse

    from cairn_action.gate import policy_of
    from cairn_action.gate.control import changed_cases, control_samples, probe_cases, probe_size
    from cairn_action.golden.load import load_golden
    from cairn_action.report.control import control_report
    from cairn_action.report.io import read_report, report_text, write_text_atomic
    from cairn_action.report.pipeline import score_run
    from cairn_action.run.evaluation import RunOptions

    baseline = read_report(baseline_path)
    scored = score_run(
        loaded, as_run(outcome, cwd), which=options.split, created_at=utc_now(), cairn_version=__version__
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
    base = load_config_args(argparse.Namespace(**{**vars(args), "config": args.control}), cwd)
    cache = Path(base.cache_dir) / "control" / outcome.path.stem
    base = with_cache_dir(base, cache, cwd)
    # As many samples as the baseline has (its policy's baseline_samples), at most CONTROL_SAMPLES: the
    # control stands in for the baseline on these cases; a baseline of more samples (sharper for the shift
    # test) does not cost the pull request more asks. The candidate's own extra samples are its evidence,
    # not the control's. The drift probe (unchanged cases, asked once) measures the environment where this
    # change cannot have moved it (gate/control.py).
    spent = scored.notes.extra_samples.samples
    wanted = policy_of(baseline, source=str(baseline_path)).baseline_samples
    samples = control_samples(wanted, changed=len(changed), spent=spent)
    plan = {case: samples for case in changed}
    size = probe_size(len(changed), spent + sum(plan.values()))
    probe = probe_cases(baseline, exclude=set(changed), size=size, seed=outcome.path.stem)
    plan.update({case: 1 for case in probe})
    cases = tuple(c for c in golden.cases if c.id in plan)
    artifact = outcome.path.with_name(f"{outcome.path.stem}.control.jsonl")
    control_options = RunOptions(
        split="all", artifact=artifact, sampling="candidate", confirm=plan, cases=cases, stem="control"
    )
    ran = run_cases(base, control_options, cwd=cwd, no_progress=args.no_progress)
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
        ran = run_cases(here, options, cwd=cwd, no_progress=args.no_progress)
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
