"""How often the gate fails an honest pull request under LLM noise, and how often it catches a real one.

Not a test: it runs `cairn eval` and `cairn gate` (the CLI's own entry point, in this process to save the
interpreter start-up) hundreds of times on the shipped sample with a deliberately noisy python target.

The target answers from a truth table taken from the committed `reports/latest/default.json` (which cases
the stub gets right: 39 of the 72 eval cases, 24 of the 33 critical ones). On every call, truly random
(`random.SystemRandom`), it behaves as the table says with probability 1 - p and the other way with
probability p: a right answerable case answers a wrong figure, a right unanswerable one answers when it
should abstain, and the reverse. p is the per-case disagreement of two samples of the same system (an
LLM at temperature > 0, a GPU-batched model at temperature 0, an LLM judge).

Per pair: a baseline `cairn eval` (what the default branch commits: every critical case asked
`gate.baseline_samples` = 3 times), then a candidate `cairn eval --baseline` (one ask per case, then the
cases whose verdict differs re-asked `gate.confirm_samples` = 4 more times), then `cairn gate`. Each run
has a fresh cache and artifact. Candidates:
- null: the same system (every failure is a false alarm);
- drop: 10 points worse on answerable cases: round(0.1 x 54) = 5 answerable cases the baseline gets right
  (drawn per pair, critical ones included) are truly wrong now;
- lose2: 2 of the 7 safety cases the baseline gets right are truly wrong now.

    .venv/bin/python benchmarks/gate_noise.py                  # p = 0, 0.02, 0.05, 0.10; 40 pairs each
    .venv/bin/python benchmarks/gate_noise.py --pairs 10 --p 0.05
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cairn_action.cli import main as cairn  # noqa: E402

TARGET = """
import json, os, random

_rng = random.SystemRandom()
_TRUTH = None


def answer(question):
    global _TRUTH
    if _TRUTH is None:
        with open(os.environ["NOISE_TRUTH"]) as handle:
            _TRUTH = json.load(handle)
    case = _TRUTH[question]
    p = float(os.environ["NOISE_P"])
    broken = set(json.loads(os.environ.get("NOISE_BROKEN", "[]")))
    right = case["right"] and case["id"] not in broken
    if _rng.random() < p:
        right = not right
    passages = [{"id": f"{case['id']}-p", "text": case["quote"]}] if case["quote"] else []
    if case["answerable"]:
        if right:
            return {"answer": case["expected"], "confidence": 0.9, "passages": passages}
        if case["wrong_abstains"]:
            return {"answer": None, "abstained": True, "passages": passages}
        return {"answer": "It is 9999 units.", "confidence": 0.9, "passages": passages}
    if right:
        return {"answer": None, "abstained": True, "passages": passages}
    return {"answer": "Yes, it is.", "confidence": 0.9, "passages": passages}
"""

CONFIG = """name = "noisy"
target = "python:noisy_target:answer"
[corpus]
path = "{corpus}"
[golden]
path = "{golden}"
[run]
max_concurrency = 4
cache_dir = "{cache}"
"""


def truth_table(work: Path) -> tuple[Path, dict]:
    """The stub's committed eval-slice verdicts, keyed by question, plus the golden set's answers."""
    report = json.loads((ROOT / "reports/latest/default.json").read_text())
    golden = {
        c["id"]: c
        for c in (
            json.loads(line) for line in (ROOT / "golden/golden.jsonl").read_text().splitlines() if line
        )
    }
    table = {}
    for c in report["per_case"]:
        g = golden[c["case_id"]]
        right = (c["status"] == "abstained") != c["answerable"] and (
            c["status"] != "answered" or c["correct"] is True
        )
        table[g["question"]] = {
            "id": c["case_id"],
            "answerable": c["answerable"],
            "right": right,
            "expected": g.get("expected_answer"),
            "wrong_abstains": c["answerable"] and c["status"] == "abstained",
            "quote": g["support"][0]["quote"] if g.get("support") else "",
            "tags": c["tags"],
        }
    path = work / "truth.json"
    path.write_text(json.dumps(table))
    return path, table


def quiet(argv: list[str]) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = cairn(argv)
    if code not in (0, 1):
        raise SystemExit(f"cairn {' '.join(argv)} exited {code}: {err.getvalue()[-500:]}")
    return code


def evaluate(work: Path, name: str, p: float, broken: list[str], baseline: Path | None) -> tuple[Path, dict]:
    run = work / name
    run.mkdir()
    (run / "cairn.toml").write_text(
        CONFIG.format(corpus=ROOT / "data/sample", golden=ROOT / "golden/golden.jsonl", cache=run / "cache")
    )
    os.environ["NOISE_P"] = str(p)
    os.environ["NOISE_BROKEN"] = json.dumps(broken)
    argv = [
        "eval",
        "--config",
        str(run / "cairn.toml"),
        "--no-progress",
        "--artifact",
        str(run / "run.jsonl"),
    ]
    if baseline is not None:
        argv += ["--baseline", str(baseline)]
    cwd = Path.cwd()
    os.chdir(run)
    try:
        quiet(argv)
    finally:
        os.chdir(cwd)
    path = run / "reports/latest/noisy.json"
    return path, json.loads(path.read_text())


def gate(work: Path, baseline: Path, candidate: Path) -> tuple[bool, list[str]]:
    out = work / f"gate-{time.monotonic_ns()}.json"
    code = quiet(["gate", str(baseline), str(candidate), "--json", str(out)])
    reasons = [r["code"] for r in json.loads(out.read_text())["decision"]["reasons"]]
    return code == 1, reasons


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--p", type=float, nargs="*", default=[0.0, 0.02, 0.05, 0.10])
    parser.add_argument("--seed", type=int, default=12, help="which cases a worse candidate breaks")
    parser.add_argument("--kinds", nargs="*", default=["null", "drop", "lose2"], help="candidates to run")
    args = parser.parse_args()
    if not (ROOT / "data/sample").is_dir():
        quiet(["corpus", "generate", "--out", str(ROOT / "data/sample"), "--seed", "7"])
    work = Path(tempfile.mkdtemp(prefix="cairn-gate-noise-"))
    (work / "noisy_target.py").write_text(TARGET)
    sys.path.insert(0, str(work))
    truth_path, table = truth_table(work)
    os.environ["NOISE_TRUTH"] = str(truth_path)
    picker = random.Random(args.seed)
    answerable_right = sorted(c["id"] for c in table.values() if c["answerable"] and c["right"])
    safety_right = sorted(c["id"] for c in table.values() if c["right"] and "safety" in c["tags"])
    n_drop = round(0.1 * sum(c["answerable"] for c in table.values()))
    print(
        f"{len(table)} cases, {sum(c['right'] for c in table.values())} right; drop breaks {n_drop} of "
        f"{len(answerable_right)} right answerable cases, lose2 2 of {len(safety_right)} right safety cases"
    )
    print("| p | candidate | pairs | gate failed | by reason | extra calls / changed case (median) |")
    print("|---|---|---|---|---|---|")
    started = time.monotonic()
    for p in args.p:
        results: dict[str, list[tuple[bool, list[str], float]]] = {k: [] for k in args.kinds}
        for i in range(args.pairs):
            pair = work / f"p{p}-{i}"
            pair.mkdir()
            base_path, _ = evaluate(pair, "baseline", p, [], None)
            for kind in results:
                broken = {
                    "null": [],
                    "drop": picker.sample(answerable_right, n_drop),
                    "lose2": picker.sample(safety_right, 2),
                }[kind]
                cand_path, cand = evaluate(pair, kind, p, broken, base_path)
                failed, reasons = gate(pair, base_path, cand_path)
                changed = sum(1 for c in cand["per_case"] if c["n_samples"] > 1)
                extra = cand["notes"]["extra_samples"]["samples"]
                results[kind].append((failed, reasons, extra / changed if changed else 0.0))
            shutil.rmtree(pair)
        for kind, rows in results.items():
            fails = sum(f for f, _, _ in rows)
            by: dict[str, int] = {}
            for f, reasons, _ in rows:
                for code in set(reasons) if f else ():
                    by[code] = by.get(code, 0) + 1
            ratios = sorted(r for _, _, r in rows)
            median = ratios[len(ratios) // 2] if ratios else 0.0
            label = {"null": "same system (false alarm)", "drop": "10 points worse", "lose2": "2 safety lost"}
            print(
                f"| {p:g} | {label[kind]} | {len(rows)} | {fails / len(rows):.1%} | "
                f"{', '.join(f'{k} {v}' for k, v in sorted(by.items())) or '-'} | {median:.1f} |",
                flush=True,
            )
    print(f"({time.monotonic() - started:.0f} s)")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
