"""The offline floor: what `cairn eval` on the shipped sample costs beyond importing its dependencies.

Not a test: it prints medians and ratios against the limits of issue 27, asserting nothing.

    .venv/bin/python benchmarks/offline_floor.py [--runs 5] [--against DIR]

`--against DIR` also times `cairn eval` with the Cairn source tree in DIR first on the path (a checkout of
main, say: `git worktree add /tmp/cairn-main main`), in the same rounds, so before and after are
measured under the same load.

A temporary project holds the repository's cairn.toml, calibration and golden set; the sample corpus is
generated into it once (not timed). Each round, in fresh processes, one after the other so that their
ratio is taken under the same load:
- `imports`: `python -c "import numpy, pydantic, jinja2, tabulate, requests, bm25s, Stemmer"`, the
  dependencies an offline eval could need (the floor no Python tool over them can beat);
- `cold`: `cairn eval` with an empty `.cairn/` (no response cache, no index cache, no artifact);
- `warm`: the same command again (every answer and judgement from the cache, the index read back).
With `--against`, the two trees take turns at going first, round by round. `--cold-only` skips the warm runs
(more rounds of the figure that is not met in the same time, on a loaded machine). `--stub-share` adds as
many cold runs of this tree with the stub answerer's CPU time summed over its calls: how much of a cold run
is the sample's system under test answering, and what the rest is against the imports.

`cairn eval` runs as `python -m cairn_action eval` (what the `cairn` script and the image's entrypoint run),
so that the `--against` tree's own entry point is the one timed.

Wall time and CPU (user + sys of the child, from `os.wait4`) are recorded per run; the ratios are
cold / imports and warm / imports of the medians. Limits: cold 1.5x, warm 1.2x (wall).

Cairn's own modules are byte-compiled first (`compileall`), as `pip install` does: with
PYTHONDONTWRITEBYTECODE set (as on the development machine) an editable install would otherwise
compile about 100 modules on every start, and the figures would measure the compiler.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CAIRN = Path(sys.executable).parent / "cairn"
EVAL = [sys.executable, "-m", "cairn_action", "eval"]
DEPENDENCIES = "import numpy, pydantic, jinja2, tabulate, requests, bm25s, Stemmer"
LIMITS = {"cold": 1.5, "warm": 1.2}


def timed(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one child process (its output discarded; a failure stops the benchmark)."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {child.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime


def make_project(root: Path) -> None:
    for name in ("cairn.toml", "cairn.calibration.json"):
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "golden", root / "golden")
    subprocess.run(
        [str(CAIRN), "corpus", "generate", "--out", "data/sample"],
        cwd=root,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def against_args(
    doc: str | None, *, runs: int, cold_only: bool = False
) -> tuple[argparse.Namespace, dict[str, str]]:
    """`--runs` and `--against DIR` (another Cairn source tree timed in the same rounds), and the children's
    environment: bytecode allowed, so every timed start reads compiled modules as a user's does.
    `cold_only`: also offer `--cold-only`."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=runs)
    parser.add_argument("--against", type=Path, help="another Cairn source tree to time in the same rounds")
    if cold_only:
        parser.add_argument("--cold-only", action="store_true", help="time no warm runs")
        parser.add_argument(
            "--stub-share", action="store_true", help="also time the stub's answering in more cold runs"
        )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return parser.parse_args(), env


# `cairn eval` as `python -m cairn_action eval` runs it (cli.run), with the stub answerer's CPU time summed
# over its calls (thread time, so what the other threads do in the meantime is not counted) and printed last
# on stderr: the part of a cold run that is the sample's system under test answering, not Cairn.
_STUB_TIMED = """
import sys, threading, time
from cairn_action.providers.stub import answerer
spent, lock, answer = [0.0], threading.Lock(), answerer.StubAnswerer.answer
def timed(self, request):
    started = time.thread_time()
    try:
        return answer(self, request)
    finally:
        with lock:
            spent[0] += time.thread_time() - started
answerer.StubAnswerer.answer = timed
from cairn_action.cli import run
sys.argv = ["cairn", "eval"]
code = run()
print(f"stub answering {spent[0]:.6f}", file=sys.stderr)
sys.exit(code)
"""


def stub_share(project: Path, runs: int) -> tuple[float, float]:
    """Cold runs with the stub's answering timed: (median wall, median stub CPU), how much of the cold run
    is the system under test answering."""
    walls, stubs = [], []
    for _ in range(runs):
        shutil.rmtree(project / ".cairn", ignore_errors=True)
        shutil.rmtree(project / "reports", ignore_errors=True)
        started = time.perf_counter()
        argv = [sys.executable, "-c", _STUB_TIMED]
        done = subprocess.run(argv, cwd=project, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise SystemExit(f"timed cold eval failed: {done.stderr[-2000:]}")
        stubs.append(float(done.stderr.rsplit("stub answering ", 1)[1].split()[0]))
    return statistics.median(walls), statistics.median(stubs)


def main() -> None:
    args, env = against_args(__doc__, runs=5, cold_only=True)
    trees = {"": (REPO, None)}
    if args.against:
        trees[" (against)"] = (args.against.resolve(), {**env, "PYTHONPATH": str(args.against.resolve())})
    for tree, _ in trees.values():
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "cairn_action")],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    figures: dict[str, list[tuple[float, float]]] = {"imports": []}
    for label in trees:
        figures[f"cold{label}"] = []
        if not args.cold_only:
            figures[f"warm{label}"] = []
    with tempfile.TemporaryDirectory(prefix="cairn-floor-") as tmp:
        project = Path(tmp)
        make_project(project)
        for _, tree_env in trees.values():  # the first start of everything: page cache, not measured
            timed(EVAL, project, tree_env)
        for round_ in range(args.runs):
            figures["imports"].append(timed([sys.executable, "-c", DEPENDENCIES], project))
            # The trees' order alternates: the one timed right after the imports is not always the same.
            order = list(trees.items()) if round_ % 2 == 0 else list(reversed(trees.items()))
            for label, (_, tree_env) in order:
                shutil.rmtree(project / ".cairn", ignore_errors=True)
                shutil.rmtree(project / "reports", ignore_errors=True)
                figures[f"cold{label}"].append(timed(EVAL, project, tree_env))
                if not args.cold_only:
                    figures[f"warm{label}"].append(timed(EVAL, project, tree_env))
        share = stub_share(project, args.runs) if args.stub_share else None
    load = os.getloadavg()[0]
    print(f"{args.runs} rounds; load average {load:.1f} at the end (2 cores: above 2 the figures are noisy)")
    print("| run | median wall | range | median CPU | wall / imports | CPU / imports | limit | |")
    print("|---|---|---|---|---|---|---|---|")
    base = statistics.median(w for w, _ in figures["imports"])
    base_cpu = statistics.median(c for _, c in figures["imports"])
    for name, runs in figures.items():
        walls = [w for w, _ in runs]
        wall, cpu = statistics.median(walls), statistics.median(c for _, c in runs)
        ratio = wall / base
        limit = LIMITS.get(name)
        verdict = "" if limit is None else ("met" if ratio <= limit else "NOT met")
        print(
            f"| {name} | {wall:.2f} s | {min(walls):.2f}-{max(walls):.2f} | {cpu:.2f} s | {ratio:.2f}x | "
            f"{cpu / base_cpu:.2f}x | {f'{limit}x' if limit else ''} | {verdict} |"
        )
    if share is not None:
        wall, stub = share
        print(
            f"cold, {args.runs} more runs with the stub's answering timed: {wall:.2f} s, of which the stub "
            f"(the sample's system under test) answering {stub:.2f} s of CPU; the rest {wall - stub:.2f} s, "
            f"{(wall - stub) / base:.2f}x the imports"
        )


if __name__ == "__main__":
    main()
