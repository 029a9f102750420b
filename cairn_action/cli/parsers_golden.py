"""The parsers of the commands about the inputs: the sample corpus, the golden set (check and its life:
quote, import, accept, confirm, diff, agree, seal) and the judge."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn_action.cli.shared_args import add_config_args, lazy
from cairn_action.commands import evaluate


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
    add_config_args(quote)
    quote.set_defaults(handler=lazy("golden", "cmd_golden_quote"))

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
    add_config_args(imp)
    imp.set_defaults(handler=lazy("golden", "cmd_golden_import"))

    acc = golden.add_parser(
        "accept",
        help="accept draft cases: they are scored from now on",
        description="Turn draft cases into accepted ones (they need an expected answer and support, or "
        "answerable: false) and record the digest of each support's passage. Rewrites only their lines.",
    )
    acc.add_argument("ids", nargs="+", metavar="ID", help="the case ids")
    acc.add_argument("--by", help="who labelled them (kept as annotator when the case has none)")
    add_config_args(acc)
    acc.set_defaults(handler=lazy("golden", "cmd_golden_accept"))

    con = golden.add_parser(
        "confirm",
        help="confirm cases as a second person (safety labels need it); clears a changed-passage stale",
        description="Record NAME as the second person who confirmed the cases' labels, and the digest of "
        "each support's passage as it is now. Refuses the case's own annotator. A case with a critical "
        "tag ([gate] critical_tags) is left out of scores until it is confirmed.",
    )
    con.add_argument("ids", nargs="+", metavar="ID", help="the case ids")
    con.add_argument("--by", required=True, metavar="NAME", help="who confirms (not the annotator)")
    add_config_args(con)
    con.set_defaults(handler=lazy("golden", "cmd_golden_confirm"))

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
    dif.set_defaults(handler=lazy("golden", "cmd_golden_diff"))

    agr = golden.add_parser(
        "agree",
        help="agreement between two annotators' golden sets: kappa, and the cases to reconcile",
        description="Compare two annotators' labels of the same cases (by id): agreement and Cohen's kappa "
        "on answerability, agreement on expected answers (exact match's normalisation, then the config's "
        'judge: lexical by default, the LLM judge where [judge] name = "llm"), and the disagreements to '
        "reconcile; below 90 %% the task definition is ambiguous. The report says which judge decided.",
    )
    agr.add_argument("a", type=Path, metavar="A", help="the first annotator's golden.jsonl (or its folder)")
    agr.add_argument("b", type=Path, metavar="B", help="the second annotator's golden.jsonl (or its folder)")
    agr.add_argument(
        "--config",
        type=Path,
        help="the config whose [judge] decides answers exact match does not (default: cairn.toml if "
        "present, else the lexical judge)",
    )
    agr.set_defaults(handler=lazy("golden", "cmd_golden_agree"))

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
    sea.set_defaults(handler=lazy("golden", "cmd_golden_seal"))

    uns = golden.add_parser(
        "unseal",
        help="write the plain golden.jsonl of a sealed set (needs CAIRN_GOLDEN_KEY)",
        description="Open golden.key.age with the age identity in CAIRN_GOLDEN_KEY and write the golden "
        "set in the clear to OUT (a new file, or a folder). Keep it out of the repository.",
    )
    uns.add_argument("sealed", type=Path, metavar="SEALED", help="the questions.jsonl (or its folder)")
    uns.add_argument("--out", type=Path, required=True, help="where to write golden.jsonl")
    uns.set_defaults(handler=lazy("golden", "cmd_golden_unseal"))

    kg = golden.add_parser(
        "keygen",
        help="make an age key pair for a sealed set: the identity on stdout, the public key appended",
        description="Generate an age X25519 identity. Prints it once on stdout (store it as the "
        "CAIRN_GOLDEN_KEY secret) and appends its public key to the recipients file.",
    )
    kg.add_argument("--recipients", type=Path, default=Path("golden/golden.recipients"))
    kg.set_defaults(handler=lazy("golden", "cmd_golden_keygen"))


def add_corpus(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
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


def add_golden(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    golden = sub.add_parser("golden", help="the golden set").add_subparsers(
        dest="golden_command", metavar="SUBCOMMAND", required=True
    )
    check = golden.add_parser(
        "check",
        help="validate a golden set against its corpus",
        description="Validate a golden set against its corpus: every problem at once, "
        "as file:line: message; exit 2 on any error.",
    )
    add_config_args(check)
    check.set_defaults(handler=evaluate.cmd_golden_check)
    _add_golden_life(golden)


def add_judge(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    judge = sub.add_parser("judge", help="the judge").add_subparsers(
        dest="judge_command", metavar="SUBCOMMAND", required=True
    )
    jc = judge.add_parser(
        "check",
        help="measure the configured judge against human verdicts: TPR, TNR, agreement, Cohen's kappa",
        description="Judge each labelled answer with the config's judge, as an evaluation does (an LLM judge "
        "by the majority of up to 3 draws), and compare with the human verdict: TPR and TNR with 95%% "
        "Wilson intervals, raw agreement and Cohen's kappa. The result is written beside the config "
        "(<config>.judge-check.json), recorded in every report's notes and shown in the comment; [judge] "
        "min_kappa makes the gate refuse a judge without one or below it.",
    )
    jc.add_argument(
        "labels",
        type=Path,
        metavar="LABELS",
        help="JSONL or CSV (by suffix): case_id, answer, human (true/false, correct/incorrect, 1/0)",
    )
    add_config_args(jc)
    jc.set_defaults(handler=lazy("judge", "cmd_judge_check"))
