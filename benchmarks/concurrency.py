"""Does a run reach its concurrency limit? 120 cases against a model API with a fixed latency L.

Each case makes one call to a loopback OpenAI-compatible server (`tests/fakes/openai_server.py`, in its
own process, as a real API would be) that answers every request exactly L seconds after it arrived.
With C calls in flight no run can finish faster than ceil(N / C) * L; the ratio of the measured wall
time to that limit says what the run itself (retrieval, prompt building, HTTP, parsing, caching each
answer and journaling each record, all fsynced) costs on top. The clock runs from the first case
started to the last case recorded, so loading the corpus and building the index are not counted.
Every run uses a fresh cache (a cached run makes no call) and counts the requests the server saw
(`calls/case` should read 1.00).

    .venv/bin/python benchmarks/concurrency.py [--latency 0.25] [--repeats 3] [--concurrency 1 4 16]

Not a test: it prints medians and ratios, it asserts nothing about time.
"""

from __future__ import annotations

import argparse
import io
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from cairn_action.commands.compose import run_evaluation
from cairn_action.config import load_config
from cairn_action.run.evaluation import RunOptions
from cairn_action.run.models import CaseRecord
from cairn_action.sample.generate import generate_corpus

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "golden" / "golden.jsonl"
FAKE = REPO / "tests" / "fakes" / "openai_server.py"


class FakeServerProcess:
    """The fake API in a child process: its base URL, and how many requests it has seen."""

    def __init__(self, latency_s: float) -> None:
        self._process = subprocess.Popen(
            [sys.executable, str(FAKE), "--latency", str(latency_s)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self._process.stdout is not None
        self.base_url = self._process.stdout.readline().strip()
        self.root = self.base_url.removesuffix("/v1")

    def requests_seen(self) -> int:
        return int(requests.get(f"{self.root}/_fake/requests", timeout=5).text)

    def __enter__(self) -> FakeServerProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)


class Stopwatch:
    """A `Progress` that notes when the first case starts and when the last one is recorded."""

    def __init__(self) -> None:
        self.started = self.finished = 0.0
        self.records = 0

    def start(self, total: int, done: int) -> None:
        self.started = time.perf_counter()

    def advance(self, record: CaseRecord) -> None:
        self.records += 1

    def finish(self) -> None:
        self.finished = time.perf_counter()

    @property
    def seconds(self) -> float:
        return self.finished - self.started


def one_run(
    workdir: Path, corpus: Path, server: FakeServerProcess, concurrency: int, label: str
) -> tuple[float, int, int]:
    """Wall seconds of the run phase, the cases run, and the requests the server received."""
    folder = workdir / label
    folder.mkdir()
    (folder / "cairn.toml").write_text(
        f"""name = "bench"
[corpus]
path = "{corpus}"
[golden]
path = "{GOLDEN}"
[provider]
name = "openai"
model = "gpt-4o-mini"
base_url = "{server.base_url}"
[run]
max_concurrency = {concurrency}
cache_dir = "{folder / "cache"}"
""",
        encoding="utf-8",
    )
    loaded = load_config(folder / "cairn.toml")
    before = server.requests_seen()
    watch = Stopwatch()
    outcome = run_evaluation(
        loaded,
        RunOptions(split="all", artifact=folder / "run.jsonl"),
        cwd=folder,
        log=io.StringIO(),
        progress=watch,
    )
    failed = outcome.failed
    if failed:
        raise SystemExit(f"{len(failed)} cases failed, e.g. {failed[0]}: the benchmark measures nothing")
    return watch.seconds, len(outcome.records), server.requests_seen() - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--latency", type=float, default=0.25, help="server latency L in seconds (default 0.25)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="runs per concurrency; the median is quoted")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="cairn-bench-") as tmp:
        workdir = Path(tmp)
        corpus = workdir / "corpus"
        generate_corpus(corpus, seed=7)
        with FakeServerProcess(args.latency) as server:
            one_run(workdir, corpus, server, 16, "warm-up")  # imports, first connections, bm25s
            rows = []
            for concurrency in args.concurrency:
                walls, cases, calls = [], 0, 0
                for repeat in range(args.repeats):
                    seconds, cases, made = one_run(
                        workdir, corpus, server, concurrency, f"c{concurrency}-r{repeat}"
                    )
                    walls.append(seconds)
                    calls += made
                limit = math.ceil(cases / concurrency) * args.latency
                median = statistics.median(walls)
                rows.append((concurrency, cases, calls / (cases * args.repeats), walls, median, limit))

    print(f"N cases, latency L = {args.latency:g}s, {args.repeats} runs each; limit = ceil(N/C)·L")
    header = (
        ("C", 3),
        ("N", 4),
        ("calls/case", 10),
        ("runs (s)", -26),
        ("median s", 8),
        ("limit s", 7),
        ("ratio", 5),
    )
    print("  ".join(name.rjust(width) if width > 0 else name.ljust(-width) for name, width in header))
    for concurrency, cases, per_case, walls, median, limit in rows:
        runs = " ".join(f"{w:.2f}" for w in walls)
        print(
            f"{concurrency:>3}  {cases:>4}  {per_case:>10.2f}  {runs:<26}  "
            f"{median:>8.2f}  {limit:>7.2f}  {median / limit:>5.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
