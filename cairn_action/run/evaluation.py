"""A run from a loaded config: corpus, golden set, store, retriever, answerer, judge and cache, then the run.

`run_evaluation` is what `cairn eval` calls (and, with scoring, what calls scoring next). It takes its
collaborators from the caller (streams, whether stderr is a terminal, the environment for API keys, a
clock) and reads nothing from the process itself.
"""

from __future__ import annotations

import hashlib
import os
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, TextIO

from cairn_action import __version__
from cairn_action.config import SAMPLE_CORPUS_DIR, Config, LoadedConfig, config_hash, is_shipped_golden
from cairn_action.errors import ConfigError, DataError
from cairn_action.files import check_output_file, is_dir, make_dirs
from cairn_action.golden.load import golden_warnings, load_golden
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.split import SplitName, split_golden
from cairn_action.golden.support import resolve_support
from cairn_action.index.chunks import Chunk
from cairn_action.index.corpus import load_corpus
from cairn_action.providers.base import Answerer
from cairn_action.providers.registry import create_answerer
from cairn_action.providers.services import ProviderServices
from cairn_action.retrieval.build_retriever import build_retrieval, check_dense_available
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.run.artifact import read_artifact, read_header
from cairn_action.run.cache import ResultCache
from cairn_action.run.deps import CaseDeps, Judge
from cairn_action.run.graded import BASELINE_JUDGE_DRAWS
from cairn_action.run.judge import LexicalJudge
from cairn_action.run.lock import RunLock, lock_path_for
from cairn_action.run.models import Environment, RunHeader
from cairn_action.run.progress import EmbeddingRate, Progress
from cairn_action.run.runner import RunOutcome, execute_run
from cairn_action.run.shard import ShardSpec
from cairn_action.run.target_case import is_retrieving_target
from cairn_action.sample import SAMPLE_INDEX
from cairn_action.sample.generate import ensure_sample_corpus

INDEX_CACHE_DIR = "index"
MANIFEST_DIR = "manifest"
"""The index cache's folder under run.cache_dir (chunks, BM25, embeddings: retrieval/index_cache.py)."""
RUNS_DIR = Path("reports") / "runs"
"""Where artifacts go by default, relative to the working folder: `<config>[-shard-I-of-N]-<UTC>.jsonl`."""


@dataclass(frozen=True)
class RunOptions:
    """What the command line chooses about a run (the config chooses the rest)."""

    split: SplitName = "all"
    shard: ShardSpec | None = None
    artifact: Path | None = None
    """None: resume the newest unfinished artifact of this run in reports/runs, or start a new one."""
    sampling: Literal["baseline", "candidate"] = "baseline"
    """`baseline` (a plain `cairn eval`, what the default branch commits): every critical case is asked
    `gate.baseline_samples` times, so a later gate can tell a lucky baseline answer from a real one.
    `candidate` (`cairn eval --baseline`): `run.repeats` asks per case, then confirmation."""
    confirm: Mapping[str, int] = field(default_factory=dict)
    """Case id -> total asks wanted after confirmation (only cases whose verdict changed)."""
    cases: tuple[GoldenCase, ...] | None = None
    """Run these instead of the golden set's cases (`cairn attack`'s probes); the split is not applied."""
    stem: str | None = None
    """The default artifact's name prefix (default: the config's name)."""
    planted: Mapping[str, Chunk] = field(default_factory=dict)
    """Case id -> a passage put among the answerer's hits (see `CaseDeps.planted`)."""
    system_canary: str | None = None
    run_only: bool = False
    """`cairn eval --run-only`: this process runs the system and scores nothing, so a sealed golden set
    is read without its key (ids and questions), and a key within reach refuses the run (issue 28)."""


def is_deterministic(answerer: object, judge: object) -> bool:
    """Both declare they answer the same way every time: asking a case again can only repeat itself."""
    return (
        getattr(answerer, "deterministic", False) is True and getattr(judge, "deterministic", False) is True
    )


def sample_plan(
    cases: Sequence[GoldenCase], config: Config, options: RunOptions, *, deterministic: bool
) -> dict[str, int]:
    """How many times each case is asked. A deterministic system is asked once: a repeat costs time and
    says nothing new."""
    if deterministic:
        return {c.id: 1 for c in cases}
    repeats = config.run.repeats
    plan = {}
    for case in cases:
        n = repeats
        if options.sampling == "baseline":
            n = max(n, config.gate.baseline_samples)
        plan[case.id] = max(n, options.confirm.get(case.id, 0))
    return plan


def environment() -> Environment:
    """The machine this process runs on (reports compare latency only between equal kinds)."""
    return Environment(
        os=platform.system().lower(),
        arch=platform.machine().lower(),
        python=platform.python_version(),
        cpu_count=os.cpu_count() or 1,
    )


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

        return build_llm_judge(loaded.config, env, services)
    where = f"{loaded.source}: " if loaded.source else ""
    raise ConfigError(
        f"{where}judge.name: unknown judge '{judge.name}' (known: lexical, llm)", "set [judge] name"
    )


def _select(golden: GoldenSet, loaded: LoadedConfig, options: RunOptions) -> list[GoldenCase]:
    cases = list(golden.cases if options.cases is None else options.cases)
    if options.split != "all" and options.cases is None:
        calibration = loaded.config.calibration
        wanted = split_golden(golden, seed=calibration.seed, fraction=calibration.fraction).ids(options.split)
        cases = [c for c in cases if c.id in wanted]
    if options.shard is not None:
        cases = [c for c in cases if options.shard.holds(c.id)]
    return cases


def _stem(config_name: str, shard: ShardSpec | None) -> str:
    return config_name if shard is None else f"{config_name}-shard-{shard.index}-of-{shard.count}"


def _unfinished(runs_dir: Path, stem: str, header: RunHeader, log: TextIO) -> Path | None:
    """The newest artifact in `runs_dir` of this very run, when an interruption left it unfinished."""
    ours = header.model_dump(mode="json", exclude={"started_at"})
    for path in sorted(runs_dir.glob(f"{stem}-*.jsonl"), reverse=True):  # names end in the UTC time
        theirs = read_header(path)
        if theirs is None or theirs.model_dump(mode="json", exclude={"started_at"}) != ours:
            continue
        try:
            artifact = read_artifact(path, drop_incomplete_tail=True)
        except DataError as exc:
            log.write(f"note: not resuming {exc.message}\n")
            continue
        first_pass = sum(1 for r in artifact.records if r.sample == 0)
        if header.n_cases is not None and first_pass < header.n_cases:
            return path
        # The newest run of this very header finished: an older unfinished one is superseded by it (its
        # answers are in the cache). Stopping here reads one finished artifact per run, not every run
        # in reports/runs (each `cairn eval` adds one: 30 of them were 0.15 s of every warm run).
        return None
    return None


def _artifact_path(options: RunOptions, header: RunHeader, cwd: Path, now: datetime, log: TextIO) -> Path:
    if options.artifact is not None:
        return cwd / options.artifact
    runs_dir = cwd / RUNS_DIR
    stem = _stem(options.stem or header.config_name, options.shard)
    found = _unfinished(runs_dir, stem, header, log) if is_dir(runs_dir) else None
    if found is not None:
        return found
    base = f"{stem}-{now.strftime('%Y%m%dT%H%M%SZ')}"
    path, n = runs_dir / f"{base}.jsonl", 1
    while path.exists():  # two runs in one second
        n += 1
        path = runs_dir / f"{base}-{n}.jsonl"
    return path


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
    try:
        judge = judge or create_judge(loaded, env or {}, services)
        retrieval = config.retrieval
        rewriter = reranker = None
        if "llm" in (retrieval.rewrite, retrieval.rerank):
            # The HTTP stack (requests, the chat clients) is imported only by a run that calls a model:
            # an offline run on the stub saves its import time (benchmarks/offline_floor.py).
            from cairn_action.providers.build_providers import build_query_rewriter, build_reranker

            if retrieval.rewrite == "llm":
                rewriter = build_query_rewriter(config, env or {}, services)
            if retrieval.rerank == "llm":
                reranker = build_reranker(config, env or {}, services)
        if answerer is None and not config.target:
            answerer = create_answerer(config.provider, env, source=loaded.source, services=services)
    except ConfigError as exc:
        raise loaded.located(exc) from None
    model_path = loaded.resolve(config.retrieval.model_path) if config.retrieval.model_path else None
    check_dense_available(config.retrieval, model_path)  # before any provider is called
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
    cases = _select(golden, loaded, options)
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
    store, retriever = built.store, built.retriever
    corpus.save_manifest()  # with the index: the input checks have passed
    log.write(
        f"indexed {len(corpus.documents)} documents as {len(store.chunks)} chunks "
        f"in {time.perf_counter() - started:.2f}s ({built.summary})\n"
    )
    for problem in built.problems:
        log.write(f"note: {problem}\n")
    start_time = now()
    header = RunHeader(
        cairn_version=__version__,
        config_name=config.name,
        config_hash=config_hash(config, built.embedding_model),
        corpus_hash=corpus.corpus_hash,
        golden_version=golden.version,
        golden_hash=golden.content_hash,
        split=options.split,
        shard=None if options.shard is None else str(options.shard),
        n_cases=len(cases),
        provider=answerer.name,
        model=answerer.model,
        judge=getattr(judge, "label", config.judge.name),
        retrieval_mode="target" if is_retrieving_target(answerer) else retriever.mode,
        top_k=config.retrieval.top_k,
        depth=config.retrieval.depth,
        started_at=start_time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        environment=environment(),
        deterministic=is_deterministic(answerer, judge),
        embedding_model=built.embedding_model,
        query_rewriting=rewriter is not None,
        reranker=reranker is not None,
        target_hash=answerer.code_hash() if is_retrieving_target(answerer) else None,  # type: ignore[attr-defined]
        sealed=not golden.answers_held,
    )
    if getattr(answerer, "version", None):
        log.write(f"target reports version {answerer.version} (target_hash {header.target_hash})\n")  # type: ignore[attr-defined]
    deps = CaseDeps(
        store=store,
        retriever=retriever,
        answerer=answerer,
        judge=judge,
        cache=ResultCache(loaded.cache_dir),
        support=support.resolved,
        stale=support.stale,
        stale_reasons=support.reasons(),
        changed_documents=support.changed_documents,
        top_k=config.retrieval.top_k,
        depth=config.retrieval.depth,
        golden_lines=dict(golden.line_of),
        planted=options.planted,
        system_canary=options.system_canary,
        rewriter=rewriter,
        reranker=reranker,
        record_spans=not golden.answers_held,
        judge_draws=BASELINE_JUDGE_DRAWS if options.sampling == "baseline" else 1,
    )
    try:
        with ExitStack() as locks:
            if options.artifact is None:  # one run of this config, split and shard at a time
                stem = f"{_stem(header.config_name, options.shard)}-{options.split}"
                locks.enter_context(RunLock(cwd / RUNS_DIR / f".{stem}.lock", what=f"a run of {stem}"))
            path = _artifact_path(options, header, cwd, start_time, log)
            locks.enter_context(RunLock(lock_path_for(path), what=f"the run writing {path.name}"))
            outcome = execute_run(
                cases=cases,
                header=header,
                path=path,
                deps=deps,
                max_concurrency=config.run.max_concurrency,
                progress=progress,
                log=log,
                samples=sample_plan(cases, config, options, deterministic=header.deterministic),
            )
    finally:
        services.close()
    for line in services.summary():
        log.write(f"{line}\n")
    for problem in deps.cache.problems:
        log.write(f"note: {problem}\n")
    return outcome
