"""The `cairn` command line: argparse, one thin handler per command, errors → message, hint, exit code.

This is the composition root for the CLI: handlers build the collaborators (paths, config, providers,
clock) and pass them down; nothing below reads argv or the environment.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action import __version__
from cairn_action.errors import CairnError, ExitCode, InfrastructureError

if TYPE_CHECKING:
    from cairn_action.config import LoadedConfig
    from cairn_action.gate.models import GateResult, Override
    from cairn_action.golden.split import SplitName
    from cairn_action.report.models import Report
    from cairn_action.report.pipeline import LoadedRun

Handler = Callable[[argparse.Namespace], int]


def _cmd_corpus_generate(args: argparse.Namespace) -> int:
    from cairn_action.golden.sample.generate import generate_corpus

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

    With the embedded default config (no cairn.toml), the corpus is the generated sample in
    data/sample: it is written on first use. A corpus named by the user is never generated.
    """
    if args.golden is not None and args.corpus is not None and args.config is None:
        return args.golden, args.corpus  # nothing to take from a config
    from cairn_action.config import load_config

    loaded = load_config(args.config)
    golden = args.golden or loaded.golden_path
    corpus = args.corpus or loaded.corpus_dir
    if args.corpus is None and loaded.embedded:
        from cairn_action.golden.sample.generate import ensure_sample_corpus

        done = ensure_sample_corpus(_relative_to_cwd(corpus))
        if done is not None:
            print(done, file=sys.stderr)
    return golden, corpus


def _cmd_golden_check(args: argparse.Namespace) -> int:
    from cairn_action.golden.check import run_golden_check

    golden, corpus = _golden_and_corpus(args)
    return run_golden_check(golden, corpus, sys.stdout)


def _cmd_eval(args: argparse.Namespace) -> int:
    import os

    from cairn_action.config import load_config
    from cairn_action.run.evaluation import RunOptions, run_evaluation
    from cairn_action.run.progress import make_progress
    from cairn_action.run.shard import parse_shard

    split = args.split or ("all" if args.run_only else "eval")
    options = RunOptions(
        split=split,
        shard=parse_shard(args.shard) if args.shard else None,
        artifact=args.artifact,
    )
    cwd = Path.cwd()
    loaded = load_config(args.config, cwd=cwd).with_overrides(corpus=args.corpus, golden=args.golden, cwd=cwd)
    progress = make_progress(sys.stderr, enabled=not args.no_progress, is_tty=sys.stderr.isatty())
    outcome = run_evaluation(loaded, options, cwd=cwd, log=sys.stderr, progress=progress, env=os.environ)
    for line in outcome.summary():
        print(line)
    shown = outcome.path.relative_to(cwd) if outcome.path.is_relative_to(cwd) else outcome.path
    print(f"run artifact: {shown}")
    if outcome.records and len(outcome.failed) == len(outcome.records):
        raise InfrastructureError(
            f"every case failed ({len(outcome.records)} of {len(outcome.records)}); the artifact lists why",
            "check the provider settings and that it is reachable, then rerun to retry",
        )
    if args.run_only:
        return ExitCode.PASS
    if options.shard is not None:
        print(
            f"note: this is shard {options.shard}; once every shard is done, score them together: "
            "`cairn score SHARD.jsonl ...`"
        )
        return ExitCode.PASS
    from cairn_action.report.pipeline import LoadedRun

    run = LoadedRun(
        header=outcome.header, records=outcome.records, where=str(shown), sources=(str(outcome.path),)
    )
    return _score_and_report(loaded, run, which=split, reports_dir=cwd / REPORTS_DIR, cwd=cwd)


# --- scoring: eval's second half, score, calibrate, bench ----------------------------------------------

REPORTS_DIR = Path("reports")


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _shown(path: Path, cwd: Path) -> Path:
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


def _score_and_report(
    loaded: LoadedConfig, run: LoadedRun, *, which: SplitName, reports_dir: Path, cwd: Path
) -> int:
    """Score a run, write the report (kept and latest), print the summary."""
    from cairn_action.report.pipeline import report_from_run
    from cairn_action.report.summary import summary_lines

    for note in run.notes:
        print(f"note: {note}", file=sys.stderr)
    written = report_from_run(
        loaded, run, which=which, reports_dir=reports_dir, created_at=_utc_now(), cairn_version=__version__
    )
    for line in summary_lines(written.report):
        print(line)
    print(f"report: {_shown(written.kept, cwd)} (also {_shown(written.latest, cwd)})")
    return ExitCode.PASS


def _load_config_args(args: argparse.Namespace, cwd: Path) -> LoadedConfig:
    from cairn_action.config import load_config

    return load_config(args.config, cwd=cwd).with_overrides(corpus=args.corpus, golden=args.golden, cwd=cwd)


def _read_runs(paths: Sequence[Path]) -> LoadedRun:
    from cairn_action.report.pipeline import combine_artifacts
    from cairn_action.run.artifact import read_artifact

    return combine_artifacts([read_artifact(Path(p)) for p in paths])


def _cmd_score(args: argparse.Namespace) -> int:
    cwd = Path.cwd()
    loaded = _load_config_args(args, cwd)
    run = _read_runs(args.artifacts)
    return _score_and_report(loaded, run, which=args.split, reports_dir=cwd / args.reports, cwd=cwd)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from cairn_action.report.pipeline import LoadedRun, calibration_from_run, calibration_lines

    cwd = Path.cwd()
    loaded = _load_config_args(args, cwd)
    if args.runs:
        run = _read_runs(args.runs)
    else:
        import os

        from cairn_action.run.evaluation import RunOptions, run_evaluation
        from cairn_action.run.progress import make_progress

        progress = make_progress(sys.stderr, enabled=not args.no_progress, is_tty=sys.stderr.isatty())
        outcome = run_evaluation(
            loaded,
            RunOptions(split="calibration"),
            cwd=cwd,
            log=sys.stderr,
            progress=progress,
            env=os.environ,
        )
        for line in outcome.summary():
            print(line, file=sys.stderr)
        run = LoadedRun(
            header=outcome.header,
            records=outcome.records,
            where=str(_shown(outcome.path, cwd)),
            sources=(str(outcome.path),),
        )
    calibration, path = calibration_from_run(loaded, run, created_at=_utc_now(), cairn_version=__version__)
    for line in calibration_lines(calibration):
        print(line)
    print(f"calibration: {_shown(path, cwd)} (commit it beside the config; `cairn eval` applies it)")
    return ExitCode.PASS


def _cmd_bench(args: argparse.Namespace) -> int:
    from cairn_action.report.io import LATEST_DIR, read_latest_reports, write_text_atomic
    from cairn_action.report.leaderboard import group_key, render_leaderboard

    cwd = Path.cwd()
    reports_dir = cwd / args.reports
    found = read_latest_reports(reports_dir)
    if not found:
        raise CairnError(
            f"{_shown(reports_dir / LATEST_DIR, cwd)}: no reports to rank",
            "run `cairn eval` for each config first (it writes reports/latest/<config>.json)",
        )
    reports = [r for _, r in found]
    out = cwd / args.out if args.out else reports_dir / "leaderboard.md"
    write_text_atomic(out, render_leaderboard(reports))
    tables = len({group_key(r) for r in reports})
    print(f"leaderboard: {len(reports)} config(s) in {tables} table(s): {_shown(out, cwd)}")
    return ExitCode.PASS


def _cmd_merge(args: argparse.Namespace) -> int:
    from cairn_action.run.artifact import read_artifact, write_artifact
    from cairn_action.run.shard import merge

    merged = merge([read_artifact(Path(p)) for p in args.artifacts])
    write_artifact(Path(args.out), merged.header, merged.records)
    for note in merged.notes:
        print(f"note: {note}", file=sys.stderr)
    print(f"merged {len(args.artifacts)} shards, {len(merged.records)} cases, into {args.out}")
    return ExitCode.PASS


def _gate_override(args: argparse.Namespace) -> Override | None:
    """The override the Action found (label, who, why), or None; the clock is read here, not in the policy."""
    from datetime import UTC, datetime

    from cairn_action.gate.models import Override

    given = (args.override_label, args.override_actor, args.override_reason)
    if not any(given):
        return None
    if not all(given):
        raise CairnError(
            "--override-label, --override-actor and --override-reason go together",
            "pass all three (the Action supplies them from the label event), or none",
        )
    at = args.override_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
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


def _print_decision(result: GateResult) -> None:
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


def _cmd_gate(args: argparse.Namespace) -> int:
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
    _print_decision(result)
    return result.decision.exit_code


def _demo_evaluator(cwd: Path, out_dir: Path) -> Callable[[LoadedConfig], Report]:
    """`cairn eval --split eval` for one config, offline: the stub answerer, no API key, a fresh run
    artifact and the reports kept under `out_dir`, never in the repository's reports/."""

    def evaluate(loaded: LoadedConfig) -> Report:
        from cairn_action.report.pipeline import LoadedRun, report_from_run
        from cairn_action.run.evaluation import RunOptions, run_evaluation
        from cairn_action.run.progress import make_progress

        artifact = out_dir / "runs" / f"{loaded.config.name}.jsonl"
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
            created_at=_utc_now(),
            cairn_version=__version__,
        )
        return written.report

    return evaluate


def _cmd_demo(args: argparse.Namespace) -> int:
    from cairn_action.config import embedded_default
    from cairn_action.demo import run_demo

    cwd = Path.cwd()
    out_dir = args.out if args.out.is_absolute() else cwd / args.out
    evaluate = _demo_evaluator(cwd, out_dir)
    outcome = run_demo(evaluate, base=embedded_default(cwd), out_dir=out_dir, log=sys.stderr)
    _print_decision(outcome.result)
    if outcome.result.decision.status == "regression":
        print("(`cairn gate` would exit 1 here and fail the pull request's check)")
    print(f"the comment a pull request would show: {_shown(outcome.comment_path, cwd)}")
    return ExitCode.PASS


def _cmd_action(args: argparse.Namespace) -> int:
    """The GitHub Action's entrypoint: everything comes from the runner's environment, not argv."""
    from cairn_action.action import main as action_main

    return action_main()


def _cmd_release_stamp(args: argparse.Namespace) -> int:
    """`mode: release` for other CI systems: the same run, with a token and a repository from the caller."""
    import os
    import re
    from datetime import UTC, datetime

    from cairn_action.gh.pygithub_gateway import connect
    from cairn_action.gh.release import PyGithubReleases
    from cairn_action.release import PlainLog, ReleaseRequest, run_release

    repository = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repository):
        raise CairnError("no repository to stamp a release in", "pass --repo OWNER/NAME")
    if args.tag is None and args.release_id is None:
        raise CairnError("which release? neither --tag nor --release-id was given", "pass --tag v1.2.0")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,39}", args.override_prefix):
        raise CairnError(
            f"--override-prefix '{args.override_prefix}' is not usable",
            "use letters, digits, '.', '_', '/' or '-' (at most 40 characters)",
        )
    token = os.environ.get(args.token_env, "")
    if not token:
        raise CairnError(
            f"${args.token_env} is not set",
            "export a token that may edit releases "
            "(`contents: write`), or name its variable with --token-env",
        )
    api_url = (args.api_url or os.environ.get("GITHUB_API_URL") or "https://api.github.com").rstrip("/")
    server_url = (args.server_url or os.environ.get("GITHUB_SERVER_URL") or "https://github.com").rstrip("/")
    request = ReleaseRequest(
        repository=repository,
        server_url=server_url,
        release_id=args.release_id,
        tag=args.tag,
        actor=args.actor or os.environ.get("GITHUB_ACTOR", ""),
        reason=args.reason,
        via="--reason" if args.reason else "release notes",
        config_paths=tuple(args.config or ["cairn.toml"]),
        config_is_default=not args.config,
        reports_dir=args.reports_dir,
        default_branch=args.branch,
        override_prefix=args.override_prefix,
    )
    gateway = PyGithubReleases(connect(token, api_url), repository)
    return run_release(
        request,
        gateway=gateway,
        workflow=PlainLog(sys.stdout, summary=args.summary),
        now=lambda: datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    )


def _not_built(name: str) -> Handler:
    def handler(args: argparse.Namespace) -> int:
        raise CairnError(f"`cairn {name}` is not available in this build yet", "see the README for what is")

    return handler


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        type=Path,
        help="config TOML (default: cairn.toml if present, else the "
        "embedded default: the sample corpus and the shipped golden set)",
    )
    p.add_argument("--corpus", type=Path, help="corpus folder; overrides the config's corpus.path")
    p.add_argument("--golden", type=Path, help="golden.jsonl or its folder; overrides golden.path")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn",
        description="Evaluate a retrieval-augmented QA system over a frozen golden set, compare with the "
        "baseline item by item, and gate the change.",
    )
    parser.add_argument("--version", action="version", version=f"cairn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    corpus = sub.add_parser("corpus", help="the sample corpus").add_subparsers(
        dest="corpus_command", metavar="SUBCOMMAND", required=True
    )
    gen = corpus.add_parser(
        "generate",
        help="write the Halcyon Provisions sample corpus",
        description="Write the Halcyon Provisions sample corpus, deterministic from the "
        "seed; seed 7 is checked against a pinned digest.",
    )
    gen.add_argument("--out", required=True, help="folder to write (e.g. data/sample)")
    gen.add_argument("--seed", type=int, default=7, help="seed (default 7, the one the golden set labels)")
    gen.set_defaults(handler=_cmd_corpus_generate)

    golden = sub.add_parser("golden", help="the golden set").add_subparsers(
        dest="golden_command", metavar="SUBCOMMAND", required=True
    )
    check = golden.add_parser(
        "check",
        help="validate a golden set against its corpus",
        description="Validate a golden set against its corpus: every problem at once, "
        "as file:line: message; exit 2 on any error.",
    )
    _add_config_args(check)
    check.set_defaults(handler=_cmd_golden_check)

    ev = sub.add_parser(
        "eval",
        help="run the golden set through the system, score it, and write the report",
        description="Run every case of the split (retrieve, answer, judge, verify citations) into a run "
        "artifact, score it with the committed calibration, and write reports/<config>-<UTC>.json and "
        "reports/latest/<config>.json. Provider results are cached; an interrupted run resumes.",
    )
    _add_config_args(ev)
    ev.add_argument(
        "--split",
        choices=("eval", "calibration", "all"),
        default=None,
        help="which cases to run and score (default: eval; with --run-only, all, so that one artifact serves "
        "`cairn calibrate --run` and `cairn score`). The split is seeded by calibration.seed; all is never "
        "a promotion decision",
    )
    ev.add_argument("--run-only", action="store_true", help="stop after writing the run artifact")
    ev.add_argument(
        "--artifact",
        type=Path,
        help="run artifact to write, or to resume if it exists (default: the newest unfinished run of "
        "this config in reports/runs/, else reports/runs/<config>-<UTC>.jsonl)",
    )
    ev.add_argument("--shard", metavar="I/N", help="run only shard I of N (a stable slice by case id)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    ev.set_defaults(handler=_cmd_eval)

    mg = sub.add_parser(
        "merge",
        help="merge the artifacts of a sharded run into one",
        description="Merge the run artifacts of every shard of one run into one artifact, in golden file "
        "order. Refuses shards of different runs, and missing or repeated shards or cases.",
    )
    mg.add_argument("artifacts", nargs="+", metavar="ARTIFACT", help="the shards' run artifacts")
    mg.add_argument("--out", required=True, help="the merged run artifact to write")
    mg.set_defaults(handler=_cmd_merge)

    gate = sub.add_parser(
        "gate",
        help="compare a report with the baseline item by item and decide",
        description="Compare a candidate report with the baseline report case by case, under the "
        "baseline's [gate] policy, and decide: exit 0 pass (or overridden), 1 regression, 2 refused "
        "(the reports measured different corpora, golden sets or splits).",
    )
    gate.add_argument(
        "baseline", type=Path, help="the baseline report (reports/latest/<config>.json from the base branch)"
    )
    gate.add_argument("candidate", type=Path, help="the report of this change")
    gate.add_argument("--markdown", type=Path, help="write the pull-request comment (and job summary) here")
    gate.add_argument("--json", type=Path, help="write the decision and the comparison here")
    gate.add_argument(
        "--history",
        type=Path,
        default=Path("reports"),
        help="folder of committed reports for the trend chart (default: reports)",
    )
    gate.add_argument("--override-label", help="override: the label applied (must be the baseline's)")
    gate.add_argument("--override-actor", help="override: who applied it")
    gate.add_argument("--override-reason", help="override: why the regression is accepted")
    gate.add_argument("--override-pr", type=int, help="override: the pull request number")
    gate.add_argument("--override-sha", help="override: the head commit it applies to")
    gate.add_argument("--override-at", help="override: when it was applied (ISO 8601; default now)")
    gate.set_defaults(handler=_cmd_gate)

    sc = sub.add_parser(
        "score",
        help="score existing run artifacts into a report, with no provider call",
        description="Score run artifacts (one run, or every shard of one run) over a split with the "
        "committed calibration, and write the report files. Makes no provider call.",
    )
    _add_config_args(sc)
    sc.add_argument("artifacts", nargs="+", type=Path, metavar="RUN.jsonl", help="the run artifact(s)")
    sc.add_argument(
        "--split",
        choices=("eval", "calibration", "all"),
        default="eval",
        help="which cases to score (default: eval)",
    )
    sc.add_argument("--reports", type=Path, default=REPORTS_DIR, help="where to write (default: reports)")
    sc.set_defaults(handler=_cmd_score)

    cal = sub.add_parser(
        "calibrate",
        help="fit the abstention threshold on the calibration slice",
        description="Run the calibration slice (or read --run artifacts), fit the threshold by "
        "fixed-sequence testing with exact binomial p-values for the config's alpha and delta, and write "
        "the calibration file beside the config. Says what would make an unachievable target achievable.",
    )
    _add_config_args(cal)
    cal.add_argument(
        "--run",
        dest="runs",
        nargs="+",
        type=Path,
        metavar="RUN.jsonl",
        help="fit on these run artifacts (split calibration or all) instead of running",
    )
    cal.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")
    cal.set_defaults(handler=_cmd_calibrate)

    bench = sub.add_parser(
        "bench",
        help="write the leaderboard from reports/latest/*.json",
        description="Rank the latest report of every config in reports/leaderboard.md, by the judge when "
        "every report has one and token F1 otherwise; reports of different corpora or golden sets go in "
        "separate tables.",
    )
    bench.add_argument("--reports", type=Path, default=REPORTS_DIR, help="reports folder (default: reports)")
    bench.add_argument("--out", type=Path, help="leaderboard file (default: <reports>/leaderboard.md)")
    bench.set_defaults(handler=_cmd_bench)

    demo = sub.add_parser(
        "demo",
        help="see the pull-request comment Cairn writes, offline",
        description="Evaluate the default config and a deliberately worse variant (top_k 1, 200-character "
        "chunks) on the sample corpus, gate the second against the first, and write the comment a pull "
        "request would show. Offline: no token, no network.",
    )
    demo.add_argument(
        "--out",
        type=Path,
        default=Path(".cairn") / "demo",
        help="folder for the two reports, the comment and the decision (default: .cairn/demo)",
    )
    demo.set_defaults(handler=_cmd_demo)

    rel = sub.add_parser(
        "release-stamp",
        help="stamp a release with its accuracy, or refuse it (back to draft)",
        description="The release gate outside GitHub Actions. Reads reports/latest/<config>.json at the "
        "release's tag, compares each critical tag's recall with the last stamped release, and writes the "
        "accuracy stamp into the release notes. A fall (or a tag never evaluated) puts the release back to "
        "draft and exits 1, unless someone with write access or above gives a reason (--reason, or a "
        "`cairn-override: <reason>` line in the notes). The token comes from $GITHUB_TOKEN.",
    )
    rel.add_argument("--repo", help="OWNER/NAME (default: $GITHUB_REPOSITORY)")
    rel.add_argument("--tag", help="the release's tag (drafts are found too)")
    rel.add_argument("--release-id", type=int, help="the release's id, instead of --tag")
    rel.add_argument(
        "--actor",
        help="who published the release: their role decides whether a reason counts (default: $GITHUB_ACTOR)",
    )
    rel.add_argument("--reason", help="publish over a regression, for this reason (kept in the release)")
    rel.add_argument(
        "--config",
        action="append",
        help="a config file, relative to the repository root; "
        "repeat for several (default: cairn.toml, else the embedded default)",
    )
    rel.add_argument(
        "--reports-dir",
        default="reports",
        help="the reports folder, relative to the repository root (default: reports)",
    )
    rel.add_argument(
        "--branch",
        help="where merged reports and their overrides are (default: the repository's default branch)",
    )
    rel.add_argument(
        "--override-prefix",
        default="cairn-override",
        help="the notes line that carries a reason: '<prefix>: <reason>' (default: cairn-override)",
    )
    rel.add_argument("--api-url", help="GitHub API URL (default: $GITHUB_API_URL or https://api.github.com)")
    rel.add_argument(
        "--server-url", help="GitHub URL for links (default: $GITHUB_SERVER_URL or https://github.com)"
    )
    rel.add_argument(
        "--token-env",
        default="GITHUB_TOKEN",
        help="the environment variable holding the token (default: GITHUB_TOKEN)",
    )
    rel.add_argument("--summary", type=Path, help="also write the stamp section's markdown here")
    rel.set_defaults(handler=_cmd_release_stamp)

    action = sub.add_parser(
        "action",
        help="run as the GitHub Action (inside a workflow; reads INPUT_* and GITHUB_*)",
        description="The Docker action's entrypoint: reads the inputs (INPUT_<NAME>) and the runner's "
        "variables, gates the pull request, refreshes the baseline or posts a fork's comment, and exits "
        "0 pass, 1 gate failed, 2 usage or refused, 3 GitHub unreachable.",
    )
    action.set_defaults(handler=_cmd_action)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except CairnError as exc:
        print(exc.render(), file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
