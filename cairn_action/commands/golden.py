"""Handlers of the golden set's life: quote, import, accept, confirm, diff (`golden check` is in evaluate).

Each is the composition root of its command: it reads the config for the corpus and the critical tags,
the clock for dates, and writes only the file it was asked to.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.commands.common import golden_and_corpus
from cairn_action.errors import DataError, ExitCode

if TYPE_CHECKING:
    import argparse

    from cairn_action.golden.models import SupportQuote
    from cairn_action.index.corpus import Corpus


def _today() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d")


def _corpus(args: argparse.Namespace) -> tuple[Path, Corpus]:
    from cairn_action.index.corpus import load_corpus

    golden, corpus = golden_and_corpus(args)
    return golden, load_corpus(corpus)


def cmd_golden_quote(args: argparse.Namespace) -> int:
    from cairn_action.golden.support import find_document
    from cairn_action.retrieval.quote_search import find_quotes

    if not args.answer.strip():
        raise DataError("the answer is empty", "write the answer first: cairn golden quote '14 days'")
    _, corpus = _corpus(args)
    documents = [find_document(args.doc, corpus)] if args.doc else None
    found = find_quotes(corpus, args.answer, question=args.question or "", documents=documents, top=args.top)
    if args.json:
        rows = [
            {
                "doc": c.doc,
                "line": c.line,
                "quote": c.quote,
                "contains_answer": c.contains_answer,
                "support": c.support(),
            }
            for c in found
        ]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return ExitCode.PASS
    where = f"{args.doc}" if args.doc else f"{len(corpus.documents)} documents"
    if not found:
        print(f"no passage of {where} shares a word with the answer")
    elif not found[0].contains_answer:
        print(
            f"no passage of {where} contains the answer as written; the closest are below. If none says it, "
            "the case is not answerable from the corpus, and that is a finding"
        )
    for rank, c in enumerate(found, start=1):
        how = "contains the answer" if c.contains_answer else f"{c.answer_tokens:.0%} of the answer's words"
        print(f"\n{rank}. {c.path}:{c.line}  ({how})")
        print(f"   {c.quote}")
        print(f"   {json.dumps(c.support(), ensure_ascii=False)}")
    return ExitCode.PASS


def _proposer(corpus: Corpus):  # type: ignore[no-untyped-def]
    """The import's proposals: the passage retrieval ranks first for the question (and the answer)."""
    from cairn_action.golden.models import SupportQuote
    from cairn_action.golden.support import find_document
    from cairn_action.retrieval.quote_search import QuoteIndex

    index = QuoteIndex(corpus)

    def propose(question: str, answer: str | None, doc: str | None) -> SupportQuote | None:
        documents = [find_document(doc, corpus)] if doc else None
        found = index.find(answer or "", question=question, documents=documents, top=1)
        if not found or (answer and not found[0].contains_answer):
            return None
        return SupportQuote(doc=doc or found[0].doc, quote=found[0].quote)

    return propose


def _answerer_proposals(args: argparse.Namespace, corpus: Corpus):  # type: ignore[no-untyped-def]
    """`--propose-answers`: the configured answerer ([provider]) answers each imported question over the
    config's retrieval, through the run's response cache (a rerun of the import pays nothing again)."""
    import os
    import time

    from cairn_action.config import load_config
    from cairn_action.providers.base import AnswerRequest, AnswerResult
    from cairn_action.providers.registry import create_answerer
    from cairn_action.providers.services import ProviderServices
    from cairn_action.retrieval.build_retriever import build_retrieval
    from cairn_action.retrieval.index_cache import IndexCache
    from cairn_action.run.cache import ResultCache, cached_call
    from cairn_action.run.evaluation import INDEX_CACHE_DIR
    from cairn_action.run.pipeline import ANSWER_NAMESPACE

    loaded = load_config(args.config)
    config = loaded.config
    env = dict(os.environ)
    services = ProviderServices.from_config(
        config, env=env, warn=lambda m: print(f"warning: {m}", file=sys.stderr)
    )
    answerer = create_answerer(config.provider, env, source=loaded.source, services=services)
    retriever = build_retrieval(
        corpus, config.chunking, config.retrieval, cache=IndexCache(loaded.cache_dir / INDEX_CACHE_DIR)
    ).retriever
    cache = ResultCache(loaded.cache_dir)

    def answer(question: str) -> str | None:
        hits = tuple(retriever.retrieve(question, config.retrieval.top_k))
        request = AnswerRequest(case_id="import", question=question, hits=hits)
        result, _ = cached_call(
            cache,
            ANSWER_NAMESPACE,
            answerer.request_key(request),
            AnswerResult,
            lambda: answerer.answer(request),
            clock=time.perf_counter,
            started=time.perf_counter(),
            role="answer",
            provider=answerer.name,
            model_name=answerer.model,
        )
        if result.abstained or result.error or not (result.answer_text or "").strip():
            return None
        return result.answer_text.strip() if result.answer_text else None

    return answer


def cmd_golden_import(args: argparse.Namespace) -> int:
    from cairn_action.golden.edit import write_cases
    from cairn_action.golden.importer import Columns, import_cases

    _, corpus = _corpus(args)
    columns = Columns(
        question=args.question_field or ("input" if args.format == "curation" else "question"),
        answer=args.answer_field,
        doc=args.doc_field,
        quote=args.quote_field,
        id=args.id_field,
        tags=args.tags_field,
    )
    imported = import_cases(
        args.source,
        args.format,
        corpus,
        columns=columns,
        prefix=args.prefix,
        added=_today(),
        annotator=args.annotator,
        propose=_proposer(corpus),
        answer=_answerer_proposals(args, corpus) if args.propose_answers else None,
    )
    for warning in imported.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    version = args.version or imported.version
    out = args.out if args.out.suffix == ".jsonl" else args.out / "golden.jsonl"
    write_cases(out, imported.cases, version=version)
    drafts = sum(1 for c in imported.cases if c.status == "draft")
    proposed = sum(1 for c in imported.cases if c.status == "draft" and c.support)
    n = len(imported.cases)
    print(
        f"wrote {n} cases to {out}: {n - drafts} accepted, {drafts} draft "
        f"({proposed} with a proposed passage)" + (f"; golden.version {version}" if version else "")
    )
    if drafts:
        print(
            "next: write each draft's expected_answer (or answerable: false), check its quote "
            f"(`cairn golden quote ANSWER`), then `cairn golden accept ID --golden {out}`"
        )
    return ExitCode.PASS


def _edit(args: argparse.Namespace, verb: str) -> int:
    from cairn_action.commands.common import measured_sets
    from cairn_action.golden.edit import replace_cases
    from cairn_action.golden.history import unbumped_version
    from cairn_action.golden.load import load_golden
    from cairn_action.golden.review import accept, confirm

    golden_path, corpus = _corpus(args)
    golden = load_golden(golden_path)
    if golden.sealed:
        raise DataError(
            f"{golden.path}: the golden set is sealed: {verb} edits the plain golden.jsonl",
            "`cairn golden unseal` it where the key is, edit, and `cairn golden seal` it again",
        )
    if verb == "accept":
        changed = accept(golden, args.ids, corpus, by=args.by)
    else:
        changed = confirm(golden, args.ids, corpus, by=args.by)
    path = replace_cases(golden.path, changed)
    print(f"{verb}ed {len(changed)} case(s) in {path}: {', '.join(changed)}")
    # Said only when a committed report measured this version (held-out check: a set no report has
    # measured yet was told to bump its version after every accept).
    for warning in unbumped_version(load_golden(golden_path), measured_sets(golden_path)):
        print(f"warning: {warning}")
    return ExitCode.PASS


def cmd_golden_accept(args: argparse.Namespace) -> int:
    return _edit(args, "accept")


def cmd_golden_confirm(args: argparse.Namespace) -> int:
    return _edit(args, "confirm")


def cmd_golden_diff(args: argparse.Namespace) -> int:
    from cairn_action.files import LIMIT_GOLDEN, exists, read_text, write_text
    from cairn_action.golden.history import CHANGELOG_TITLE, changelog_entry, diff_golden, format_diff
    from cairn_action.golden.load import load_golden

    diff = diff_golden(load_golden(args.old), load_golden(args.new))
    print(format_diff(diff))
    if args.changelog is not None:
        entry = changelog_entry(diff, date=_today(), reason=args.reason)
        before = (
            read_text(args.changelog, what="changelog", limit=LIMIT_GOLDEN)
            if exists(args.changelog)
            else CHANGELOG_TITLE
        )
        if f"\n## {diff.new_version} (" in before:
            raise DataError(
                f"{args.changelog}: already has an entry for {diff.new_version}",
                "a version's entry is written once: edit it by hand, or bump the version",
            )
        write_text(args.changelog, before.rstrip("\n") + "\n\n" + entry, what="the changelog")
        print(f"appended the entry for {diff.new_version} to {args.changelog}")
    return ExitCode.PASS


def cmd_golden_agree(args: argparse.Namespace) -> int:
    """The configured judge (`[judge]` of --config, else cairn.toml, else the lexical default) decides the
    answers exact match's normalisation does not; an LLM judge's calls go through the run's cache."""
    import os
    import time

    from cairn_action.commands.compose import create_judge
    from cairn_action.config import load_config
    from cairn_action.golden.agreement import agreement, format_agreement
    from cairn_action.golden.load import load_golden
    from cairn_action.golden.models import GoldenCase
    from cairn_action.providers.services import ProviderServices
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.graded import judge_answer

    first, second = load_golden(args.a), load_golden(args.b)  # bad input is refused before any call
    loaded = load_config(args.config)
    services = ProviderServices.from_config(
        loaded.config, env=dict(os.environ), warn=lambda m: print(f"warning: {m}", file=sys.stderr)
    )
    judge = create_judge(loaded, dict(os.environ), services)
    cache = ResultCache(loaded.cache_dir)
    failures: list[str] = []

    def verdict(case: GoldenCase, answer: str) -> bool | None:
        judged = judge_answer(judge, cache, case, answer, time.perf_counter, sample=0)  # type: ignore[arg-type]
        if judged.error is not None or judged.verdict is None:
            failures.append(f"{case.id}: {judged.error}")
            return None
        return judged.verdict.correct

    result = agreement(first, second, verdict)
    if result.shared == 0:
        raise DataError(
            f"{args.a} and {args.b} share no case id", "both annotators label the same cases, by the same ids"
        )
    label = getattr(judge, "label", loaded.config.judge.name)
    name = "the lexical judge" if loaded.config.judge.name == "lexical" else f"the LLM judge ({label})"
    for failure in failures[:5]:
        print(f"warning: the judge failed on {failure}", file=sys.stderr)
    print(format_agreement(result, str(args.a), str(args.b), judge_name=name))
    return ExitCode.PASS


def cmd_golden_seal(args: argparse.Namespace) -> int:
    from cairn_action.files import exists, write_text
    from cairn_action.golden.sealed import RECIPIENTS_FILE, read_recipients
    from cairn_action.golden.sealer import seal

    source = args.golden if args.golden.is_dir() else args.golden.parent
    out = args.out if args.out is not None else source
    recipients_file = args.recipients or next(
        (f for f in (out / RECIPIENTS_FILE, source / RECIPIENTS_FILE) if exists(f)), out / RECIPIENTS_FILE
    )
    if args.recipient:
        if exists(recipients_file):
            raise DataError(
                f"{recipients_file}: already exists; --recipient would not be recorded",
                f"add the key to {recipients_file} and seal without --recipient",
            )
        write_text(recipients_file, "".join(f"{r}\n" for r in args.recipient), what="the recipients file")
    done = seal(args.golden, out, read_recipients(recipients_file))
    kept = " (the key file was kept: same content)" if done.key_kept else ""
    print(f"sealed {done.cases} case(s): {done.files.questions} and {done.files.key}{kept}")
    print(
        f"commit those two and {recipients_file.name}; keep the plain golden set out of the repository "
        "(the system under test can read every file of the checkout)"
    )
    return ExitCode.PASS


def cmd_golden_unseal(args: argparse.Namespace) -> int:
    from cairn_action.golden.sealer import unseal

    print(f"wrote {unseal(args.sealed, args.out)}")
    return ExitCode.PASS


def cmd_golden_keygen(args: argparse.Namespace) -> int:
    from cairn_action.files import LIMIT_CONFIG, exists, read_text, write_text
    from cairn_action.golden.sealed import KEY_ENV
    from cairn_action.golden.sealer import new_identity

    identity, recipient = new_identity()
    before = (
        read_text(args.recipients, what="recipients", limit=LIMIT_CONFIG) if exists(args.recipients) else ""
    )
    if before and not before.endswith("\n"):
        before += "\n"
    write_text(args.recipients, before + f"{recipient}\n", what="the recipients file")
    # The identity goes to stdout once, and nowhere else: it is the one secret of a sealed set.
    print(identity)
    print(
        f"added the public key to {args.recipients}; store the line above as the secret {KEY_ENV} "
        "(it is shown once and written nowhere)",
        file=sys.stderr,
    )
    return ExitCode.PASS
