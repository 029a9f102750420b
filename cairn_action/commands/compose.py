"""The evaluation's composition root: from a loaded config to a run's parts, then the run.

`run_evaluation` is what `cairn eval` (and its confirmation and control, `cairn calibrate`, `cairn demo`,
`cairn attack` through `attack/execute.py`) calls. It builds every collaborator the config names (the
provider services, the judge, the answerer or the user's target, query rewriting and reranking, the golden
set, the corpus with its support, the index) and hands them to `run/evaluation.py`, which runs them. It
takes the process's streams, environment and clock from its caller and reads nothing from the process.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from cairn_action.config import SAMPLE_CORPUS_DIR, LoadedConfig, is_shipped_golden
from cairn_action.errors import ConfigError, DataError
from cairn_action.files import check_output_file, make_dirs
from cairn_action.golden.load import golden_warnings, load_golden
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.support import SupportResolution, resolve_support
from cairn_action.index.corpus import Corpus, load_corpus
from cairn_action.providers.base import Answerer
from cairn_action.providers.registry import create_answerer
from cairn_action.providers.services import ProviderServices
from cairn_action.retrieval.build_retriever import build_retrieval, check_dense_available
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.run.cache import ResultCache
from cairn_action.run.deps import Judge
from cairn_action.run.evaluation import (
    INDEX_CACHE_DIR,
    MANIFEST_DIR,
    RUNS_DIR,
    RunOptions,
    RunParts,
    execute_evaluation,
    select_cases,
)
from cairn_action.run.judge import LexicalJudge
from cairn_action.run.progress import EmbeddingRate, Progress
from cairn_action.run.retrieve import QueryRewriter, Reranker
from cairn_action.run.runner import RunOutcome
from cairn_action.sample import SAMPLE_INDEX
from cairn_action.sample.generate import ensure_sample_corpus


def _golden_for_run(loaded: LoadedConfig, options: RunOptions, env: Mapping[str, str] | None) -> GoldenSet:
    """The golden set as this run may hold it: whole, unless it is sealed and this is a run-only
    evaluation, which holds only the questions and refuses to start with the answers within its reach."""
    from cairn_action.golden.load import load_questions
    from cairn_action.golden.sealed import KEY_ENV, plain_beside, sealed_files

    files = sealed_files(loaded.golden_path)
    if files is None or not options.run_only:
        return load_golden(loaded.golden_path)
    if (env or {}).get(KEY_ENV):
        raise ConfigError(
            f"{KEY_ENV} is set in the environment of a run-only evaluation of the sealed set "
            f"{files.questions}",
            "the system under test runs in this process: give the key only to the scoring side "
            "(`cairn score`, the Action's gate), never to the run",
        )
    plain = plain_beside(files)
    if plain is not None:
        raise DataError(
            f"{plain}: the answer key in plain text beside the sealed set; the system under test can read it",
            "keep golden.jsonl out of the checkout (the repository carries golden.key.age)",
        )
    return load_questions(loaded.golden_path)


def create_judge(loaded: LoadedConfig, env: Mapping[str, str], services: ProviderServices) -> Judge:
    judge = loaded.config.judge
    if judge.name == "lexical":
        return LexicalJudge(judge.f1_threshold)
    if judge.name == "llm":
        from cairn_action.providers.build_providers import build_llm_judge  # HTTP stack: only when it is used

        return build_llm_judge(judge, loaded.config.provider, env, services)
    where = f"{loaded.source}: " if loaded.source else ""
    raise ConfigError(
        f"{where}judge.name: unknown judge '{judge.name}' (known: lexical, llm)", "set [judge] name"
    )


def _models(
    loaded: LoadedConfig,
    env: Mapping[str, str] | None,
    services: ProviderServices,
    *,
    judge: Judge | None,
    answerer: Answerer | None,
) -> tuple[Judge, QueryRewriter | None, Reranker | None, Answerer | None]:
    """The judge, query rewriter, reranker and answerer the config names (a given judge or answerer
    wins); the answerer is None for a `target`, built once the corpus is read. ConfigErrors at file:line."""
    config = loaded.config
    try:
        judge = judge or create_judge(loaded, env or {}, services)
        retrieval = config.retrieval
        rewriter = reranker = None
        if "llm" in (retrieval.rewrite, retrieval.rerank):
            # The HTTP stack (requests, the chat clients) is imported only by a run that calls a model:
            # an offline run on the stub saves its import time (benchmarks/offline_floor.py).
            from cairn_action.providers.build_providers import build_query_rewriter, build_reranker

            if retrieval.rewrite == "llm":
                rewriter = build_query_rewriter(config.provider, env or {}, services)
            if retrieval.rerank == "llm":
                reranker = build_reranker(config.provider, env or {}, services)
        if answerer is None and not config.target:
            answerer = create_answerer(config.provider, env, source=loaded.source, services=services)
    except ConfigError as exc:
        raise loaded.located(exc) from None
    return judge, rewriter, reranker, answerer


def _inputs(
    loaded: LoadedConfig, options: RunOptions, *, cwd: Path, log: TextIO, env: Mapping[str, str] | None
) -> tuple[GoldenSet, RunOptions, Corpus, SupportResolution, list[GoldenCase]]:
    """The golden set (as this run may hold it), the options it allows, the corpus (the sample written on
    first use), each case's support resolved in it, and the cases to run; notes on `log`."""
    config = loaded.config
    # Before the sample corpus is written: bad input writes nothing.
    loaded.check_path("golden.path")
    golden = _golden_for_run(loaded, options, env)
    if not golden.answers_held and options.split != "all":
        # The split is stratified by answerability, which is in the key: the scoring side picks it.
        log.write(
            f"note: {golden.path} is sealed and its split needs the key: running every case "
            f"(the scoring side scores the {options.split} split)\n"
        )
        options = replace(options, split="all")
    corpus_dir = loaded.corpus_dir
    # The generated sample is data/sample under the project (variant configs in configs/ name it
    # ../data/sample); it is written on first use and kept equal to the generator's output, for the
    # golden set labelled against it only: a golden set of the user's own with the sample (a forgotten
    # --corpus) would only report that its documents are not there.
    if corpus_dir.resolve() == (cwd / SAMPLE_CORPUS_DIR).resolve() and is_shipped_golden(loaded.golden_path):
        done = ensure_sample_corpus(corpus_dir)
        if done is not None:
            log.write(done + "\n")
    loaded.check_path("corpus.path")
    # The manifest (size, times and inode of each document, and its hash) lets a warm run skip reading
    # and hashing what has not changed: index/corpus.py says when that is safe. It describes this
    # machine's files, so it lives beside `index/`, not in it: the Action carries `index/` between jobs.
    where = hashlib.sha256(str(corpus_dir.resolve()).encode()).hexdigest()[:16]
    corpus = load_corpus(corpus_dir, manifest=loaded.cache_dir / MANIFEST_DIR / f"corpus-{where}.json")
    for line in corpus.skipped_lines():  # never dropped without a word
        log.write(f"note: {line}\n")
    warnings = golden_warnings(golden)
    if warnings:
        log.write(f"note: the golden set has {len(warnings)} warning(s); `cairn golden check` lists them\n")
    support = resolve_support(golden, corpus, config.gate.critical_tags)
    support.raise_for_errors()
    for detail in support.stale_details:
        log.write(f"stale: {detail}\n")
    for detail in support.unconfirmed.values():
        log.write(f"unconfirmed (left out of scores): {detail}\n")
    if golden.inactive:
        log.write(f"note: {len(golden.inactive)} draft or deprecated case(s) are in no run and no score\n")
    cases = select_cases(golden, loaded, options)
    return golden, options, corpus, support, cases


def run_evaluation(
    loaded: LoadedConfig,
    options: RunOptions,
    *,
    cwd: Path,
    log: TextIO,
    progress: Progress,
    env: Mapping[str, str] | None = None,
    answerer: Answerer | None = None,
    judge: Judge | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RunOutcome:
    """Build everything the config names and run its cases into the artifact; returns the outcome.

    `answerer` replaces the config's provider (tests pass a counting one), `judge` the config's judge
    (`cairn attack` checks answers itself and pays no judge). Raises CairnError for bad
    input (exit 2) before any provider is called.
    """
    config = loaded.config
    # Where the run writes is checked before anything is built, let alone paid for.
    make_dirs(loaded.cache_dir, what="the provider cache (run.cache_dir)")
    if options.artifact is not None:
        check_output_file(cwd / options.artifact, what="the run artifact")
        make_dirs((cwd / options.artifact).parent, what="the run artifact's folder")
    else:
        make_dirs(cwd / RUNS_DIR, what="the run artifacts folder")
    # Budget, prices, rate limits and HTTP connections shared by the answerer and the judge.
    services = ProviderServices.from_config(
        config, env=env, warn=lambda message: log.write(f"warning: {message}\n")
    )
    judge, rewriter, reranker, answerer = _models(loaded, env, services, judge=judge, answerer=answerer)
    model_path = loaded.resolve(config.retrieval.model_path) if config.retrieval.model_path else None
    check_dense_available(config.retrieval, model_path)  # before any provider is called
    golden, options, corpus, support, cases = _inputs(loaded, options, cwd=cwd, log=log, env=env)
    if answerer is None:  # the user's own system (`target`), which locates its passages in the corpus
        from cairn_action.providers.build_providers import build_target

        documents = {d.path: d.text for d in corpus.documents}
        try:
            answerer = build_target(
                config, env or {}, services, base_dir=loaded.base_dir, documents=documents
            )
        except ConfigError as exc:
            raise loaded.located(exc) from None

    started = time.perf_counter()
    built = build_retrieval(
        corpus,
        config.chunking,
        config.retrieval,
        cache=IndexCache(loaded.cache_dir / INDEX_CACHE_DIR, seed=SAMPLE_INDEX),
        model_path=model_path,
        progress=EmbeddingRate(log.write),
    )
    corpus.save_manifest()  # with the index: the input checks have passed
    log.write(
        f"indexed {len(corpus.documents)} documents as {len(built.store.chunks)} chunks "
        f"in {time.perf_counter() - started:.2f}s ({built.summary})\n"
    )
    for problem in built.problems:
        log.write(f"note: {problem}\n")
    return execute_evaluation(
        RunParts(
            config=config,
            options=options,
            golden=golden,
            corpus=corpus,
            support=support,
            cases=cases,
            built=built,
            answerer=answerer,
            judge=judge,
            rewriter=rewriter,
            reranker=reranker,
            cache=ResultCache(loaded.cache_dir),
            services=services,
        ),
        cwd=cwd,
        log=log,
        progress=progress,
        now=now,
    )
