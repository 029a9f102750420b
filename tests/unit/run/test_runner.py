"""The run loop: concurrency, deterministic order, resume from an interrupted artifact, failures."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest
from run_fakes import CountingAnswerer, make_case, make_deps, make_header

from cairn_action.errors import DataError, InfrastructureError
from cairn_action.golden.models import GoldenCase
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.run.artifact import read_artifact
from cairn_action.run.deps import CaseDeps
from cairn_action.run.progress import BarProgress, EmbeddingRate, LineProgress, NoProgress, make_progress
from cairn_action.run.runner import RunOutcome, execute_run

CASES = tuple(make_case(f"q{i}") for i in range(1, 9))


def _run(
    path: Path,
    deps: CaseDeps,
    cases: tuple[GoldenCase, ...] = CASES,
    concurrency: int = 4,
    log: io.StringIO | None = None,
) -> RunOutcome:
    return execute_run(
        cases=cases,
        header=make_header(n_cases=len(cases)),
        path=path,
        deps=deps,
        max_concurrency=concurrency,
        progress=NoProgress(),
        log=log or io.StringIO(),
    )


def _distinct(question_suffix: str) -> tuple[GoldenCase, ...]:
    # Distinct questions give distinct cache keys, so every case reaches the answerer.
    return tuple(c.model_copy(update={"question": f"{c.question} ({c.id}{question_suffix})"}) for c in CASES)


def test_run__concurrent__uses_several_workers_and_writes_golden_order(tmp_path: Path) -> None:
    in_flight, peak, lock = 0, 0, threading.Lock()
    both_running = threading.Barrier(2, timeout=5)

    def behaviour(request: AnswerRequest) -> AnswerResult:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        if request.case_id in ("q1", "q2"):
            both_running.wait()  # only returns if q1 and q2 are answered at the same time
        # Later cases finish first, so completion order is not golden order.
        time.sleep(0.002 * (9 - int(request.case_id[1:])))
        with lock:
            in_flight -= 1
        return AnswerResult(answer_text="14 days", confidence=0.5)

    cases = _distinct("")
    path = tmp_path / "run.jsonl"
    outcome = _run(path, make_deps(tmp_path, CountingAnswerer(behaviour), cases=cases), cases)
    assert peak >= 2
    assert [r.case_id for r in read_artifact(path).records] == [c.id for c in CASES]
    assert [r.case_id for r in outcome.records] == [c.id for c in CASES]
    assert [r.golden_line for r in outcome.records] == list(range(1, 9))


def test_run__interrupted_artifact__resumes_without_redoing(tmp_path: Path) -> None:
    cases = _distinct("")
    path = tmp_path / "run.jsonl"
    _run(path, make_deps(tmp_path / "a", cases=cases), cases)
    lines = path.read_bytes().split(b"\n")
    # An interrupted run: header, records of q1..q3, and half of q4's line.
    path.write_bytes(b"\n".join(lines[:4]) + b"\n" + lines[4][:30])
    answerer = CountingAnswerer()
    log = io.StringIO()
    outcome = _run(path, make_deps(tmp_path / "b", answerer, cases=cases), cases, log=log)
    assert sorted(answerer.calls) == ["q4", "q5", "q6", "q7", "q8"]
    assert outcome.resumed == 3
    assert f"{path}:5: incomplete last line" in log.getvalue()
    assert "3 of 8 cases already done" in log.getvalue()
    assert [r.case_id for r in read_artifact(path).records] == [c.id for c in CASES]


def test_run__complete_artifact__nothing_to_do(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _run(path, make_deps(tmp_path, cases=CASES))
    answerer = CountingAnswerer()
    outcome = _run(path, make_deps(tmp_path / "other-cache", answerer, cases=CASES))
    assert answerer.calls == [] and outcome.resumed == 8


def test_run__artifact_of_another_run__refused(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    _run(path, make_deps(tmp_path, cases=CASES))
    with pytest.raises(DataError, match=r"holds a different run.*config_hash"):
        execute_run(
            cases=CASES,
            header=make_header(n_cases=8, config_hash="ffffffffffffffff"),
            path=path,
            deps=make_deps(tmp_path, cases=CASES),
            max_concurrency=2,
            progress=NoProgress(),
            log=io.StringIO(),
        )


def test_run__failed_cases__recorded_then_retried_on_resume(tmp_path: Path) -> None:
    cases = _distinct("")

    def flaky(request: AnswerRequest) -> AnswerResult:
        if request.case_id in ("q2", "q5"):
            raise InfrastructureError(f"provider down for {request.case_id}")
        return AnswerResult(answer_text="14 days")

    path = tmp_path / "run.jsonl"
    first = _run(path, make_deps(tmp_path, CountingAnswerer(flaky), cases=cases), cases)
    assert first.failed == ["q2", "q5"]
    assert first.counts["answered"] == 6
    assert any("2 cases failed: q2, q5" in line for line in first.summary())
    retry = CountingAnswerer()
    log = io.StringIO()
    second = _run(path, make_deps(tmp_path, retry, cases=cases), cases, log=log)
    assert sorted(retry.calls) == ["q2", "q5"]
    assert second.failed == []
    assert "retrying 2 cases that failed" in log.getvalue()


def test_run__bug_midway__finished_records_stay_in_the_artifact(tmp_path: Path) -> None:
    cases = _distinct("")

    def buggy(request: AnswerRequest) -> AnswerResult:
        if request.case_id == "q6":
            raise ZeroDivisionError("bug")
        return AnswerResult(answer_text="14 days")

    path = tmp_path / "run.jsonl"
    with pytest.raises(ZeroDivisionError):
        _run(path, make_deps(tmp_path, CountingAnswerer(buggy), cases=cases), cases, concurrency=1)
    kept = [r.case_id for r in read_artifact(path).records]
    assert kept[:5] == ["q1", "q2", "q3", "q4", "q5"]
    assert "q6" not in kept


def test_run__summary__counts_statuses_and_cache(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    # The cases ask the same question over the same chunks: one cache key, so one call, in sequence.
    outcome = _run(path, make_deps(tmp_path, cases=CASES), concurrency=1)
    assert outcome.summary() == [
        "8 cases: 8 answered, 0 abstained, 0 failed, 0 stale"
        " (as the system replied, before the abstention threshold)",
        "provider calls this run: 1 made, 7 served from the cache",
    ]


def test_line_progress__prints_every_n_cases_and_at_the_end(tmp_path: Path) -> None:
    stream = io.StringIO()
    ticks = iter(range(1000))
    progress = LineProgress(stream, clock=lambda: float(next(ticks)) / 1000, every_cases=3, every_s=100.0)
    deps = make_deps(tmp_path, cases=CASES)
    execute_run(
        cases=CASES,
        header=make_header(n_cases=8),
        path=tmp_path / "run.jsonl",
        deps=deps,
        max_concurrency=1,
        progress=progress,
        log=io.StringIO(),
    )
    lines = stream.getvalue().splitlines()
    assert [line.split(" cases")[0] for line in lines] == [
        "cairn eval: 3/8",
        "cairn eval: 6/8",
        "cairn eval: 8/8",
    ]
    assert "\r" not in stream.getvalue()


def test_bar_progress__redraws_in_place_and_ends_the_line(tmp_path: Path) -> None:
    stream = io.StringIO()
    ticks = iter(range(1000))
    progress = BarProgress(stream, clock=lambda: float(next(ticks)))  # 1 s between readings: every redraw
    execute_run(
        cases=CASES,
        header=make_header(n_cases=8),
        path=tmp_path / "run.jsonl",
        deps=make_deps(tmp_path, cases=CASES),
        max_concurrency=1,
        progress=progress,
        log=io.StringIO(),
    )
    out = stream.getvalue()
    assert out.startswith("\r[------------------------------] 0/8 cases (0%)")
    assert "\r[##############################] 8/8 cases (100%)" in out
    assert out.endswith("\n") and out.count("\n") == 1


def test_make_progress__terminal_bar__ci_lines__or_none() -> None:
    stream = io.StringIO()
    assert isinstance(make_progress(stream, enabled=True, is_tty=True), BarProgress)
    assert isinstance(make_progress(stream, enabled=True, is_tty=False), LineProgress)
    assert isinstance(make_progress(stream, enabled=False, is_tty=True), NoProgress)


def test_embedding_rate__checkpoints__say_the_rate_and_the_time_left() -> None:
    lines: list[str] = []
    now = [100.0]
    rate = EmbeddingRate(lines.append, clock=lambda: now[0])
    rate("chunks", 0, 2000)
    now[0] = 110.0
    rate("chunks", 512, 2000)  # 51.2/s: 1488 more take 29 s
    now[0] = 130.0
    rate("chunks", 2000, 2000)
    rate("sentences", 0, 90)  # a new kind starts its own clock
    now[0] = 131.0
    rate("sentences", 90, 90)
    assert lines == [
        "embedding 2000 new chunks (cached as they go)\n",
        "embedded 512 of 2000 new chunks (51.2/s, about 29s left)\n",
        "embedded 2000 of 2000 new chunks (66.7/s)\n",
        "embedding 90 new sentences (cached as they go)\n",
        "embedded 90 of 90 new sentences (90.0/s)\n",
    ]
