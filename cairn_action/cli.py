"""The `cairn` command line: argparse, one handler per command, errors → message, hint, exit code.

The handlers live in `commands/`, each the composition root of its command (paths, config, providers,
clock); this module builds the parser and maps a `CairnError` to its message, hint and exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from cairn_action import __version__
from cairn_action.commands import evaluate
from cairn_action.errors import CairnError, ExitCode, internal_error_message


def _lazy(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """A command handler imported when its command runs: `cairn eval` should not pay for scipy.stats and
    the gate, the attack suite or the GitHub client (together more than half a warm eval's time)."""

    def handler(args: argparse.Namespace) -> int:
        command = importlib.import_module(f"cairn_action.commands.{module}")
        return getattr(command, name)(args)

    handler.__name__ = name
    return handler


# The argument groups several commands share: one definition each, so their flags and help agree.


def _add_config_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config",
        type=Path,
        help="config TOML (default: cairn.toml if present, else the "
        "embedded default: the sample corpus and the shipped golden set)",
    )
    p.add_argument("--corpus", type=Path, help="corpus folder; overrides the config's corpus.path")
    p.add_argument("--golden", type=Path, help="golden.jsonl or its folder; overrides golden.path")


def _add_split(p: argparse.ArgumentParser, *, default: str | None, help: str) -> None:
    p.add_argument("--split", choices=("eval", "calibration", "all"), default=default, help=help)


def _add_reports(p: argparse.ArgumentParser, *, help: str) -> None:
    p.add_argument("--reports", type=Path, default=evaluate.REPORTS_DIR, help=help)


def _add_no_progress(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def _add_golden_life(golden: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The golden set's life: quote, import, accept, confirm, diff, agree (README, "The golden set's
    life")."""
    quote = golden.add_parser(
        "quote",
        help="find the verbatim passage that supports an answer",
        description="Write the answer first, then find the quote: list the corpus passages that contain "
        "(or best support) ANSWER, ranked, each with its document, line and the support entry to paste, "
        "matched as rendered (markdown emphasis and links aside).",
    )
    quote.add_argument("answer", metavar="ANSWER", help="the expected answer, e.g. '14 days'")
    quote.add_argument("--question", help="the question: ranks passages about it first")
    quote.add_argument("--doc", help="only this document (basename or corpus-relative path)")
    quote.add_argument("--top", type=int, default=5, help="how many passages to list (default 5)")
    quote.add_argument("--json", action="store_true", help="the passages as JSON")
    _add_config_args(quote)
    quote.set_defaults(handler=_lazy("golden", "cmd_golden_quote"))

    imp = golden.add_parser(
        "import",
        help="write golden cases from real questions, the curation guide's format, or known values",
        description="Write a new golden set from SOURCE (JSONL or CSV). --format questions: each row's "
        "question becomes a draft case with retrieval's proposed passage, never scored until accepted. "
        "--format curation: the curation guide's JSONL (input, expected, contexts as doc or doc#section "
        "ids, dataset_version), accepted, with document-level support. --format values: a CSV of known "
        "values (question, answer, doc, quote columns named by flags). Never overwrites.",
    )
    imp.add_argument("source", type=Path, metavar="SOURCE", help="the file to import (.jsonl or .csv)")
    imp.add_argument("--format", choices=("questions", "curation", "values"), default="questions")
    imp.add_argument("--out", type=Path, required=True, help="the golden.jsonl to write (or its folder)")
    imp.add_argument("--version", help="write golden.version with this version (curation: dataset_version)")
    imp.add_argument("--prefix", default="imp", help="id prefix for rows without an id (default imp)")
    imp.add_argument("--annotator", help="who labels these cases (kept in each case)")
    imp.add_argument(
        "--propose-answers",
        action="store_true",
        help="questions: the config's [provider] answers each question over its retrieval, as the draft's "
        "expected_answer (cached like an eval's answers; an LLM provider costs what a run of these questions "
        "costs)",
    )
    imp.add_argument("--question-field", help="field or column of the question (default question; input)")
    imp.add_argument("--answer-field", default="answer", help="values: the answer's column (default answer)")
    imp.add_argument("--doc-field", default="doc", help="values: the document's column (default doc)")
    imp.add_argument("--quote-field", default="quote", help="values: the quote's column (default quote)")
    imp.add_argument("--id-field", default="id", help="field or column of the id (default id)")
    imp.add_argument("--tags-field", default="tags", help="values: tags, comma separated (default tags)")
    _add_config_args(imp)
    imp.set_defaults(handler=_lazy("golden", "cmd_golden_import"))

    acc = golden.add_parser(
        "accept",
        help="accept draft cases: they are scored from now on",
        description="Turn draft cases into accepted ones (they need an expected answer and support, or "
        "answerable: false) and record the digest of each support's passage. Rewrites only their lines.",
    )
    acc.add_argument("ids", nargs="+", metavar="ID", help="the case ids")
    acc.add_argument("--by", help="who labelled them (kept as annotator when the case has none)")
    _add_config_args(acc)
    acc.set_defaults(handler=_lazy("golden", "cmd_golden_accept"))

    con = golden.add_parser(
        "confirm",
        help="confirm cases as a second person (safety labels need it); clears a changed-passage stale",
        description="Record NAME as the second person who confirmed the cases' labels, and the digest of "
        "each support's passage as it is now. Refuses the case's own annotator. A case with a critical "
        "tag ([gate] critical_tags) is left out of scores until it is confirmed.",
    )
    con.add_argument("ids", nargs="+", metavar="ID", help="the case ids")
    con.add_argument("--by", required=True, metavar="NAME", help="who confirms (not the annotator)")
    _add_config_args(con)
    con.set_defaults(handler=_lazy("golden", "cmd_golden_confirm"))

    dif = golden.add_parser(
        "diff",
        help="list what changed between two versions of a golden set; write the changelog entry",
        description="Compare two golden sets by case id: added, removed, re-annotated (answer, support, "
        "checks), deprecated and edited cases, and warn when the content changed but the version did not.",
    )
    dif.add_argument("old", type=Path, metavar="OLD", help="the earlier golden.jsonl (or its folder)")
    dif.add_argument("new", type=Path, metavar="NEW", help="the later golden.jsonl (or its folder)")
    dif.add_argument("--changelog", type=Path, help="append the entry to this file (e.g. CHANGELOG.md)")
    dif.add_argument("--reason", help="why the set changed (the entry's first line)")
    dif.set_defaults(handler=_lazy("golden", "cmd_golden_diff"))

    agr = golden.add_parser(
        "agree",
        help="agreement between two annotators' golden sets: kappa, and the cases to reconcile",
        description="Compare two annotators' labels of the same cases (by id): agreement and Cohen's kappa "
        "on answerability, agreement on expected answers (exact match's normalisation, then the lexical "
        "judge), and the disagreements to reconcile; below 90 %% the task definition is ambiguous.",
    )
    agr.add_argument("a", type=Path, metavar="A", help="the first annotator's golden.jsonl (or its folder)")
    agr.add_argument("b", type=Path, metavar="B", help="the second annotator's golden.jsonl (or its folder)")
    agr.set_defaults(handler=_lazy("golden", "cmd_golden_agree"))

    sea = golden.add_parser(
        "seal",
        help="seal a golden set: questions in plain text, the answer key encrypted (age)",
        description="Write questions.jsonl (ids and questions of the scored cases) and golden.key.age (the "
        "whole golden.jsonl, encrypted to the age public keys in golden.recipients) into OUT. The system "
        "under test then sees the questions and never the answers; only a holder of the identity in "
        "CAIRN_GOLDEN_KEY scores. Resealing unchanged content keeps the key file.",
    )
    sea.add_argument("golden", type=Path, metavar="GOLDEN", help="the plain golden.jsonl (or its folder)")
    sea.add_argument("--out", type=Path, help="the sealed set's folder (default: GOLDEN's folder)")
    sea.add_argument(
        "--recipients", type=Path, help="the public keys, one per line (default: OUT/golden.recipients)"
    )
    sea.add_argument(
        "--recipient",
        action="append",
        metavar="AGE1...",
        help="a public key to seal to, written as the new recipients file (repeatable)",
    )
    sea.set_defaults(handler=_lazy("golden", "cmd_golden_seal"))

    uns = golden.add_parser(
        "unseal",
        help="write the plain golden.jsonl of a sealed set (needs CAIRN_GOLDEN_KEY)",
        description="Open golden.key.age with the age identity in CAIRN_GOLDEN_KEY and write the golden "
        "set in the clear to OUT (a new file, or a folder). Keep it out of the repository.",
    )
    uns.add_argument("sealed", type=Path, metavar="SEALED", help="the questions.jsonl (or its folder)")
    uns.add_argument("--out", type=Path, required=True, help="where to write golden.jsonl")
    uns.set_defaults(handler=_lazy("golden", "cmd_golden_unseal"))

    kg = golden.add_parser(
        "keygen",
        help="make an age key pair for a sealed set: the identity on stdout, the public key appended",
        description="Generate an age X25519 identity. Prints it once on stdout (store it as the "
        "CAIRN_GOLDEN_KEY secret) and appends its public key to the recipients file.",
    )
    kg.add_argument("--recipients", type=Path, default=Path("golden/golden.recipients"))
    kg.set_defaults(handler=_lazy("golden", "cmd_golden_keygen"))


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
    gen.set_defaults(handler=evaluate.cmd_corpus_generate)

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
    check.set_defaults(handler=evaluate.cmd_golden_check)
    _add_golden_life(golden)

    ev = sub.add_parser(
        "eval",
        help="run the golden set through the system, score it, and write the report",
        description="Run every case of the split (retrieve, answer, judge, verify citations) into a run "
        "artifact, score it with the committed calibration, and write reports/<config>-<UTC>.json and "
        "reports/latest/<config>.json. Provider results are cached; an interrupted run resumes.",
    )
    _add_config_args(ev)
    _add_split(
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
        "case whose verdict differs from the baseline's ([gate] baseline_samples times) and write a "
        "control report under reports/control/ for `cairn gate --control`",
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
    _add_no_progress(ev)
    ev.set_defaults(handler=evaluate.cmd_eval)

    mg = sub.add_parser(
        "merge",
        help="merge the artifacts of a sharded run into one",
        description="Merge the run artifacts of every shard of one run into one artifact, in golden file "
        "order. Refuses shards of different runs, and missing or repeated shards or cases.",
    )
    mg.add_argument("artifacts", nargs="+", metavar="ARTIFACT", help="the shards' run artifacts")
    mg.add_argument("--out", required=True, help="the merged run artifact to write")
    mg.set_defaults(handler=evaluate.cmd_merge)

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
    gate.add_argument(
        "--control",
        type=Path,
        metavar="REPORT",
        help="a control report (`cairn eval --baseline BASELINE --control BASE_CONFIG`): the base system "
        "re-asked at the same time as this change on the cases it changed; the change is compared with "
        "it there, so a shift of the provider since the baseline is not blamed on the change",
    )
    gate.add_argument("--markdown", type=Path, help="write the pull-request comment (and job summary) here")
    gate.add_argument(
        "--json",
        type=Path,
        help="write the decision and the comparison here; `-` prints them on stdout (the rest on stderr)",
    )
    gate.add_argument(
        "--history",
        type=Path,
        help="folder of committed reports for the trend chart (default: reports, when it exists)",
    )
    gate.add_argument("--override-label", help="override: the label applied (must be the baseline's)")
    gate.add_argument("--override-actor", help="override: who applied it")
    gate.add_argument("--override-reason", help="override: why the regression is accepted")
    gate.add_argument("--override-pr", type=int, help="override: the pull request number")
    gate.add_argument("--override-sha", help="override: the head commit it applies to")
    gate.add_argument("--override-at", help="override: when it was applied (ISO 8601; default now)")
    gate.set_defaults(handler=_lazy("decide", "cmd_gate"))

    vw = sub.add_parser(
        "view",
        help="write the case explorer: one self-contained HTML page to browse every case",
        description="Write one self-contained HTML page (no network: it opens from file:// and as a CI "
        "artifact) with the summary, every case (sortable, filterable, each with its question, answers, "
        "citations, retrieved chunks and the judge's verdict), the reliability plot, and with --baseline "
        "the gate's item diff.",
    )
    vw.add_argument("report", type=Path, help="the report (reports/latest/<config>.json)")
    vw.add_argument("--baseline", type=Path, help="a baseline report: add the item diff against it")
    vw.add_argument(
        "--run",
        dest="runs",
        nargs="+",
        type=Path,
        metavar="RUN.jsonl",
        help="the run artifact(s) the report was scored from: add each case's retrieved chunks with their "
        "scores, its claims and the judge's rationale (the report keeps only the cited chunks)",
    )
    vw.add_argument(
        "--out",
        type=Path,
        help="the HTML file to write (default: .cairn/explorer/<report>[-vs-<baseline>].html)",
    )
    vw.set_defaults(handler=_lazy("view", "cmd_view"))

    sc = sub.add_parser(
        "score",
        help="score existing run artifacts into a report, with no provider call",
        description="Score run artifacts (one run, or every shard of one run) over a split with the "
        "committed calibration, and write the report files. Makes no provider call.",
    )
    _add_config_args(sc)
    sc.add_argument("artifacts", nargs="+", type=Path, metavar="RUN.jsonl", help="the run artifact(s)")
    _add_split(sc, default="eval", help="which cases to score (default: eval)")
    _add_reports(sc, help="where to write (default: reports)")
    sc.set_defaults(handler=evaluate.cmd_score)

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
    _add_no_progress(cal)
    cal.set_defaults(handler=evaluate.cmd_calibrate)

    bench = sub.add_parser(
        "bench",
        help="write the leaderboard from reports/latest/*.json",
        description="Rank the latest report of every config in reports/leaderboard.md, by the judge when "
        "every report has one and token F1 otherwise; reports of different corpora or golden sets go in "
        "separate tables.",
    )
    _add_reports(bench, help="reports folder (default: reports)")
    bench.add_argument("--out", type=Path, help="leaderboard file (default: <reports>/leaderboard.md)")
    bench.set_defaults(handler=evaluate.cmd_bench)

    att = sub.add_parser(
        "attack",
        help="run the adversarial probes and write reports/attack-<config>.json and .md",
        description="Generate the attack suite from the golden set (seeded by [attack] seed), run it "
        "through the machinery of `cairn eval` (cache, resume, concurrency, budget, targets), check each "
        "probe, and write reports/attack-<config>.json and .md. Exit 0 when the [attack] policy holds, 1 "
        "when not. Compare two attack reports with `cairn gate`.",
    )
    _add_config_args(att)
    att.add_argument(
        "--families",
        nargs="+",
        metavar="FAMILY",
        help="only these families (space or comma separated; default: [attack] families, all seven)",
    )
    _add_reports(att, help="where to write the attack report (default: reports)")
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
    _add_no_progress(att)
    att.set_defaults(handler=_lazy("attack", "cmd_attack"))

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
    demo.set_defaults(handler=_lazy("decide", "cmd_demo"))

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
    rel.set_defaults(handler=_lazy("github", "cmd_release_stamp"))

    st = sub.add_parser(
        "stamp",
        help="print the accuracy stamp as one line (or JSON) for the served tool's description",
        description="Print the accuracy a release was stamped with (--notes: its release notes) or a "
        "report measured (--report, default reports/latest/<config>.json) as one line, or --json: golden "
        "version and size, safety recall, answer rate, error among answered, the date and the commit. "
        "cairn_action.report.served puts the line into an MCP tool's or a function schema's description.",
    )
    source = st.add_mutually_exclusive_group()
    source.add_argument("--report", type=Path, help="a report (default: reports/latest/<config>.json)")
    source.add_argument("--notes", type=Path, help="a release's notes holding a Cairn stamp")
    st.add_argument(
        "--config-name", default="default", help="the config whose stamp to read (default: default)"
    )
    st.add_argument("--commit", help="the commit the stamp describes (default: $GITHUB_SHA)")
    st.add_argument("--json", action="store_true", help="the stamp as JSON (what load_served_stamp reads)")
    st.set_defaults(handler=_lazy("stamp", "cmd_stamp"))

    show = sub.add_parser(
        "show",
        help="a report's cases in the terminal: asked, expected, answered, why",
        description="Print a report's cases: what was asked, expected and answered, the confidence, where "
        "the support ranked, and why the case was judged wrong. Colour on a terminal (NO_COLOR turns it "
        "off).",
    )
    show.add_argument("report", type=Path, help="a report (e.g. reports/latest/<config>.json)")
    show.add_argument("--failed", action="store_true", help="only the cases that are not right")
    show.add_argument("--case", metavar="ID", help="only this case")
    show.add_argument("--json", action="store_true", help="the cases as JSON, each with `right` and `why`")
    show.set_defaults(handler=_lazy("show", "cmd_show"))

    init = sub.add_parser(
        "init",
        help="start a project: config, golden set, target stub and workflows",
        description="Write a commented cairn.toml, an example document, a golden set for it, my_rag.py "
        "(a stand-in target to replace with your system) and the pull-request, baseline and release "
        "workflows into DIR. Never overwrites: nothing is written if any of them exists.",
    )
    init.add_argument("dir", nargs="?", type=Path, default=Path("."), help="the folder (default: here)")
    init.set_defaults(handler=_lazy("init", "cmd_init"))

    action = sub.add_parser(
        "action",
        help="run as the GitHub Action (inside a workflow; reads INPUT_* and GITHUB_*)",
        description="The Docker action's entrypoint: reads the inputs (INPUT_<NAME>) and the runner's "
        "variables, gates the pull request, refreshes the baseline or posts a fork's comment, and exits "
        "0 pass, 1 gate failed, 2 usage or refused, 3 GitHub unreachable.",
    )
    action.set_defaults(handler=_lazy("github", "cmd_action"))
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
        print(
            "interrupted: rerun the same command to resume (finished cases are kept in the run artifact)",
            file=sys.stderr,
        )
        return 130
    except Exception as exc:  # a bug: keep the traceback, and an exit code of its own
        traceback.print_exc(file=sys.stderr)
        print(internal_error_message(exc), file=sys.stderr)
        return int(ExitCode.INTERNAL)
