"""The stub answerer's own CPU on the shipped sample's 120 questions, and whether its answers changed.

Not a test: it prints medians, asserting nothing.

    .venv/bin/python benchmarks/stub_answers.py [--runs 7] [--against DIR]

The requests are captured once: `cairn eval --split all` on the shipped sample (BM25, top 5) in a
temporary project, with `StubAnswerer.answer` recording each request it is given. Each round then answers
all of them in a fresh process (`python -c`, so every memo, compiled pattern and tokenizer cache starts
empty, as in a cold `cairn eval`), one thread, and reports the CPU time of that pass and the sha256 of
the answers (each `AnswerResult` as JSON). `--against DIR` does the same with the Cairn source tree in
DIR first on the path (a checkout of main, say), in the same rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from offline_floor import against_args, make_project

REPO = Path(__file__).resolve().parents[1]

_CAPTURE = """
import pickle, sys, threading
from cairn_action.providers.stub import answerer
seen, lock, answer = [], threading.Lock(), answerer.StubAnswerer.answer
def recording(self, request):
    with lock:
        seen.append(request)
    return answer(self, request)
answerer.StubAnswerer.answer = recording
from cairn_action.cli import main
main(["eval", "--split", "all", "--no-progress"])
seen.sort(key=lambda r: (r.case_id, r.sample))
pickle.dump(seen, open(sys.argv[1], "wb"))
"""

_ANSWER = """
import hashlib, json, pickle, sys, time
from cairn_action.providers.stub import StubAnswerer
requests = pickle.load(open(sys.argv[1], "rb"))
stub = StubAnswerer()
started = time.process_time()
answers = [stub.answer(r) for r in requests]
cpu = time.process_time() - started
digest = hashlib.sha256("\\n".join(a.model_dump_json() for a in answers).encode()).hexdigest()
print(json.dumps({"cpu": cpu, "n": len(answers), "sha256": digest}))
"""


def main() -> None:
    args, env = against_args(__doc__, runs=7)
    trees = {"this tree": REPO}
    if args.against:
        trees["against"] = args.against.resolve()
    for tree in trees.values():
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(tree / "cairn_action")], env=env, check=True
        )
    runs: dict[str, list[dict[str, object]]] = {label: [] for label in trees}
    with tempfile.TemporaryDirectory(prefix="cairn-stub-") as tmp:
        project = Path(tmp)
        make_project(project)  # the shipped sample, as offline_floor.py times it
        requests = project / "requests.pkl"
        subprocess.run(
            [sys.executable, "-c", _CAPTURE, str(requests)],
            cwd=project,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(args.runs):
            for label, tree in trees.items():
                done = subprocess.run(
                    [sys.executable, "-c", _ANSWER, str(requests)],
                    cwd=project,
                    env={**env, "PYTHONPATH": str(tree)},
                    check=True,
                    capture_output=True,
                    text=True,
                )
                runs[label].append(json.loads(done.stdout))
    print(f"{args.runs} rounds; load average {os.getloadavg()[0]:.1f} at the end")
    print("| tree | questions | median CPU | range | answers (sha256) |")
    print("|---|---|---|---|---|")
    for label, results in runs.items():
        cpus = [float(r["cpu"]) for r in results]  # type: ignore[arg-type]
        digests = {str(r["sha256"])[:12] for r in results}
        print(
            f"| {label} | {results[0]['n']} | {statistics.median(cpus) * 1000:.0f} ms | "
            f"{min(cpus) * 1000:.0f}-{max(cpus) * 1000:.0f} | {', '.join(sorted(digests))} |"
        )


if __name__ == "__main__":
    main()
