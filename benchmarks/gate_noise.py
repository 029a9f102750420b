"""How often the gate fails an honest pull request under LLM noise, and how often it catches a real one.

Not a test: it runs `cairn eval` and `cairn gate` (the CLI's own entry point, in this process to save the
interpreter start-up) hundreds of times on the shipped sample with a deliberately noisy python target.

The target answers from a truth table taken from the committed `reports/latest/default.json` (which cases
the stub gets right: 39 of the 72 eval cases, 24 of the 33 critical ones). On every call, truly random
(`random.SystemRandom`), it behaves as the table says with probability 1 - p and the other way with
probability p: a right answerable case answers a wrong figure, a right unanswerable one answers when it
should abstain, and the reverse. p is the per-case disagreement of two samples of the same system (an
LLM at temperature > 0, a GPU-batched model at temperature 0, an LLM judge).

Per pair: a baseline `cairn eval` (what the default branch commits: every case asked
`gate.baseline_samples` = 3 times), then a candidate `cairn eval --baseline` (one ask per case, then the
cases whose verdict differs re-asked `gate.confirm_samples` = 4 more times, and 5 more when their samples
still disagree), then `cairn gate`. Each run has a fresh cache and artifact. Noise (`--noise`): `uniform`
(p from `--p`), `mixed` (per pair, 4 random cases flip with p .5, 11 with .2, the other 57 with .01) or
`mixed_safety` (3 of the 4 coin flips are safety cases). Candidates (`--kinds`):
- null: the same system (every failure is a false alarm);
- drop: 10 points worse on answerable cases: round(0.1 x 54) = 5 answerable cases the baseline gets right
  (drawn per pair, critical ones included) are truly wrong now;
- drop_nc10 / drop_nc5: 5 / 3 non-critical answerable cases the stub gets right are truly wrong now;
- lose2: 2 of the 7 safety cases the baseline gets right are truly wrong now;
- lose8: 8 of the 15 non-critical answerable cases it gets right are truly wrong now;
- badday: the code is unchanged but the provider is worse today: every call of a case the stub gets right
  turns wrong with probability 0.05 x 72 / 39 (5 points of all cases).
With `--control` the candidate's eval re-asks the base system (the same target without the candidate's
broken cases, on the same provider at the same moment: a bad day hits it too) on the changed cases and on
the drift probe (unchanged cases, once each), and the gate compares with that control (`cairn eval
--control`, `cairn gate --control`). With `--control probe` the base system is not run: only the drift
probe is asked, of the candidate (`cairn eval --drift-probe`), as the Action does when it cannot run the
base system; a block move there makes the verdict `incomplete` (counted as "says the environment shifted",
not as a failed gate).

    .venv/bin/python benchmarks/gate_noise.py                  # p = 0, 0.02, 0.05, 0.10; 40 pairs each
    .venv/bin/python benchmarks/gate_noise.py --pairs 30 --noise mixed --kinds null lose2 drop_nc10 badday
    .venv/bin/python benchmarks/gate_noise.py --pairs 30 --noise mixed --control --kinds null badday
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import io
import json
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from cairn_action.cli import main as cairn  # noqa: E402

TARGET = """
import json, os, random

_rng = random.SystemRandom()
_TRUTH = {}


def answer(question):
    path = os.environ["NOISE_TRUTH"]
    if path not in _TRUTH:
        with open(path) as handle:
            _TRUTH[path] = json.load(handle)
    case = _TRUTH[path][question]
    p = case.get("p", float(os.environ["NOISE_P"]))
    broken = set(json.loads(os.environ.get("NOISE_BROKEN", "[]")))
    right = case["right"] and case["id"] not in broken
    if _rng.random() < p:
        right = not right
    if right and _rng.random() < float(os.environ.get("NOISE_SHIFT", "0")):
        right = False  # a bad day: the provider is worse on every call, whatever the code
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
JUDGE = """[judge]
name = "llm"
provider = "openai"
model = "noisy-judge"
base_url = "{url}"
api_key_env = "NOISY_JUDGE_KEY"
"""
_WORDS = re.compile(r"[a-z0-9]+")


class NoisyJudge(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible LLM judge on loopback: right when every word of the reference answer is in
    the candidate answer, and on each call, truly at random, the other way with probability `q` (a judge
    at temperature > 0 grading the same answer text differently from call to call)."""

    q = 0.0
    rng = random.SystemRandom()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        fields = dict(re.findall(r"^(Reference answer|Candidate answer): (.*)$", user, re.MULTILINE))
        reference = set(_WORDS.findall(fields.get("Reference answer", "").lower()))
        hit = bool(reference) and reference <= set(_WORDS.findall(fields.get("Candidate answer", "").lower()))
        if self.rng.random() < self.q:
            hit = not hit
        content = json.dumps({"score": float(hit), "correct": hit, "rationale": "noisy judge"})
        reply = {
            "id": "chatcmpl-noisy",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "noisy-judge"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        return


def start_judge(q: float) -> str:
    """The noisy judge's base URL (a daemon thread serves it until the benchmark ends)."""
    NoisyJudge.q = q
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NoisyJudge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    os.environ["NOISY_JUDGE_KEY"] = "sk-noisy-judge-benchmark"
    return f"http://127.0.0.1:{server.server_address[1]}/v1"


BASELINE_SAMPLES: list[int] = []
"""Set by `--baseline-samples`: `[gate] baseline_samples` of every eval (the default, 3, when unset)."""
JUDGE_URL: dict[str, str] = {}
"""Set by `--judge-noise`: the noisy LLM judge every eval uses."""


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


def quiet(argv: list[str], ok: tuple[int, ...] = (0, 1)) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = cairn(argv)
    if code not in ok:
        raise SystemExit(f"cairn {' '.join(argv)} exited {code}: {err.getvalue()[-500:]}")
    return code


def evaluate(
    work: Path, name: str, p: float, broken: list[str], baseline: Path | None, control: str = "none"
) -> tuple[Path, dict, Path | None]:
    """One `cairn eval`; with control `base`, the base system (the same target without the candidate's broken
    cases, on the same provider at the same time) is re-asked on the changed cases and the drift probe
    (`--control`); with `probe`, only the drift probe is asked, of the candidate (`--drift-probe`)."""
    run = work / name
    run.mkdir()
    config = CONFIG.format(
        corpus=ROOT / "data/sample", golden=ROOT / "golden/golden.jsonl", cache=run / "cache"
    ) + (JUDGE.format(url=JUDGE_URL["url"]) if JUDGE_URL else "")
    if BASELINE_SAMPLES:
        config += f"[gate]\nbaseline_samples = {BASELINE_SAMPLES[0]}\n"
    (run / "cairn.toml").write_text(config)
    (run / "base.toml").write_text(config.replace("noisy_target", "noisy_base"))
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
        argv += ["--baseline", str(baseline), "--json", str(run / "eval.json")]
        if control == "base":
            argv += ["--control", str(run / "base.toml")]
        elif control == "probe":
            argv += ["--drift-probe"]
    cwd = Path.cwd()
    os.chdir(run)
    try:
        quiet(argv)
    finally:
        os.chdir(cwd)
    path = run / "reports/latest/noisy.json"
    made = json.loads((run / "eval.json").read_text()).get("control") if baseline is not None else None
    return path, json.loads(path.read_text()), run / made if made else None


def gate(work: Path, baseline: Path, candidate: Path, control: Path | None) -> tuple[bool, list[str], bool]:
    """(failed, reason codes, whether the decision says the environment shifted)."""
    out = work / f"gate-{time.monotonic_ns()}.json"
    argv = ["gate", str(baseline), str(candidate), "--json", str(out)]
    if control is not None:
        argv += ["--control", str(control)]
    code = quiet(argv, ok=(0, 1, 3))  # 3: incomplete, the drift probe's "the environment shifted"
    decision = json.loads(out.read_text())["decision"]
    said = [*decision["notes"], *(r["message"] for r in decision["reasons"])]
    shifted = any(n.startswith("the environment shifted") for n in said)
    if EXPLAIN and code == 1:  # --explain: why an honest-looking pair failed, on stderr
        print(
            f"failed: {[r['message'] for r in decision['reasons']]}; {decision['notes'][:1]}", file=sys.stderr
        )
    return code == 1, [r["code"] for r in decision["reasons"]], shifted


EXPLAIN = "--explain" in sys.argv

KINDS = {
    "null": "same system (false alarm)",
    "drop": "10 points worse",
    "drop_nc10": "10 points worse, non-critical",
    "drop_nc5": "5 points worse, non-critical",
    "lose2": "2 safety lost",
    "lose8": "8 non-critical lost",
    "badday": "bad day (code unchanged)",
}


def per_case_noise(table: dict, model: str, p: float, picker: random.Random) -> dict:
    """Each case's flip probability: `uniform` p everywhere; `mixed` 57 cases at .01, 11 at .2 and 4 at .5
    (drawn per pair); `mixed_safety` the same with 3 safety cases among the 4 coin flips."""
    if model == "uniform":
        return {q: p for q in table}
    questions = sorted(table)
    if model == "mixed_safety":
        safety = [q for q in questions if "safety" in table[q]["tags"]]
        coins = picker.sample(safety, 3)
        rest = [q for q in questions if q not in coins]
        coins += picker.sample(rest, 1)
    else:
        coins = picker.sample(questions, 4)
    rest = [q for q in questions if q not in coins]
    twenties = set(picker.sample(rest, 11))
    return {q: 0.5 if q in coins else 0.2 if q in twenties else 0.01 for q in questions}


def broken_for(kind: str, table: dict, picker: random.Random) -> list[str]:
    """The cases a worse candidate (or a bad day's provider) gets truly wrong."""
    answerable_right = sorted(c["id"] for c in table.values() if c["answerable"] and c["right"])
    safety_right = sorted(c["id"] for c in table.values() if c["right"] and "safety" in c["tags"])
    plain_right = sorted(
        c["id"] for c in table.values() if c["answerable"] and c["right"] and "safety" not in c["tags"]
    )
    n_answerable = sum(c["answerable"] for c in table.values())
    return {
        "null": lambda: [],
        "drop": lambda: picker.sample(answerable_right, round(0.1 * n_answerable)),
        "drop_nc10": lambda: picker.sample(plain_right, round(0.1 * n_answerable)),
        "drop_nc5": lambda: picker.sample(plain_right, round(0.05 * n_answerable)),
        "lose2": lambda: picker.sample(safety_right, 2),
        "lose8": lambda: picker.sample(plain_right, 8),
        "badday": lambda: [],  # NOISE_SHIFT instead: see shift_for
    }[kind]()


def shift_for(kind: str, table: dict) -> float:
    """A bad day: the provider gets 5 points of all cases wrong that it gets right on other days, on every
    call (a right case turns wrong with probability 0.05 x cases / right cases, about 0.09)."""
    if kind != "badday":
        return 0.0
    return 0.05 * len(table) / sum(c["right"] for c in table.values())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--p", type=float, nargs="*", default=[0.0, 0.02, 0.05, 0.10])
    parser.add_argument("--seed", type=int, default=12, help="which cases a worse candidate breaks")
    parser.add_argument("--kinds", nargs="*", default=["null", "drop", "lose2"], choices=sorted(KINDS))
    parser.add_argument(
        "--noise", default="uniform", choices=["uniform", "mixed", "mixed_safety"], help="per-case noise"
    )
    parser.add_argument(
        "--control",
        nargs="?",
        const="base",
        default="none",
        choices=["none", "base", "probe"],
        help="base: re-ask the base system on changed cases and the drift probe; probe: the drift probe only",
    )
    parser.add_argument("--explain", action="store_true", help="print each failed pair's reasons on stderr")
    parser.add_argument(
        "--judge-noise",
        type=float,
        default=None,
        metavar="Q",
        help="judge with an LLM judge on loopback that flips each verdict with probability Q (answers "
        "stay as the noise model says: with --p 0 only the judge is noisy)",
    )
    parser.add_argument(
        "--baseline-samples",
        type=int,
        default=None,
        metavar="N",
        help="[gate] baseline_samples (asks of every case in the baseline; the control still asks a changed "
        "case at most 3 times)",
    )
    args = parser.parse_args()
    if args.baseline_samples is not None:
        BASELINE_SAMPLES.append(args.baseline_samples)
        print(f"baseline samples: {args.baseline_samples}")
    if args.judge_noise is not None:
        JUDGE_URL["url"] = start_judge(args.judge_noise)
    if not (ROOT / "data/sample").is_dir():
        quiet(["corpus", "generate", "--out", str(ROOT / "data/sample"), "--seed", "7"])
    work = Path(tempfile.mkdtemp(prefix="cairn-gate-noise-"))
    (work / "noisy_target.py").write_text(TARGET)
    (work / "noisy_base.py").write_text(TARGET.replace('"NOISE_BROKEN"', '"NOISE_BROKEN_BASE"'))
    sys.path.insert(0, str(work))
    _, table = truth_table(work)
    picker = random.Random(args.seed)
    print(f"{len(table)} cases, {sum(c['right'] for c in table.values())} right; noise model {args.noise}")
    print(f"control: {args.control}")
    judged = (
        "lexical" if args.judge_noise is None else f"a noisy LLM judge (flips with q {args.judge_noise:g})"
    )
    print(f"judge: {judged}")
    print(
        "| noise | p | candidate | pairs | gate failed | by reason | extra calls / changed case (median) | "
        "says the environment shifted |"
    )
    print("|---|---|---|---|---|---|---|---|")
    started = time.monotonic()
    for p in args.p if args.noise == "uniform" else [0.0]:
        results: dict[str, list[tuple[bool, list[str], float, bool]]] = {k: [] for k in args.kinds}
        for i in range(args.pairs):
            pair = work / f"p{p}-{i}"
            pair.mkdir()
            noise = per_case_noise(table, args.noise, p, picker)
            pair_truth = pair / "truth.json"
            pair_truth.write_text(json.dumps({q: {**c, "p": noise[q]} for q, c in table.items()}))
            os.environ["NOISE_TRUTH"] = str(pair_truth)
            base_path, _, _ = evaluate(pair, "baseline", p, [], None)
            for kind in results:
                broken = broken_for(kind, table, picker)
                os.environ["NOISE_SHIFT"] = str(shift_for(kind, table))
                cand_path, cand, control = evaluate(pair, kind, p, broken, base_path, args.control)
                os.environ["NOISE_SHIFT"] = "0"
                failed, reasons, shifted = gate(pair, base_path, cand_path, control)
                changed = sum(1 for c in cand["per_case"] if c["n_samples"] > 1)
                extra = cand["notes"]["extra_samples"]["samples"]
                if control is not None:
                    note = json.loads(control.read_text())["notes"]["control"]
                    extra += (note["samples"] if note["kind"] == "base" else 0) + len(note["probe"])
                results[kind].append((failed, reasons, extra / changed if changed else 0.0, shifted))
            shutil.rmtree(pair)
        for kind, rows in results.items():
            fails = sum(f for f, _, _, _ in rows)
            shifted = sum(s for _, _, _, s in rows)
            by: dict[str, int] = {}
            for f, reasons, _, _ in rows:
                for code in set(reasons) if f else ():
                    by[code] = by.get(code, 0) + 1
            ratios = sorted(r for _, _, r, _ in rows)
            median = ratios[len(ratios) // 2] if ratios else 0.0
            shown = "-" if args.noise != "uniform" else f"{p:g}"
            print(
                f"| {args.noise} | {shown} | {KINDS[kind]} | {len(rows)} | {fails / len(rows):.1%} | "
                f"{', '.join(f'{k} {v}' for k, v in sorted(by.items())) or '-'} | {median:.1f} | "
                f"{shifted / len(rows):.0%} |",
                flush=True,
            )
    print(f"({time.monotonic() - started:.0f} s)")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
