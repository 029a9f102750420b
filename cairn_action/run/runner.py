"""The run: every case through the pipeline, concurrently, journaled to the artifact as it finishes.

An existing artifact at the path is resumed when its header matches this run's (apart from
`started_at`): finished cases are kept, failed ones (status `error`) are retried, and an incomplete last
line left by a kill is dropped, with a message. Records are appended in completion order while the run
goes; once every case is done the artifact is rewritten atomically in golden file order, so two runs of
the same configuration produce the same file apart from latency.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from cairn_action.errors import DataError, InfrastructureError
from cairn_action.golden.models import GoldenCase
from cairn_action.run.artifact import ArtifactAppender, read_artifact, write_artifact
from cairn_action.run.deps import CaseDeps
from cairn_action.run.models import BUDGET_ERROR_PREFIX, CaseRecord, RunHeader
from cairn_action.run.pipeline import run_case
from cairn_action.run.progress import Progress

STATUSES = ("answered", "abstained", "error", "stale")


@dataclass(frozen=True)
class RunOutcome:
    """A finished run: where its artifact is, and what happened."""

    path: Path
    header: RunHeader
    records: tuple[CaseRecord, ...]
    resumed_ids: frozenset[str]
    """Cases whose records were kept from an earlier, interrupted run of the same artifact."""

    @property
    def resumed(self) -> int:
        return len(self.resumed_ids)

    @property
    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.records)

    @property
    def failed(self) -> list[str]:
        return [r.case_id for r in self.records if r.status == "error"]

    def check_failures(self) -> None:
        """InfrastructureError when most cases failed: a report of the rest would look like a measurement.

        A target whose every reply misses `answer` (or any provider misconfigured) errors on most cases;
        scoring the few left, or writing a baseline from them, would hide that behind good-looking numbers.
        """
        # A case the budget skipped is not a failure of the system: the report's budget check says so.
        failed = [
            r
            for r in self.records
            if r.status == "error" and not (r.error or "").startswith(BUDGET_ERROR_PREFIX)
        ]
        if not self.records or len(failed) * 2 <= len(self.records):
            return
        reasons = Counter((r.error or "no message").splitlines()[0][:300] for r in failed)
        reason, n = reasons.most_common(1)[0]
        every = "every case" if len(failed) == len(self.records) else "most cases"
        raise InfrastructureError(
            f"{every} failed ({len(failed)} of {len(self.records)}); {n} of them: {reason}",
            "fix the target or provider (the run artifact keeps each raw reply), then rerun the same "
            "command: finished cases are kept, failed ones retried",
        )

    def summary(self) -> list[str]:
        """The end-of-run lines: counts by status, provider calls, failures."""
        counts = self.counts
        parts = ", ".join(f"{counts[s]} {s if s != 'error' else 'failed'}" for s in STATUSES)
        lines = [f"{len(self.records)} cases: {parts}"]
        if self.resumed:
            lines[0] += f" ({self.resumed} resumed from the artifact)"
        calls = [c for r in self.records if r.case_id not in self.resumed_ids for c in r.calls]
        made = sum(1 for c in calls if not c.cached)
        lines.append(f"provider calls this run: {made} made, {len(calls) - made} served from the cache")
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
    if len(kept) < len(cases):
        log.write(f"resuming {path}: {len(kept)} of {len(cases)} cases already done\n")
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
) -> RunOutcome:
    """Run `cases` (in golden file order) into the artifact at `path`, resuming it if it exists.

    Work already recorded is never redone and never lost: each record is on disk before the next one
    is counted, and an exception (a bug, Ctrl-C) leaves every finished record in the artifact.
    """
    path = Path(path)
    done: dict[str, CaseRecord] = {}
    if path.exists():
        header, kept = _resume(path, header, cases, log)
        done = {r.case_id: r for r in kept}
        appender = ArtifactAppender(path)
    else:
        appender = ArtifactAppender.create(path, header)
    resumed = frozenset(done)
    pending = [c for c in cases if c.id not in done]
    progress.start(len(cases), len(resumed))
    with appender, ThreadPoolExecutor(max_workers=max(1, min(max_concurrency, len(pending)))) as pool:
        futures = [pool.submit(run_case, case, deps) for case in pending]
        try:
            for future in as_completed(futures):
                record = future.result()
                appender.append(record)
                done[record.case_id] = record
                progress.advance(record)
        except BaseException:
            # Cases not started yet are dropped; those in flight finish (their answers reach the cache).
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            progress.finish()
    ordered = tuple(done[c.id] for c in cases)
    write_artifact(path, header, ordered)
    return RunOutcome(path=path, header=header, records=ordered, resumed_ids=resumed)
