"""`cairn eval` on a real corpus, cold and with a warm index cache, at 1x and 10x the handbook.

Not a test: it prints medians (wall time and peak RSS from /usr/bin/time -v, one fresh process per run).

    .venv/bin/python benchmarks/index_cache.py [--scale 1 10] [--runs 3] [--mode bm25] [--against DIR]

Each scale gets a temporary project folder: a cairn.toml naming the corpus and the handbook golden set
(tests/data/handbook, 15 cases), the stub answerer and the lexical judge. At scale N the corpus is N
copies of the handbook in subfolders copy-0 ... copy-(N-1), and the golden set's quotes point into copy-0
(the other copies are distractors with identical text, so recall is not comparable across scales; time and
memory are). A cold run starts with an empty run.cache_dir; a warm run reuses the index the cold run
wrote. Each round runs every cold build and then every warm run back to back, and the 10x/1x ratio
is the median of the rounds' ratios, so that it is taken pair by pair under one load. `--against DIR`
times another source tree (a checkout of main) in the same rounds, with its own cache folder.
`--in-process` also times reading, chunking and BM25-indexing without the cache (what a cold
build costs), as benchmarks/index_build.py does.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"
GOLDEN = REPO / "tests" / "data" / "handbook"
CAIRN = Path(sys.executable).parent / "cairn"


def make_project(root: Path, scale: int, mode: str) -> Path:
    corpus = root / "corpus"
    if scale == 1:
        corpus = HANDBOOK
    else:
        for i in range(scale):
            shutil.copytree(HANDBOOK, root / "corpus" / f"copy-{i}")
    golden = root / "golden"
    golden.mkdir()
    lines = []
    for line in (GOLDEN / "golden.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if scale > 1:
            for support in case.get("support", []):
                doc = support["doc"].removeprefix("./")
                if "/" not in doc:  # a basename: the one document of that name
                    doc = next(HANDBOOK.rglob(doc)).relative_to(HANDBOOK).as_posix()
                support["doc"] = "copy-0/" + doc
        lines.append(json.dumps(case))
    (golden / "golden.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(GOLDEN / "golden.version", golden / "golden.version")
    (root / "cairn.toml").write_text(
        f'name = "bench"\n[corpus]\npath = "{corpus}"\n[golden]\npath = "golden/golden.jsonl"\n'
        f'[retrieval]\nmode = "{mode}"\n',
        encoding="utf-8",
    )
    return root


def timed_eval(
    project: Path, cache: str = ".cairn", env: dict[str, str] | None = None
) -> tuple[float, float, str, float]:
    """(wall s, peak RSS MB, the `indexed ...` line, user+system CPU s) of one `cairn eval` in its own
    process. CPU time is printed too because wall time on a shared machine mostly measures the others."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", str(CAIRN), "eval", "--cache-dir", cache],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"cairn eval failed ({done.returncode}):\n{done.stderr[-2000:]}")
    wall = re.search(
        r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", done.stderr
    )
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    assert wall and rss, done.stderr[-2000:]
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    indexed = next((ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith("indexed ")), "")
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", done.stderr))
    return seconds, int(rss.group(1)) / 1024, indexed, cpu


def in_process_build(corpus: Path) -> tuple[float, float, float, int, float]:
    """(load s, chunk s, BM25 s, chunks, CPU s of the three): an uncached build, wall times."""
    from cairn_action.index.chunks import build_store
    from cairn_action.index.corpus import load_corpus
    from cairn_action.retrieval.lexical import BM25Retriever

    c0 = time.process_time()
    t0 = time.perf_counter()
    loaded = load_corpus(corpus)
    t1 = time.perf_counter()
    store = build_store(loaded, 800, 160)
    t2 = time.perf_counter()
    BM25Retriever(store)
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, len(store.chunks), time.process_time() - c0


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--mode", default="bm25", choices=["bm25", "dense", "hybrid"])
    parser.add_argument("--in-process", action="store_true", help="also time an uncached build in-process")
    parser.add_argument("--against", type=Path, help="another Cairn source tree to time in the same rounds")
    args = parser.parse_args()
    trees: dict[str, dict[str, str] | None] = {"this tree": None}
    if args.against:
        trees[f"against {args.against}"] = {**os.environ, "PYTHONPATH": str(args.against.resolve())}
    runs: dict[tuple[str, int, str], list[tuple[float, float, str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="cairn-bench-") as tmp:
        projects = {}
        for scale in args.scale:
            (Path(tmp) / f"{scale}x").mkdir()
            projects[scale] = make_project(Path(tmp) / f"{scale}x", scale, args.mode)
        for _ in range(args.runs):
            # Each tree keeps its own cache folder. A round runs every cold build, then every warm run
            # back to back, so the 10x/1x ratio of a round is taken under one load.
            for kind in ("cold", "warm"):
                for t, (tree, env) in enumerate(trees.items()):
                    for scale, project in projects.items():
                        cache = f".cairn-{t}"
                        if kind == "cold":
                            shutil.rmtree(project / cache, ignore_errors=True)
                        runs.setdefault((tree, scale, kind), []).append(timed_eval(project, cache, env))
    print(f"{args.runs} rounds, {args.mode}; load average {os.getloadavg()[0]:.1f} at the end")
    print("| tree | scale | run | median wall | runs | median CPU | median peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for (tree, scale, kind), figures in runs.items():
        walls = [w for w, _, _, _ in figures]
        cpu = statistics.median(c for _, _, _, c in figures)
        print(
            f"| {tree} | {scale}x | {kind} | {statistics.median(walls):.2f} s | "
            f"{', '.join(f'{w:.2f}' for w in walls)} | {cpu:.2f} s | "
            f"{statistics.median(r for _, r, _, _ in figures):.0f} MB |"
        )
    low, high = min(args.scale), max(args.scale)
    for tree in trees:
        if low == high:
            break
        small, large = runs[(tree, low, "warm")], runs[(tree, high, "warm")]
        wall = statistics.median(b[0] / a[0] for a, b in zip(small, large, strict=True))
        cpu = statistics.median(b[3] / a[3] for a, b in zip(small, large, strict=True))
        print(
            f"{tree}: warm {high}x / {low}x, median of the rounds' ratios: wall {wall:.2f}x, CPU {cpu:.2f}x "
            f"(limit 2.0x); {high}x peak RSS {max(r for _, r, _, _ in large):.0f} MB at most (limit 400 MB)"
        )
        print(f"  {high}x warm: {large[-1][2]}")
    if args.in_process:
        for scale in args.scale:
            corpus = projects[scale] / "corpus" if scale > 1 else HANDBOOK
            builds = [in_process_build(corpus) for _ in range(args.runs)]
            load, chunk, index = (statistics.median(b[i] for b in builds) for i in range(3))
            print(
                f"{scale}x uncached build in-process ({builds[0][3]} chunks): load {load:.2f} s, "
                f"chunk {chunk:.2f} s, BM25 {index:.2f} s, total {load + chunk + index:.2f} s wall, "
                f"{statistics.median(b[4] for b in builds):.2f} s CPU"
            )


if __name__ == "__main__":
    main()
