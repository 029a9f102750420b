"""Shards: a stable slice of the cases per machine, and merging the shard artifacts back into one run.

A case's shard comes from the sha256 of its id, so it is the same on every machine and Python version
(never `hash()`, which is salted per process) and does not move when other cases are added or removed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.errors import CairnError, DataError, RefusedComparison
from cairn_action.run.artifact import RunArtifact
from cairn_action.run.models import CaseRecord, LoadedRun, RunHeader

# Header fields that say what was measured: shards that differ in one of them measured different things.
IDENTITY_FIELDS = (
    "schema_version",
    "cairn_version",
    "config_name",
    "config_hash",
    "corpus_hash",
    "golden_version",
    "golden_hash",
    "split",
    "provider",
    "model",
    "judge",
    "retrieval_mode",
    "top_k",
    "depth",
)


@dataclass(frozen=True)
class ShardSpec:
    """Shard `index` of `count`, both 1-based as written on the command line (`2/3`)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index


def parse_shard(text: str) -> ShardSpec:
    """`I/N` → ShardSpec; raises a usage error for anything else (`0/3`, `4/3`, `a/b`)."""
    index_text, sep, count_text = text.partition("/")
    hint = "pass --shard I/N with 1 <= I <= N, e.g. --shard 2/3"
    digits = re.compile(r"\s*[0-9]{1,6}\s*")  # ASCII digits only: "²".isdigit() is True, int("²") fails
    if not sep or not digits.fullmatch(index_text) or not digits.fullmatch(count_text):
        raise CairnError(f"--shard {text!r}: expected I/N", hint)
    index, count = int(index_text), int(count_text)
    if count < 1 or not 1 <= index <= count:
        raise CairnError(f"--shard {text}: the shard number must be between 1 and {max(count, 1)}", hint)
    return ShardSpec(index=index, count=count)


def shard_of(case_id: str, count: int) -> int:
    """The 1-based shard of `case_id` among `count` shards: sha256 of the id, modulo `count`."""
    if count < 1:
        raise ValueError(f"shard count must be at least 1, got {count}")
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def identity(header: RunHeader) -> dict[str, object]:
    """The header fields that must agree for two artifacts to be parts of (or resumptions of) one run."""
    return {name: getattr(header, name) for name in IDENTITY_FIELDS}


@dataclass(frozen=True)
class MergedRun:
    header: RunHeader
    records: tuple[CaseRecord, ...]
    notes: tuple[str, ...]
    """Things worth saying that do not stop the merge (shards measured on different kinds of machine)."""


def _refuse_different_identity(artifacts: Sequence[RunArtifact]) -> None:
    first = artifacts[0]
    reference = identity(first.header)
    for other in artifacts[1:]:
        theirs = identity(other.header)
        diffs = [
            f"{k}: {reference[k]!r} vs {theirs[k]!r}" for k in IDENTITY_FIELDS if reference[k] != theirs[k]
        ]
        if diffs:
            raise RefusedComparison(
                f"{other.path} is not a shard of the same run as {first.path} ({'; '.join(diffs)})",
                "merge only the shards of one `cairn eval --shard I/N` run: same config, corpus, golden "
                "set, split and Cairn version",
            )


def _check_shards(artifacts: Sequence[RunArtifact]) -> int:
    """Every artifact is one distinct shard of the same N, and every shard is there; returns N."""
    specs: dict[str, RunArtifact] = {}
    for artifact in artifacts:
        if artifact.header.shard is None:
            raise DataError(
                f"{artifact.path}: holds a whole run, not a shard (its header has no shard)",
                "merge the artifacts written by `cairn eval --shard I/N`",
            )
        twin = specs.get(artifact.header.shard)
        if twin is not None:
            raise DataError(
                f"{artifact.path}: shard {artifact.header.shard} again (also {twin.path})",
                "pass each shard's artifact once",
            )
        specs[artifact.header.shard] = artifact
    parsed = {key: parse_shard(key) for key in specs}
    counts = {spec.count for spec in parsed.values()}
    if len(counts) != 1:
        raise DataError(
            f"shards of different shard counts: {', '.join(sorted(specs))}",
            "merge the shards of one run, all written with the same N in --shard I/N",
        )
    count = counts.pop()
    missing = [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in specs]
    if missing:
        raise DataError(
            f"missing shard{'s' if len(missing) > 1 else ''} {', '.join(missing)} of {count}",
            "run the missing shards, then merge all of them",
        )
    return count


def _check_records(artifact: RunArtifact, spec: ShardSpec) -> None:
    for record in artifact.records:
        if not spec.holds(record.case_id):
            raise DataError(
                f"{artifact.path}: case {record.case_id} does not belong to shard {spec}",
                "the artifact was edited or written by another Cairn version",
            )
    expected = artifact.header.n_cases
    cases = len({r.case_id for r in artifact.records})
    if expected is not None and cases != expected:
        raise DataError(
            f"{artifact.path}: shard {spec} is unfinished: {cases} of {expected} cases",
            "run the same `cairn eval --shard` command again to finish it, then merge",
        )


def _order(record: CaseRecord) -> tuple[int, str, int]:
    # Golden file order, as an unsharded run writes it; hand-made records without a line sort last by id.
    return (record.golden_line if record.golden_line is not None else 1 << 62, record.case_id, record.sample)


def merge(artifacts: Sequence[RunArtifact]) -> MergedRun:
    """One run from the artifacts of all its shards, in golden file order.

    Refuses (RefusedComparison) shards of different runs, and (DataError) a missing, repeated or
    unfinished shard, a case in two shards, or a case in the wrong shard.
    """
    if not artifacts:
        raise CairnError(
            "nothing to merge", "pass the artifacts of every shard: cairn merge A B ... --out FILE"
        )
    _refuse_different_identity(artifacts)
    _check_shards(artifacts)
    seen: dict[tuple[str, int], RunArtifact] = {}
    records: list[CaseRecord] = []
    for artifact in artifacts:
        spec = parse_shard(artifact.header.shard or "")
        _check_records(artifact, spec)
        for record in artifact.records:
            key = (record.case_id, record.sample)
            if key in seen:
                raise DataError(
                    f"case {record.case_id} is in {seen[key].path} and {artifact.path}",
                    "merge the shards of one run, each once",
                )
            seen[key] = artifact
            records.append(record)
    records.sort(key=_order)
    notes = []
    failed = sum(1 for r in records if r.status == "error")
    if failed:
        notes.append(
            f"{failed} case{'s' if failed > 1 else ''} failed (status error); rerunning the shard "
            "command retries them"
        )
    kinds = {a.header.environment.kind for a in artifacts}
    if len(kinds) > 1:
        notes.append(
            f"the shards ran on different kinds of machine ({', '.join(sorted(kinds))}); "
            f"the merged header records {artifacts[0].header.environment.kind}"
        )
    first = artifacts[0].header
    header = first.model_copy(
        update={
            "shard": None,
            "n_cases": len({r.case_id for r in records}),
            "started_at": min(a.header.started_at for a in artifacts),
        }
    )
    return MergedRun(header=header, records=tuple(records), notes=tuple(notes))


def combine_artifacts(artifacts: Sequence[RunArtifact]) -> LoadedRun:
    """One artifact as it is; several must be the shards of one run, merged."""
    if not artifacts:
        raise CairnError("no run artifact given", "pass the run artifact(s) written by `cairn eval`")
    sources = tuple(str(a.path) for a in artifacts)
    if len(artifacts) == 1:
        only = artifacts[0]
        if only.header.shard is not None:
            raise DataError(
                f"{only.path}: holds only shard {only.header.shard} of a run",
                "pass every shard's artifact together: `cairn score A.jsonl B.jsonl ...`",
            )
        return LoadedRun(header=only.header, records=only.records, where=str(only.path), sources=sources)
    merged = merge(artifacts)
    return LoadedRun(
        header=merged.header,
        records=merged.records,
        where=" + ".join(sources),
        sources=sources,
        notes=merged.notes,
    )
