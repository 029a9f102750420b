"""The parsers of the commands that measure: eval, merge, score, calibrate, bench and attack."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn_action.cli.shared_args import add_config_args, add_no_progress, add_reports, add_split, lazy
from cairn_action.commands import evaluate


def add_eval(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    ev = sub.add_parser(
        "eval",
        help="run the golden set through the system, score it, and write the report",
        description="Run every case of the split (retrieve, answer, judge, verify citations) into a run "
        "artifact, score it with the committed calibration, and write reports/<config>-<UTC>.json and "
        "reports/latest/<config>.json. Provider results are cached; an interrupted run resumes.",
    )
    add_config_args(ev)
    add_split(
        ev,
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
    ev.add_argument(
        "--baseline",
        type=Path,
        metavar="REPORT",
        help="the baseline report this run will be gated against: after the first pass, re-ask every case "
        "whose verdict differs from the baseline's ([gate] confirm_samples of the baseline) and retry the "
        "errored ones once. Without it, every case is asked [gate] baseline_samples times",
    )
    ev.add_argument(
        "--control",
        type=Path,
        metavar="BASE_CONFIG",
        help="with --baseline: also re-ask the base system (this config, e.g. the base branch's) on every "
        "case whose verdict differs from the baseline's ([gate] baseline_samples times, at most 3) and "
        "write a control report under reports/control/ for `cairn gate --control`",
    )
    ev.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="also write the outcome as JSON (report paths, counts, every metric) to FILE; `-` prints it "
        "on stdout and everything else on stderr",
    )
    ev.add_argument(
        "--cache-dir",
        type=Path,
        help="response cache folder; overrides the config's run.cache_dir (the Action keeps it outside "
        "the checkout)",
    )
    ev.add_argument(
        "--judged-by-caller",
        choices=("deterministic", "sampled"),
        help="record the answers and let the caller judge them (the GitHub Action judges in its trusted "
        "process): the lexical judge only chooses what to re-ask, and `sampled` says the caller's judge is "
        "not deterministic, so a deterministic answerer is still asked as often as the gate needs",
    )
    ev.add_argument(
        "--confirm-plan",
        type=Path,
        metavar="FILE",
        help="a JSON object {case id: total asks}: add samples to the run artifact until each listed case "
        "has been asked that often (the Action's trusted process chooses them after judging)",
    )
    ev.add_argument(
        "--drift-probe",
        action="store_true",
        help="with --baseline, when the base system cannot be run for --control: re-ask a seeded sample of "
        "unchanged cases of this system and write a control report; if they moved as a block, `cairn gate "
        "--control` says the environment shifted and the verdict is incomplete (exit 3)",
    )
    ev.add_argument(
        "--ask-plan",
        type=Path,
        metavar="FILE",
        help="with --run-only: ask only the cases of this JSON object {case id: asks}, that often each, "
        "whatever the split (the Action's contemporaneous control asks the base system this way)",
    )
    add_no_progress(ev)
    ev.set_defaults(handler=evaluate.cmd_eval)


def add_merge(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    mg = sub.add_parser(
        "merge",
        help="merge the artifacts of a sharded run into one",
        description="Merge the run artifacts of every shard of one run into one artifact, in golden file "
        "order. Refuses shards of different runs, and missing or repeated shards or cases.",
    )
    mg.add_argument("artifacts", nargs="+", metavar="ARTIFACT", help="the shards' run artifacts")
    mg.add_argument("--out", required=True, help="the merged run artifact to write")
    mg.set_defaults(handler=evaluate.cmd_merge)


def add_score(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sc = sub.add_parser(
        "score",
        help="score existing run artifacts into a report, with no provider call",
        description="Score run artifacts (one run, or every shard of one run) over a split with the "
        "committed calibration, and write the report files. Makes no provider call.",
    )
    add_config_args(sc)
    sc.add_argument("artifacts", nargs="+", type=Path, metavar="RUN.jsonl", help="the run artifact(s)")
    add_split(sc, default="eval", help="which cases to score (default: eval)")
    add_reports(sc, help="where to write (default: reports)")
    sc.set_defaults(handler=evaluate.cmd_score)


def add_calibrate(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    cal = sub.add_parser(
        "calibrate",
        help="fit the abstention threshold on the calibration slice",
        description="Run the calibration slice (or read --run artifacts), fit the threshold by "
        "fixed-sequence testing with exact binomial p-values for the config's alpha and delta, and write "
        "the calibration file beside the config. Says what would make an unachievable target achievable.",
    )
    add_config_args(cal)
    cal.add_argument(
        "--run",
        dest="runs",
        nargs="+",
        type=Path,
        metavar="RUN.jsonl",
        help="fit on these run artifacts (split calibration or all) instead of running",
    )
    cal.add_argument(
        "--procedure",
        choices=("fixed-sequence", "split"),
        default="fixed-sequence",
        help="fixed-sequence (default) or split: fixed sequence and Bonferroni at delta/2 each, the "
        "threshold that answers more (rescues over-confident top scores on large slices, costs a few "
        "points elsewhere and needs more cases: benchmarks/README.md)",
    )
    add_no_progress(cal)
    cal.set_defaults(handler=evaluate.cmd_calibrate)


def add_bench(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    bench = sub.add_parser(
        "bench",
        help="write the leaderboard from reports/latest/*.json",
        description="Rank the latest report of every config in reports/leaderboard.md, by the judge when "
        "every report has one and token F1 otherwise; reports of different corpora or golden sets go in "
        "separate tables.",
    )
    add_reports(bench, help="reports folder (default: reports)")
    bench.add_argument("--out", type=Path, help="leaderboard file (default: <reports>/leaderboard.md)")
    bench.set_defaults(handler=evaluate.cmd_bench)


def add_attack(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    att = sub.add_parser(
        "attack",
        help="run the adversarial probes and write reports/attack-<config>.json and .md",
        description="Generate the attack suite from the golden set (seeded by [attack] seed), run it "
        "through the machinery of `cairn eval` (cache, resume, concurrency, budget, targets), check each "
        "probe, and write reports/attack-<config>.json and .md. Exit 0 when the [attack] policy holds, 1 "
        "when not. Compare two attack reports with `cairn gate`.",
    )
    add_config_args(att)
    att.add_argument(
        "--families",
        nargs="+",
        metavar="FAMILY",
        help="only these families (space or comma separated; default: [attack] families, all seven)",
    )
    add_reports(att, help="where to write the attack report (default: reports)")
    att.add_argument("--run-only", action="store_true", help="stop after writing the run artifact")
    att.add_argument(
        "--artifact",
        type=Path,
        help="run artifact to write, or to resume if it exists (default: the newest unfinished attack run "
        "of this config and suite in reports/runs/, else reports/runs/attack-<config>-<suite>-<UTC>.jsonl)",
    )
    att.add_argument(
        "--cache-dir", type=Path, help="response cache folder; overrides the config's run.cache_dir"
    )
    add_no_progress(att)
    att.set_defaults(handler=lazy("attack", "cmd_attack"))
