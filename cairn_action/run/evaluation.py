"""A run of an evaluation, from its parts: the run header, the case dependencies, the artifact (new or
resumed) under its locks, then the run.

The parts (golden set, corpus, retrieval, answerer, judge, cache, provider services) are built from the
config by the caller, `commands/compose.py`, the evaluation's composition root; this module receives them.
"""

from __future__ import annotations

import os
import platform
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, Protocol, TextIO

from cairn_action import __version__
from cairn_action.config import Config, LoadedConfig, config_hash
from cairn_action.errors import DataError
from cairn_action.files import is_dir
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.split import SplitName, split_golden
from cairn_action.golden.support import SupportResolution
from cairn_action.index.chunks import Chunk
from cairn_action.index.corpus import Corpus
from cairn_action.providers.base import Answerer
from cairn_action.providers.services import ProviderServices
from cairn_action.retrieval.build_retriever import BuiltRetrieval
from cairn_action.run.artifact import read_artifact, read_header
from cairn_action.run.cache import ResultCache
from cairn_action.run.deps import CaseDeps, Judge
from cairn_action.run.graded import JUDGE_DRAWS
from cairn_action.run.lock import RunLock, lock_path_for
from cairn_action.run.models import Environment, RunHeader
from cairn_action.run.progress import Progress
from cairn_action.run.retrieve import QueryRewriter, Reranker
from cairn_action.run.runner import RunOutcome, execute_run
from cairn_action.run.shard import ShardSpec
from cairn_action.run.target_case import is_retrieving_target

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


def case_workers(header: RunHeader, max_concurrency: int) -> int:
    """Threads the cases run on. A deterministic system over BM25 (the stub answerer and the lexical
    judge, no rewriter or reranker) is Python holding the GIL from the question to the verdict: more
    threads only take turns at it, at some CPU for the switching (issue 27, the offline floor), so it
    runs on one. Anything that waits (a model, a target) or releases the GIL (a query encoder) keeps
    `run.max_concurrency`."""
    if (
        header.deterministic
        and header.retrieval_mode == "bm25"
        and not header.query_rewriting
        and not header.reranker
    ):
        return 1
    return max_concurrency


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


def select_cases(golden: GoldenSet, loaded: LoadedConfig, options: RunOptions) -> list[GoldenCase]:
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


class RunEvaluation(Protocol):
    """A whole evaluation from a loaded config (`commands.compose.run_evaluation`), as the stages below the
    commands receive it (`cairn attack` runs its probes through it)."""

    def __call__(
        self,
        loaded: LoadedConfig,
        options: RunOptions,
        *,
        cwd: Path,
        log: TextIO,
        progress: Progress,
        env: Mapping[str, str] | None = None,
        answerer: Answerer | None = None,
        judge: Judge | None = None,
        now: Callable[[], datetime] = ...,
    ) -> RunOutcome: ...


@dataclass(frozen=True, kw_only=True)
class RunParts:
    """Everything one run is made of, built from the config by the caller (`commands/compose.py`): this
    module only runs them, so a test or another caller can hand in any of them."""

    config: Config
    options: RunOptions
    golden: GoldenSet
    corpus: Corpus
    support: SupportResolution
    cases: Sequence[GoldenCase]
    built: BuiltRetrieval
    answerer: Answerer
    judge: Judge
    rewriter: QueryRewriter | None = None
    reranker: Reranker | None = None
    cache: ResultCache
    services: ProviderServices
    """Closed when the run ends, its summary (spend, rate limits) logged."""


def execute_evaluation(
    parts: RunParts,
    *,
    cwd: Path,
    log: TextIO,
    progress: Progress,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> RunOutcome:
    """Run `parts.cases` into the artifact (a new one, the unfinished one of this very run, or the one
    `options.artifact` names), one run of a config, split and shard at a time; returns the outcome."""
    config, options, golden, built = parts.config, parts.options, parts.golden, parts.built
    answerer, judge, cases = parts.answerer, parts.judge, parts.cases
    start_time = now()
    header = RunHeader(
        cairn_version=__version__,
        config_name=config.name,
        config_hash=config_hash(config, built.embedding_model),
        corpus_hash=parts.corpus.corpus_hash,
        golden_version=golden.version,
        golden_hash=golden.content_hash,
        split=options.split,
        shard=None if options.shard is None else str(options.shard),
        n_cases=len(cases),
        provider=answerer.name,
        model=answerer.model,
        judge=getattr(judge, "label", config.judge.name),
        retrieval_mode="target" if is_retrieving_target(answerer) else built.retriever.mode,
        top_k=config.retrieval.top_k,
        depth=config.retrieval.depth,
        started_at=start_time.strftime("%Y-%m-%dT%H:%M:%SZ"),
        environment=environment(),
        deterministic=is_deterministic(answerer, judge),
        embedding_model=built.embedding_model,
        query_rewriting=parts.rewriter is not None,
        reranker=parts.reranker is not None,
        target_hash=answerer.code_hash() if is_retrieving_target(answerer) else None,  # type: ignore[attr-defined]
        sealed=not golden.answers_held,
    )
    if getattr(answerer, "version", None):
        log.write(f"target reports version {answerer.version} (target_hash {header.target_hash})\n")  # type: ignore[attr-defined]
    support = parts.support
    deps = CaseDeps(
        store=built.store,
        retriever=built.retriever,
        answerer=answerer,
        judge=judge,
        cache=parts.cache,
        support=support.resolved,
        stale=support.stale,
        stale_reasons=support.reasons(),
        changed_documents=support.changed_documents,
        top_k=config.retrieval.top_k,
        depth=config.retrieval.depth,
        golden_lines=dict(golden.line_of),
        planted=options.planted,
        system_canary=options.system_canary,
        rewriter=parts.rewriter,
        reranker=parts.reranker,
        record_spans=not golden.answers_held,
        judge_draws=JUDGE_DRAWS,
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
                max_concurrency=case_workers(header, config.run.max_concurrency),
                progress=progress,
                log=log,
                samples=sample_plan(cases, config, options, deterministic=header.deterministic),
            )
    finally:
        parts.services.close()
    for line in parts.services.summary():
        log.write(f"{line}\n")
    for problem in deps.cache.problems:
        log.write(f"note: {problem}\n")
    return replace(outcome, golden=golden)
