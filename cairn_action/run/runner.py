"""The run: every case through the pipeline, concurrently, journaled to the artifact as it finishes.

An existing artifact at the path is resumed when its header matches this run's (apart from
`started_at`): finished cases are kept, failed ones (status `error`) are retried, and an incomplete last
line left by a kill is dropped, with a message. Records are appended in completion order while the run
goes; once every case is done the artifact is rewritten atomically in golden file order, so two runs of
the same configuration produce the same file apart from latency.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cairn_action.errors import DataError, InfrastructureError
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.run.artifact import ArtifactAppender, read_artifact, write_artifact
from cairn_action.run.deps import CaseDeps
from cairn_action.run.models import BUDGET_ERROR_PREFIX, CaseRecord, RunHeader
from cairn_action.run.pipeline import run_case
from cairn_action.run.progress import Progress
from cairn_action.startup import settle_startup

STATUSES = ("answered", "abstained", "error", "stale")


@dataclass(frozen=True)
class RunOutcome:
    """A finished run: where its artifact is, and what happened."""

    path: Path
    header: RunHeader
    records: tuple[CaseRecord, ...]
    """Every sample of every case, in golden file order then sample order."""
    resumed_ids: frozenset[tuple[str, int]]
    """(case, sample) records kept from an earlier, interrupted run of the same artifact."""
    golden: GoldenSet | None = None
    """The golden set the run read (`run.evaluation.execute_evaluation` sets it), for scoring in the same
    process without reading and validating the file again."""

    @property
    def first_pass(self) -> tuple[CaseRecord, ...]:
        """Sample 0 of every case: what the aggregate metrics read."""
        return tuple(r for r in self.records if r.sample == 0)

    @property
    def resumed(self) -> int:
        return sum(1 for _, sample in self.resumed_ids if sample == 0)

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.first_pass)

    @property
    def failed(self) -> list[str]:
        return [r.case_id for r in self.first_pass if r.status == "error"]

    def calls_made(self) -> tuple[int, int]:
        """Provider calls this process made and served from the cache (resumed records left out)."""
        calls = [c for r in self.records if (r.case_id, r.sample) not in self.resumed_ids for c in r.calls]
        made = sum(1 for c in calls if not c.cached)
        return made, len(calls) - made

    def check_failures(self) -> None:
        """InfrastructureError when most cases failed: a report of the rest would look like a measurement.

        A target whose every reply misses `answer` (or any provider misconfigured) errors on most cases;
        scoring the few left, or writing a baseline from them, would hide that behind good-looking numbers.
        """
        # A case the budget skipped is not a failure of the system: the report's budget check says so.
        first = self.first_pass  # a case's later samples are not more cases
        failed = [
            r for r in first if r.status == "error" and not (r.error or "").startswith(BUDGET_ERROR_PREFIX)
        ]
        if not first or len(failed) * 2 <= len(first):
            return
        reasons = Counter((r.error or "no message").splitlines()[0][:300] for r in failed)
        reason, n = reasons.most_common(1)[0]
        every = "every case" if len(failed) == len(first) else "most cases"
        raise InfrastructureError(
            f"{every} failed ({len(failed)} of {len(first)}); {n} of them: {reason}",
            "fix the target or provider (the run artifact keeps each raw reply), then rerun the same "
            "command: finished cases are kept, failed ones retried",
        )

    def summary(self) -> list[str]:
        """The end-of-run lines: counts by status, provider calls, failures."""
        counts = self.counts
        parts = ", ".join(f"{counts[s]} {s if s != 'error' else 'failed'}" for s in STATUSES)
        first = self.first_pass
        # These are the system's own replies; the report's answer rate comes after the abstention
        # threshold, which may withhold some of these answers: say so, or the two figures contradict.
        lines = [f"{len(first)} cases: {parts} (as the system replied, before the abstention threshold)"]
        if self.resumed:
            lines[0] += f" ({self.resumed} resumed from the artifact)"
        extra = len(self.records) - len(first)
        if extra:
            asked = len({r.case_id for r in self.records if r.sample})
            lines.append(f"{extra} more sample(s) of {asked} case(s)")
        made, cached = self.calls_made()
        lines.append(f"provider calls this run: {made} made, {cached} served from the cache")
        failed = self.failed
        if failed:
            shown = ", ".join(failed[:10]) + (", ..." if len(failed) > 10 else "")
            lines.append(
                f"{len(failed)} case{'s' if len(failed) > 1 else ''} failed: {shown}; "
                "rerun the same command to retry them"
            )
        return lines


def _differences(theirs: RunHeader, ours: RunHeader) -> list[str]:
    a = theirs.model_dump(mode="json", exclude={"started_at"})
    b = ours.model_dump(mode="json", exclude={"started_at"})
    return [f"{key}: {a[key]!r} there, {b[key]!r} now" for key in b if a.get(key) != b[key]]


def _resume(
    path: Path, header: RunHeader, cases: Sequence[GoldenCase], log: TextIO
) -> tuple[RunHeader, list[CaseRecord]]:
    """The header to keep and the finished records of an interrupted run at `path` (cleaned up on disk)."""
    artifact = read_artifact(path, drop_incomplete_tail=True)
    differences = _differences(artifact.header, header)
    if differences:
        raise DataError(
            f"{path}: holds a different run, so it cannot be resumed ({'; '.join(differences)})",
            "pass another --artifact, or delete this one to start over",
        )
    wanted = {c.id for c in cases}
    for record in artifact.records:
        if record.case_id not in wanted:
            raise DataError(
                f"{path}: case {record.case_id} is not in this run's golden set and split",
                "pass another --artifact, or delete this one to start over",
            )
    kept = [r for r in artifact.records if r.status != "error"]
    retried = len(artifact.records) - len(kept)
    if artifact.dropped is not None:
        log.write(
            f"{path}:{artifact.dropped.line}: incomplete last line ({artifact.dropped.length} bytes) "
            "left by an interrupted run: dropped, its case runs again\n"
        )
    if retried:
        log.write(f"{path}: retrying {retried} case{'s' if retried > 1 else ''} that failed\n")
    first = sum(1 for r in kept if r.sample == 0)
    if first < len(cases):
        log.write(f"resuming {path}: {first} of {len(cases)} cases already done\n")
    if artifact.dropped is not None or retried:
        write_artifact(path, artifact.header, kept)  # atomically drop the broken tail and the failures
    return artifact.header, kept


def execute_run(
    *,
    cases: Sequence[GoldenCase],
    header: RunHeader,
    path: Path,
    deps: CaseDeps,
    max_concurrency: int,
    progress: Progress,
    log: TextIO,
    samples: Mapping[str, int] | None = None,
) -> RunOutcome:
    """Run `cases` (in golden file order) into the artifact at `path`, resuming it if it exists.

    `samples` says how many asks a case gets (default 1); records already there are kept, including
    samples beyond what is asked now. Work already recorded is never redone and never lost: each record
    is on disk before the next one is counted, and an exception (a bug, Ctrl-C) leaves every finished
    record in the artifact.
    """
    settle_startup()  # the run's modules are imported; its cases make the garbage worth collecting
    path = Path(path)
    wanted = samples or {}
    done: dict[tuple[str, int], CaseRecord] = {}
    if path.exists():
        header, kept = _resume(path, header, cases, log)
        done = {(r.case_id, r.sample): r for r in kept}
        appender = ArtifactAppender(path)
    else:
        appender = ArtifactAppender.create(path, header)
    resumed = frozenset(done)
    pending = [
        (case, sample)
        for sample in range(max([1, *wanted.values()]))  # first passes before repeats
        for case in cases
        if sample < wanted.get(case.id, 1) and (case.id, sample) not in done
    ]
    total = sum(wanted.get(c.id, 1) for c in cases)
    progress.start(total, total - len(pending))
    with appender, ThreadPoolExecutor(max_workers=max(1, min(max_concurrency, len(pending)))) as pool:
        futures = [pool.submit(run_case, case, deps, sample) for case, sample in pending]
        try:
            for future in as_completed(futures):
                record = future.result()
                appender.append(record)
                done[(record.case_id, record.sample)] = record
                progress.advance(record)
        except BaseException:
            # Cases not started yet are dropped; those in flight finish (their answers reach the cache).
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            progress.finish()
    by_case: dict[str, list[CaseRecord]] = {}
    for key in sorted(done, key=lambda k: k[1]):
        by_case.setdefault(key[0], []).append(done[key])
    ordered = tuple(record for c in cases for record in by_case[c.id])
    write_artifact(path, header, ordered)
    return RunOutcome(path=path, header=header, records=ordered, resumed_ids=resumed)
