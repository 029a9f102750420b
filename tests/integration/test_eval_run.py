"""`cairn eval --run-only` end to end: the embedded default, reruns from the cache, a SIGKILL mid-run,
shards merged, and a real, messy corpus (the Sourcegraph handbook)."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from repo_files import HANDBOOK_GOLDEN, handbook_corpus

from cairn_action.cli import main
from cairn_action.commands.compose import run_evaluation
from cairn_action.config import LoadedConfig, load_config
from cairn_action.golden.load import load_golden
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.stub import StubAnswerer
from cairn_action.run.artifact import read_artifact
from cairn_action.run.evaluation import RunOptions
from cairn_action.run.models import CaseRecord
from cairn_action.run.progress import NoProgress
from cairn_action.run.runner import RunOutcome
from cairn_action.sample.generate import generate_corpus
from cairn_action.squad import token_f1

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHIPPED_CASES = 120


class CountingAnswerer:
    """The stub answerer, counting the calls that reach it (a cache hit never does)."""

    def __init__(self) -> None:
        self.inner = StubAnswerer()
        self.deterministic = True  # the stub's answers, counted: asked once per case like the stub
        self.name = self.inner.name
        self.model = self.inner.model
        self.calls: list[str] = []

    def request_key(self, request: AnswerRequest) -> str:
        return self.inner.request_key(request)

    def answer(self, request: AnswerRequest) -> AnswerResult:
        self.calls.append(request.case_id)  # list.append is atomic under the GIL
        return self.inner.answer(request)


def _default_with_cache(workdir: Path, cache: Path) -> LoadedConfig:
    """The embedded default (no cairn.toml in `workdir`), with its cache in `cache`."""
    loaded = load_config(None, cwd=workdir)
    assert loaded.embedded
    run = loaded.config.run.model_copy(update={"cache_dir": str(cache)})
    return loaded.model_copy(update={"config": loaded.config.model_copy(update={"run": run})})


def _run(workdir: Path, cache: Path, artifact: Path, answerer: CountingAnswerer) -> RunOutcome:
    return run_evaluation(
        _default_with_cache(workdir, cache),
        RunOptions(artifact=artifact),
        cwd=workdir,
        log=io.StringIO(),
        progress=NoProgress(),
        answerer=answerer,
    )


def _comparable(record: CaseRecord) -> dict[str, Any]:
    """A record without what may differ between two runs of one configuration: latency, cache provenance."""
    data = record.model_dump(mode="json", exclude={"latency_ms"})
    for call in data["calls"]:
        del call["latency_ms"], call["cached"]
    return data


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder with the seed-7 sample corpus in data/sample, generated once for the session."""
    work = tmp_path_factory.mktemp("eval-work")
    generate_corpus(work / "data" / "sample", seed=7)
    return work


@pytest.fixture(scope="session")
def first_run(
    workdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[RunOutcome, CountingAnswerer, Path]:
    """One full run of the embedded default on a cold cache: (outcome, its answerer, the cache folder)."""
    cache = tmp_path_factory.mktemp("cache")
    answerer = CountingAnswerer()
    outcome = _run(workdir, cache, workdir / "first.jsonl", answerer)
    return outcome, answerer, cache


@pytest.mark.slow
def test_eval__embedded_default__artifact_with_every_shipped_case(
    first_run: tuple[RunOutcome, CountingAnswerer, Path], workdir: Path
) -> None:
    outcome, answerer, _ = first_run
    golden = load_golden(load_config(None, cwd=workdir).golden_path)
    artifact = read_artifact(outcome.path)
    assert len(artifact.records) == SHIPPED_CASES
    assert [r.case_id for r in artifact.records] == [c.id for c in golden.cases]  # golden file order
    assert artifact.header.n_cases == SHIPPED_CASES
    assert artifact.header.config_name == "default" and artifact.header.provider == "stub"
    assert artifact.header.golden_version == golden.version
    assert sorted(answerer.calls) == sorted(c.id for c in golden.cases)  # cold cache: one call per case
    assert outcome.counts["error"] == 0 and outcome.counts["stale"] == 0
    answerable = [r for r in artifact.records if r.answerable]
    assert all(r.support_located for r in answerable)
    assert all(len(r.retrieved) == 10 for r in artifact.records)


def test_eval__embedded_default__stub_baseline_is_respectable(
    first_run: tuple[RunOutcome, CountingAnswerer, Path], workdir: Path
) -> None:
    """The numbers a newcomer sees first, recomputed from the artifact: recall@5 >= 0.85 over the cases
    whose support was located, and the stub's token F1 >= 0.5 on the answerable cases it answered."""
    outcome, _, _ = first_run
    golden = load_golden(load_config(None, cwd=workdir).golden_path).by_id()
    located = [r for r in outcome.records if r.answerable and r.support_located]
    assert len(located) == 90
    recall_at_5 = sum(r.retrieved_support_rank is not None and r.retrieved_support_rank <= 5 for r in located)
    assert recall_at_5 / len(located) >= 0.85
    answered = [r for r in outcome.records if r.answerable and r.status == "answered"]
    f1 = [token_f1(r.answer_text or "", golden[r.case_id].expected_answer or "") for r in answered]
    assert len(answered) >= 45 and sum(f1) / len(f1) >= 0.5


def test_eval__run_again__index_read_from_the_cache_not_rebuilt(
    first_run: tuple[RunOutcome, CountingAnswerer, Path], workdir: Path
) -> None:
    _, _, cache = first_run
    log = io.StringIO()
    run_evaluation(
        _default_with_cache(workdir, cache),
        RunOptions(artifact=workdir / "index-again.jsonl"),
        cwd=workdir,
        log=log,
        progress=NoProgress(),
        answerer=CountingAnswerer(),
    )
    assert "s (chunks cached, BM25 cached)\n" in log.getvalue()
    assert sorted(p.name.split("-")[0] for p in (cache / "index").glob("*.npz")) == ["bm25", "chunks"]
    # the corpus manifest (which documents need no reading next time) is beside the index, not in it
    assert [p.name.split("-")[0] for p in (cache / "manifest").iterdir()] == ["corpus"]


def test_eval__run_twice__identical_records_and_no_answerer_call(
    first_run: tuple[RunOutcome, CountingAnswerer, Path], workdir: Path
) -> None:
    first, _, cache = first_run
    again = CountingAnswerer()
    second = _run(workdir, cache, workdir / "second.jsonl", again)
    assert again.calls == []
    assert all(call.cached for r in second.records for call in r.calls)
    assert [_comparable(r) for r in second.records] == [_comparable(r) for r in first.records]
    assert second.header.model_dump(exclude={"started_at"}) == first.header.model_dump(exclude={"started_at"})


@pytest.mark.slow
def test_eval__three_shards_merged__equal_the_unsharded_run(
    first_run: tuple[RunOutcome, CountingAnswerer, Path], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, _, _ = first_run
    monkeypatch.chdir(workdir)  # the CLI resolves the embedded default and its cache from the working folder
    shards = [workdir / f"shard-{i}.jsonl" for i in (1, 2, 3)]
    for i, path in enumerate(shards, start=1):
        argv = ["eval", "--run-only", "--no-progress", "--split", "all", "--shard", f"{i}/3"]
        code = main([*argv, "--artifact", str(path)])
        assert code == 0
        assert 0 < len(read_artifact(path).records) < SHIPPED_CASES
    merged_path = workdir / "merged.jsonl"
    assert main(["merge", *map(str, reversed(shards)), "--out", str(merged_path)]) == 0
    merged = read_artifact(merged_path)
    assert [_comparable(r) for r in merged.records] == [_comparable(r) for r in first.records]
    assert merged.header.model_dump(exclude={"started_at"}) == first.header.model_dump(exclude={"started_at"})


@pytest.mark.slow
def test_merge__shards_of_different_runs__refused_exit_2(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workdir)
    one = tmp_path / "one.jsonl"
    two = tmp_path / "two.jsonl"
    run = ["eval", "--run-only", "--no-progress"]
    assert main([*run, "--split", "all", "--shard", "1/2", "--artifact", str(one)]) == 0
    assert main([*run, "--split", "eval", "--shard", "2/2", "--artifact", str(two)]) == 0
    capsys.readouterr()
    assert main(["merge", str(one), str(two), "--out", str(tmp_path / "m.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "split: 'all' vs 'eval'" in err and "Traceback" not in err
    assert not (tmp_path / "m.jsonl").exists()


def test_eval__artifact_of_another_run__refused_exit_2(
    workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(workdir)
    path = tmp_path / "run.jsonl"
    assert main(["eval", "--run-only", "--no-progress", "--shard", "1/4", "--artifact", str(path)]) == 0
    before = path.read_bytes()
    assert main(["eval", "--run-only", "--no-progress", "--shard", "2/4", "--artifact", str(path)]) == 2
    assert "holds a different run" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_eval__bad_shard__usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--run-only", "--shard", "4/3"]) == 2
    assert "--shard 4/3" in capsys.readouterr().err


@pytest.fixture
def killed_run(workdir: Path, tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    """A real subprocess running the default slowly, SIGKILLed once 40 cases are in its artifact."""
    artifact, cache, calls = tmp_path / "run.jsonl", tmp_path / "cache", tmp_path / "calls-1.log"
    stderr = (tmp_path / "stderr.txt").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "killable_run.py"),
            str(workdir),
            str(artifact),
            str(cache),
            str(calls),
            "0.04",
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if artifact.exists() and artifact.read_bytes().count(b"\n") >= 41:
                break
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        stderr.close()
    assert process.returncode == -signal.SIGKILL, (tmp_path / "stderr.txt").read_text()
    yield artifact, cache, calls


@pytest.mark.slow
def test_eval__killed_midway__resumes_without_redoing(
    killed_run: tuple[Path, Path, Path], workdir: Path
) -> None:
    artifact, cache, calls_log = killed_run
    before = read_artifact(artifact, drop_incomplete_tail=True)
    done_before = {r.case_id: r for r in before.records}
    assert 40 <= len(done_before) < SHIPPED_CASES  # killed part-way
    called_before = calls_log.read_text().split()

    rerun = CountingAnswerer()
    outcome = _run(workdir, cache, artifact, rerun)

    assert outcome.resumed == len(done_before)
    assert not set(rerun.calls) & set(done_before)  # no finished case is done twice
    # Only calls in flight at the kill can be repeated (their result never reached the cache).
    assert len(set(rerun.calls) & set(called_before)) <= 4
    assert len(rerun.calls) == len(set(rerun.calls))
    after = read_artifact(artifact)
    golden = load_golden(load_config(None, cwd=workdir).golden_path)
    assert [r.case_id for r in after.records] == [c.id for c in golden.cases]
    assert {r.case_id: r for r in after.records if r.case_id in done_before} == done_before


@pytest.mark.slow
def test_eval__sourcegraph_handbook__runs_on_a_real_messy_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    handbook = handbook_corpus()  # the full handbook beside the clone, else the vendored excerpt
    documents = sum(1 for p in handbook.rglob("*.md") if p.is_file())
    monkeypatch.chdir(tmp_path)
    artifact = tmp_path / "handbook.jsonl"
    argv = ["eval", "--run-only", "--no-progress", "--split", "all"]
    argv += ["--corpus", str(handbook), "--golden", str(HANDBOOK_GOLDEN)]
    assert main([*argv, "--artifact", str(artifact)]) == 0
    err = capsys.readouterr().err
    assert f"indexed {documents} documents" in err
    run = read_artifact(artifact)
    golden = load_golden(HANDBOOK_GOLDEN)
    assert [r.case_id for r in run.records] == [c.id for c in golden.cases]
    assert {r.status for r in run.records} <= {"answered", "abstained"}
    answerable = [r for r in run.records if r.answerable]
    assert all(r.support_located for r in answerable)
    # Supports named by corpus-relative path (many documents are called index.md) land in that document.
    for case in golden.cases:
        for support in case.support:
            if "/" in support.doc:
                record = next(r for r in run.records if r.case_id == case.id)
                docs = {chunk_id.split("#")[0] for chunk_id in record.support_chunk_ids}
                assert docs == {support.doc.removeprefix("./")}
    found = [r for r in answerable if r.retrieved_support_rank is not None and r.retrieved_support_rank <= 10]
    assert len(found) >= len(answerable) * 3 // 4


def test_eval__cairn_toml_with_a_copy_of_the_shipped_golden_set__generates_the_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The README's first command from a clone with a non-editable install: cairn.toml names golden/ of the
    # clone, which is not the installed package's embedded copy but is the same set, labelled for the sample.
    shutil.copy(REPO / "cairn.toml", tmp_path / "cairn.toml")
    shutil.copytree(REPO / "golden", tmp_path / "golden")
    monkeypatch.chdir(tmp_path)
    argv = ["eval", "--run-only", "--no-progress", "--shard", "1/8", "--artifact", str(tmp_path / "a.jsonl")]
    assert main(argv) == 0
    assert "generated the sample corpus (seed 7)" in capsys.readouterr().err
    assert (tmp_path / "data" / "sample" / "returns-and-credits-policy.md").is_file()
