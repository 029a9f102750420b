"""Shards: a stable slice by case id, and merging the shard artifacts back into one run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from run_fakes import make_header, make_record

from cairn_action.errors import CairnError, DataError, RefusedComparison
from cairn_action.run.artifact import RunArtifact
from cairn_action.run.models import CaseRecord, RunHeader
from cairn_action.run.shard import ShardSpec, merge, parse_shard, shard_of

IDS = [f"case-{i:03d}" for i in range(1, 121)]


def test_shard_of__pinned_values__same_on_every_machine() -> None:
    # sha256 of the id: these never change (a salted hash() would change them per process).
    assert [shard_of(i, 3) for i in ("com-001", "com-002", "una-006", "ret-014")] == [3, 1, 1, 2]
    assert [shard_of(i, 7) for i in ("com-001", "com-002", "una-006", "ret-014")] == [4, 3, 1, 5]


def test_shard_of__another_process_with_another_hash_seed__agrees() -> None:
    code = (
        "from cairn_action.run.shard import shard_of\n"
        "print([shard_of(f'case-{i:03d}', 5) for i in range(50)])"
    )
    repo = Path(__file__).resolve().parents[3]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=repo,
            env={"PYTHONHASHSEED": seed, "PYTHONPATH": str(repo)},
        ).stdout
        for seed in ("1", "2")
    }
    assert outputs == {f"{[shard_of(f'case-{i:03d}', 5) for i in range(50)]}\n"}


def test_shard_of__every_case_in_exactly_one_shard__roughly_even() -> None:
    for n in (1, 2, 3, 8):
        shards = [shard_of(i, n) for i in IDS]
        assert set(shards) <= set(range(1, n + 1))
        counts = [shards.count(s) for s in range(1, n + 1)]
        assert sum(counts) == len(IDS)
        assert min(counts) >= len(IDS) / n / 2  # no empty or starved shard


def test_shard_of__adding_cases__moves_no_existing_case() -> None:
    before = {i: shard_of(i, 4) for i in IDS}
    after = {i: shard_of(i, 4) for i in [*IDS, "new-1", "new-2"]}
    assert all(after[i] == before[i] for i in IDS)


@pytest.mark.parametrize("text", ["1/3", "3/3", " 2/3", "1/1"])
def test_parse_shard__valid(text: str) -> None:
    spec = parse_shard(text)
    assert str(spec) == text.strip()


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "2", "-1/3", "1/3/4", ""])
def test_parse_shard__invalid__usage_error_with_hint(text: str) -> None:
    with pytest.raises(CairnError) as caught:
        parse_shard(text)
    assert caught.value.exit_code == 2
    assert "I/N" in caught.value.hint


def _shard_artifacts(n: int = 3, ids: list[str] = IDS[:30], **header: object) -> list[RunArtifact]:
    artifacts = []
    for index in range(1, n + 1):
        spec = ShardSpec(index, n)
        records = [make_record(cid, IDS.index(cid) + 1) for cid in ids if spec.holds(cid)]
        head = make_header(shard=str(spec), n_cases=len(records), **header)
        artifacts.append(RunArtifact(path=Path(f"shard-{index}.jsonl"), header=head, records=tuple(records)))
    return artifacts


def _replace(
    artifact: RunArtifact, *, header: RunHeader | None = None, records: list[CaseRecord] | None = None
) -> RunArtifact:
    return RunArtifact(
        path=artifact.path,
        header=header or artifact.header,
        records=tuple(records if records is not None else artifact.records),
    )


def test_merge__all_shards__one_run_in_golden_order() -> None:
    shards = _shard_artifacts()
    merged = merge(list(reversed(shards)))
    assert [r.case_id for r in merged.records] == IDS[:30]
    assert merged.header.shard is None
    assert merged.header.n_cases == 30
    assert merged.header.model_dump(exclude={"shard", "n_cases"}) == shards[0].header.model_dump(
        exclude={"shard", "n_cases"}
    )
    assert merged.notes == ()


def test_merge__different_config__refused_naming_the_field() -> None:
    shards = _shard_artifacts()
    other = _replace(
        shards[1], header=shards[1].header.model_copy(update={"config_hash": "ffffffffffffffff"})
    )
    with pytest.raises(RefusedComparison, match="config_hash"):
        merge([shards[0], other, shards[2]])


@pytest.mark.parametrize("field", ["corpus_hash", "golden_version", "golden_hash", "model", "split"])
def test_merge__different_identity__refused(field: str) -> None:
    shards = _shard_artifacts()
    value = "eval" if field == "split" else "different"
    other = _replace(shards[2], header=shards[2].header.model_copy(update={field: value}))
    with pytest.raises(RefusedComparison, match=field):
        merge([shards[0], shards[1], other])


def test_merge__missing_shard__refused() -> None:
    shards = _shard_artifacts()
    with pytest.raises(DataError, match="missing shard 2/3"):
        merge([shards[0], shards[2]])


def test_merge__same_shard_twice__refused() -> None:
    shards = _shard_artifacts()
    with pytest.raises(DataError, match="shard 1/3 again"):
        merge([shards[0], shards[0], shards[1], shards[2]])


def test_merge__unfinished_shard__refused() -> None:
    shards = _shard_artifacts()
    short = _replace(shards[1], records=list(shards[1].records[:-1]))
    with pytest.raises(DataError, match="unfinished"):
        merge([shards[0], short, shards[2]])


def test_merge__case_in_the_wrong_shard__refused() -> None:
    shards = _shard_artifacts()
    stray = shards[0].records[0]
    moved = _replace(shards[1], records=[*shards[1].records, stray])
    moved = _replace(moved, header=moved.header.model_copy(update={"n_cases": len(moved.records)}))
    with pytest.raises(DataError, match=f"case {stray.case_id} does not belong to shard 2/3"):
        merge([shards[0], moved, shards[2]])


def test_merge__duplicate_case__refused() -> None:
    # Two "shard" files that are each 1/1 cannot both be passed; a case twice across shards is refused.
    shards = _shard_artifacts(n=1)
    doubled = _replace(shards[0], records=[*shards[0].records])
    with pytest.raises(DataError, match="again"):
        merge([shards[0], doubled])


def test_merge__whole_run__refused() -> None:
    whole = RunArtifact(path=Path("run.jsonl"), header=make_header(), records=())
    with pytest.raises(DataError, match="not a shard"):
        merge([whole])


def test_merge__shards_of_different_n__refused() -> None:
    threes = _shard_artifacts(3)
    twos = _shard_artifacts(2)
    with pytest.raises(DataError, match="different shard counts: 1/3, 2/2"):
        merge([threes[0], twos[1]])


def test_merge__nothing__usage_error() -> None:
    with pytest.raises(CairnError, match="nothing to merge"):
        merge([])


def test_merge__failed_cases__kept_and_noted() -> None:
    shards = _shard_artifacts()
    failed = shards[0].records[0].model_copy(update={"status": "error", "error": "provider down"})
    first = _replace(shards[0], records=[failed, *shards[0].records[1:]])
    merged = merge([first, shards[1], shards[2]])
    assert any("1 case failed" in note for note in merged.notes)
    assert len(merged.records) == 30
