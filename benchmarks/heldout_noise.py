"""A held-out harness for the gate under noise (issue 23): its own noisy HTTP target, its own noisy LLM judge.

Not a test, and independent of `gate_noise.py` and the `*_sim.py` models: it imports nothing from them or
from `cairn_action`, and runs Cairn as a user does, the venv's `cairn` console script in subprocesses:

    cairn eval --config base.toml --cache-dir FRESH --artifact FRESH --json OUT       # the baseline
    cairn eval --config cand.toml --baseline B --control base.toml --cache-dir FRESH ...  # the pull request
    cairn gate B CANDIDATE --control CONTROL --json OUT                              # the verdict

Both systems are one loopback server in this process. `target = "http://127.0.0.1:PORT/pair/N/answer"`
speaks the `cairn-target-1` wire format (POST {"question", "case_id", "top_k"}, reply {"answer",
"confidence", "passages"} or {"answer": null, "abstained": true}); the `[judge]` (name "llm", provider
"openai", base_url `http://127.0.0.1:PORT/pair/N/v1`) gets chat completions and replies with the rubric's
JSON. Keys come from the environment (`api_key_env`, dummy values): the base system (baseline and control)
is sent `HELDOUT_BASE_KEY`, the pull request's system `HELDOUT_CAND_KEY`, which is how the server tells the
deployments apart (config_hash leaves key variables out, so a same-system pull request has the baseline's
config_hash). The server records every request (pair, phase, side, kind, case).

The noise model (its own, not gate_noise's):
- Truth table: a fixed hash of each case id (not the stub's report) makes 70 % of answerable and 80 % of
  unanswerable eval cases truly right; a truly wrong answerable case fails by abstaining (40 %, by hash) or
  by a wrong value. com-007 is pinned truly wrong by abstaining, as the stub is, to look for the oddity
  seen in gate_noise (com-007 led 4 of 25 honest failures there).
- Per pair, each case draws its flip rate f from Beta(0.25, 3.5) (mean 6.7 %; 46 % of cases below 1 %,
  11 % above 20 %, 3 % above 40 %: most cases near-deterministic, a tail of flaky ones); on every call the
  case behaves as the truth table says with probability 1 - f, the other way with f. `--flip P` gives every
  case the rate P instead (the issue's uniform noise: "a 10-point drop caught >= 80 % at p .05").
- Wording varies per call (six phrasings of a right answer, four of a wrong one), and a case answers in a
  hedged phrasing ("I think it may be X, ...") with probability 0.2 + 2 f (at most 0.8): flaky cases hedge.
- The judge is right when the reference answer (normalised) is in the candidate answer; on every call it
  errs with probability q x {easy .5, medium 1, hard 1.5}[difficulty] x (2 if hedged), so judge errors are
  correlated with the answer's difficulty. Unanswerable cases and abstentions are decided without a call.
- Bad day (code unchanged, provider worse on every call, on both sides of the pull request): a call of a
  case that is right at that moment turns wrong with probability s x w[difficulty] (w as the judge's),
  s set so that 5 points of all cases are lost in expectation. The baseline was made before it.
- Every draw is a hash of (seed, pair, phase, side, kind, case, n-th such call), and `run.max_concurrency`
  is 1, so a run is reproducible call for call with `--seed`.

Cells (the candidate): `null` the same system; `lose2` 2 safety cases the truth table gets right are truly
wrong; `lose8` 8 non-critical answerable right cases are truly wrong; `drop_nc10` 10 points of answerable
cases (round(0.1 x 54) = 5) non-critical right cases are truly wrong; `badday` the same system on a bad day.
Every cell re-asks the base system (`--control`; `--control probe` runs `--drift-probe` instead).
Gate exit 1 counts as failed, 0 as passed, 3 as incomplete; anything else stops the harness.

    nice .venv/bin/python benchmarks/heldout_noise.py --quick            # 30 null, 12 each other cell
    nice .venv/bin/python benchmarks/heldout_noise.py                    # 200 null, 80 each other cell
    nice .venv/bin/python benchmarks/heldout_noise.py --cells null badday --pairs 60 --seed 3 --q 0.1
"""

from __future__ import annotations

import argparse
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar

from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parents[1]
CAIRN = str(Path(sys.executable).with_name("cairn"))
CRITICAL = {"safety", "unanswerable", "false_premise"}
DIFFICULTY = {"easy": 0.5, "medium": 1.0, "hard": 1.5}
RIGHT_WORDS = ["{a}.", "It is {a}.", "The documents say {a}.", "{a}, according to the policy.", "Answer: {a}"]
RIGHT_WORDS.append("That would be {a}.")
HEDGED = ["I think it may be {a}, but the documents are not entirely clear."]
HEDGED.append("Possibly {a}; check the source.")
WRONG_TEXT = ["Yes, that is allowed.", "Someone else handles that."]
WRONG_TEXT += ["It is not stated; probably the usual rule.", "The policy leaves it to the site manager."]
GOALS = {"null": "false alarms <= 5 %", "lose2": "caught >= 95 %", "lose8": "caught >= 90 %"}
GOALS |= {"drop_nc10": "caught >= 80 %", "badday": "fails <= 5 % and says shifted >= 80 %"}
BASE_KEY, CAND_KEY = "dummy-base-key", "dummy-cand-key"


def unit(*parts: object) -> float:
    """A uniform draw in [0, 1) from a hash of `parts` (reproducible whatever the thread order)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def beta_draw(a: float, b: float, *parts: object) -> float:
    """Beta(a, b) by the ratio of two gamma draws, each from `unit` via scipy's inverse CDF."""
    from scipy.stats import gamma

    x = float(gamma.ppf(max(unit(*parts, "x"), 1e-300), a))
    y = float(gamma.ppf(max(unit(*parts, "y"), 1e-300), b))
    return x / (x + y) if x + y > 0 else 0.0


def norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9°±%.\-]+", text.lower()))


class Truth:
    """The held-out truth table over the eval split and what each case says when right or wrong."""

    def __init__(self, golden: list[dict], eval_ids: set[str]) -> None:
        self.cases = {c["id"]: c for c in golden if c["id"] in eval_ids}
        self.by_question = {c["question"]: c for c in self.cases.values()}
        self.right: dict[str, bool] = {}
        self.abstains: dict[str, bool] = {}
        for cid, case in self.cases.items():
            share = 0.7 if case["answerable"] else 0.8
            self.right[cid] = unit("heldout-truth-v1", cid) < share
            self.abstains[cid] = unit("heldout-wrong-mode-v1", cid) < 0.4
        self.right["com-007"], self.abstains["com-007"] = False, True

    def critical(self, cid: str) -> bool:
        return bool(CRITICAL & set(self.cases[cid]["tags"]))

    def ids(self, *, right: bool, answerable: bool | None = None, critical: bool | None = None, tag=None):
        out = []
        for cid, case in self.cases.items():
            if self.right[cid] != right or (answerable is not None and case["answerable"] != answerable):
                continue
            if (critical is not None and self.critical(cid) != critical) or (tag and tag not in case["tags"]):
                continue
            out.append(cid)
        return sorted(out)


def wrong_value(expected: str, draw: float) -> str:
    """A wrong answer that does not contain the expected one: its numbers moved, else a stock phrase."""
    moved = re.sub(r"\d+", lambda m: str(int(m.group()) + 1 + int(draw * 7)), expected)
    if moved != expected and norm(expected) not in norm(moved):
        return moved
    return WRONG_TEXT[int(draw * len(WRONG_TEXT))]


class Pair:
    """One pair's system: its flip rates, the candidate's truly broken cases, the bad day, the call log."""

    def __init__(self, truth: Truth, args: argparse.Namespace, cell: str, index: int) -> None:
        self.truth, self.q, self.seed, self.cell, self.index = truth, args.q, args.seed, cell, index
        self.flip = {
            c: args.flip if args.flip is not None else beta_draw(0.25, 3.5, self.seed, cell, index, "flip", c)
            for c in truth.cases
        }
        self.broken: set[str] = set()
        pick = {
            "lose2": lambda: truth.ids(right=True, tag="safety"),
            "lose8": lambda: truth.ids(right=True, answerable=True, critical=False),
            "drop_nc10": lambda: truth.ids(right=True, answerable=True, critical=False),
        }
        if cell in pick:
            pool = pick[cell]()
            k = {
                "lose2": 2,
                "lose8": 8,
                "drop_nc10": round(0.1 * sum(c["answerable"] for c in truth.cases.values())),
            }
            ranked = sorted(pool, key=lambda c: unit(self.seed, cell, index, "broken", c))
            self.broken = set(ranked[: k[cell]])
        weights = {c: DIFFICULTY[truth.cases[c].get("difficulty", "medium")] for c in truth.cases}
        right_mass = sum(weights[c] for c in truth.cases if truth.right[c])
        self.shift = {c: 0.05 * len(truth.cases) * weights[c] / right_mass for c in truth.cases}
        self.phase = "baseline"
        self.calls: Counter = Counter()  # (phase, side, kind, case) -> calls
        self.lock = threading.Lock()

    def count(self, side: str, kind: str, cid: str) -> int:
        with self.lock:
            self.calls[(self.phase, side, kind, cid)] += 1
            return self.calls[(self.phase, side, kind, cid)]

    def answer(self, side: str, cid: str) -> dict:
        n = self.count(side, "target", cid)
        key = (self.seed, self.cell, self.index, self.phase, side, cid, n)
        case, right = (
            self.truth.cases[cid],
            self.truth.right[cid] and not (side == "cand" and cid in self.broken),
        )
        if unit(*key, "flip") < self.flip[cid]:
            right = not right
        if (
            right
            and self.cell == "badday"
            and self.phase == "candidate"
            and unit(*key, "shift") < self.shift[cid]
        ):
            right = False
        hedged = unit(*key, "hedge") < min(0.8, 0.2 + 2 * self.flip[cid])
        words = unit(*key, "words")
        support = [s["quote"] for s in case.get("support", [])]
        passages = [{"id": f"{cid}-{i}", "text": q} for i, q in enumerate(support)]
        confidence = round(0.55 + 0.4 * unit(*key, "conf"), 3)
        if not case["answerable"]:
            if right:
                return {"answer": None, "abstained": True, "passages": passages}
            return {
                "answer": WRONG_TEXT[int(words * len(WRONG_TEXT))],
                "confidence": confidence,
                "passages": passages,
            }
        if not right and self.truth.abstains[cid]:
            return {"answer": None, "abstained": True, "passages": passages}
        value = (
            case["expected_answer"] if right else wrong_value(case["expected_answer"], unit(*key, "value"))
        )
        forms = HEDGED if hedged else RIGHT_WORDS
        return {
            "answer": forms[int(words * len(forms))].format(a=value),
            "confidence": confidence,
            "passages": passages,
        }

    def grade(self, user: str) -> dict:
        fields = dict(re.findall(r"^(Question|Reference answer|Candidate answer): (.*)$", user, re.M))
        case = self.truth.by_question[fields["Question"]]
        cid, candidate = case["id"], fields["Candidate answer"]
        n = self.count("judge", "judge", cid)
        right = norm(fields["Reference answer"]) in norm(candidate)
        hedged = any(h.split("{a}")[0] in candidate for h in HEDGED)
        q = self.q * DIFFICULTY[case.get("difficulty", "medium")] * (2 if hedged else 1)
        if unit(self.seed, self.cell, self.index, self.phase, "judge", cid, n, candidate) < q:
            right = not right
        return {"score": 1.0 if right else 0.0, "correct": right, "rationale": "held-out judge"}


class Handler(http.server.BaseHTTPRequestHandler):
    pairs: ClassVar[dict[str, Pair]] = {}

    def log_message(self, *args: object) -> None:
        return

    def _reply(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        parts = self.path.strip("/").split("/")
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        pair = self.pairs[parts[1]]
        if parts[-1] == "answer":
            key = self.headers.get("Authorization", "")
            side = "base" if key == f"Bearer {BASE_KEY}" else "cand" if key == f"Bearer {CAND_KEY}" else None
            if side is None:
                self.send_error(401)
                return
            self._reply(pair.answer(side, body["case_id"]))
            return
        grade = pair.grade(body["messages"][-1]["content"])
        usage = {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140}
        message = {"role": "assistant", "content": json.dumps(grade)}
        self._reply({"choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage})


CONFIG = """name = "heldout"
target = "http://127.0.0.1:{port}/pair/{pair}/answer"
[corpus]
path = "{corpus}"
[golden]
path = "{golden}"
[provider]
api_key_env = "{key_env}"
max_retries = 1
[judge]
name = "llm"
provider = "openai"
model = "heldout-judge"
base_url = "http://127.0.0.1:{port}/pair/{pair}/v1"
api_key_env = "HELDOUT_JUDGE_KEY"
[run]
max_concurrency = 1
[prices."heldout-judge"]
input = 0.0
output = 0.0
"""


class HarnessError(RuntimeError):
    pass


def run(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "HELDOUT_BASE_KEY": BASE_KEY,
        "HELDOUT_CAND_KEY": CAND_KEY,
        "HELDOUT_JUDGE_KEY": "dummy",
    }
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in ok:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise HarnessError(f"{' '.join(cmd[:3])} exited {done.returncode}: " + " | ".join(tail))
    return done


def one_pair(pair: Pair, name: str, port: int, work: Path, corpus: Path, control: str) -> dict:
    golden = ROOT / "golden" / "golden.jsonl"
    for side, env in (("base", "HELDOUT_BASE_KEY"), ("cand", "HELDOUT_CAND_KEY")):
        (work / side).mkdir(parents=True)
        text = CONFIG.format(port=port, pair=name, corpus=corpus, golden=golden, key_env=env)
        (work / side / "cairn.toml").write_text(text)
    base_cfg = work / "base" / "cairn.toml"

    def evaluate(side: str, extra: list[str]) -> dict:
        tag = f"{side}-{pair.phase}"
        cfg = str(work / side / "cairn.toml")
        cmd = [CAIRN, "eval", "--config", cfg, "--no-progress", "--json", f"{tag}.json"]
        cmd += ["--cache-dir", str(work / f"cache-{tag}"), "--artifact", str(work / f"run-{tag}.jsonl")]
        run([*cmd, *extra], work / side)
        return json.loads((work / side / f"{tag}.json").read_text())

    pair.phase = "baseline"
    baseline = evaluate("base", [])
    base_report = str((work / "base" / baseline["report"]).resolve())
    pair.phase = "candidate"
    ctl = ["--control", str(base_cfg)] if control == "base" else ["--drift-probe"]
    evaluate("cand", ["--baseline", base_report, *ctl])
    cand_report = str(next((work / "cand" / "reports" / "latest").glob("*.json")))
    control_report = str(next((work / "cand" / "reports" / "control").glob("*.json")))
    gate_cmd = [CAIRN, "gate", base_report, cand_report, "--control", control_report, "--json", "-"]
    gate = run(gate_cmd, work / "cand", ok=(0, 1, 3))
    decision = json.loads(gate.stdout)
    calls = {k: v for k, v in pair.calls.items() if k[0] == "candidate"}
    cand_asks = Counter({k[3]: v for k, v in calls.items() if k[1] == "cand" and k[2] == "target"})
    base_asks = Counter({k[3]: v for k, v in calls.items() if k[1] == "base" and k[2] == "target"})
    changed = [c for c, v in cand_asks.items() if v > 1]
    extra = sum(cand_asks.values()) - len(cand_asks) + sum(base_asks.values())
    return {
        "exit": gate.returncode,
        "decision": decision,
        "changed": changed,
        "extra": extra,
        "judge_calls": sum(v for k, v in calls.items() if k[2] == "judge"),
        "broken": sorted(pair.broken),
    }


def wilson(k: int, n: int) -> str:
    ci = binomtest(k, n).proportion_ci(method="wilson")
    return f"{100 * k / n:.1f} % [{100 * ci.low:.1f}, {100 * ci.high:.1f}]"


SHIFTED = "the environment shifted since the baseline"


def load_truth() -> Truth:
    lines = (ROOT / "golden" / "golden.jsonl").read_text().splitlines()
    report = json.loads((ROOT / "reports" / "latest" / "default.json").read_text())
    return Truth([json.loads(x) for x in lines if x.strip()], {row["case_id"] for row in report["per_case"]})


def summary(cell: str, rows: list[dict]) -> dict:
    """One table row from the pairs' outcomes (the rows `--log` writes)."""
    n = len(rows)
    failed = [r for r in rows if r["exit"] == 1]
    shifted = sum(r["exit"] != 1 and r["shifted"] for r in rows)
    reasons = Counter(x["code"] for r in failed for x in r["reasons"])
    changed = sum(len(r["changed"]) for r in rows)
    ratios = [r["extra"] / len(r["changed"]) for r in rows if r["changed"]]
    if cell == "badday":
        met = len(failed) <= 0.05 * n and shifted >= 0.8 * n
    elif cell == "null":
        met = len(failed) <= 0.05 * n
    else:
        met = len(failed) >= {"lose2": 0.95, "lose8": 0.9, "drop_nc10": 0.8}[cell] * n
    return {
        "cell": cell,
        "pairs": n,
        "failed": wilson(len(failed), n),
        "incomplete": sum(r["exit"] == 3 for r in rows),
        "reasons": ", ".join(f"{k} {v}" for k, v in reasons.most_common()) or "-",
        "shifted": wilson(shifted, n),
        "changed": f"{changed / n:.1f}",
        "extra": f"{sum(r['extra'] for r in rows) / max(changed, 1):.2f} (max {max(ratios, default=0):.2f})",
        "judge": f"{sorted(r['judge_calls'] for r in rows)[n // 2]}",
        "goal": GOALS[cell],
        "met": "met" if met else "not met",
    }


def outcome(pair: Pair, out: dict, args: argparse.Namespace) -> dict:
    """What is kept of a pair: exit, the failing reasons (with the flip rate of each case they name)."""
    reasons = out["decision"]["decision"]["reasons"] if out["exit"] == 1 else []
    row = {k: out[k] for k in ("exit", "changed", "extra", "judge_calls", "broken")}
    row |= {"name": f"{pair.cell}-{pair.index}", "cell": pair.cell, "seed": args.seed, "q": args.q}
    row["flip"] = args.flip  # None: Beta(0.25, 3.5) per case
    row["reasons"] = [{k: x.get(k) for k in ("code", "subject", "message")} for x in reasons]
    row["flip_of_subjects"] = {
        x["subject"]: pair.flip[x["subject"]] for x in reasons if x.get("subject") in pair.flip
    }
    text = json.dumps(out["decision"]["decision"])
    row["shifted"] = SHIFTED in text
    # The note's tier: "not this PR" (the pairing clears it, aggregate rules discounted) or the middle one.
    row["shift_tier"] = (
        "cleared" if f"{SHIFTED}, not this PR" in text else "middle" if row["shifted"] else None
    )
    return row


def table(results: dict[str, list[dict]]) -> list[str]:
    head = ["cell", "pairs", "gate failed (95 % Wilson)", "incomplete", "reasons (failed pairs)"]
    head += ["says shifted, not failed", "changed cases/pair", "extra asks per changed case (max)"]
    head += ["PR judge calls (median)", "goal", ""]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [
        "| " + " | ".join(str(v) for v in summary(c, rows).values()) + " |" for c, rows in results.items()
    ]
    for cell in ("null", "badday"):  # every case a same-system pair was failed for, with its flip rate there
        for r in results.get(cell, []):
            for x in r["reasons"]:
                f = r["flip_of_subjects"].get(x["subject"])
                lines.append(
                    f"- {r['name']}: {x['code']} {x['subject'] or ''}" + (f" (f {f:.2f})" if f else "")
                )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", nargs="+", default=list(GOALS), choices=list(GOALS))
    parser.add_argument("--pairs", type=int, default=None, help="pairs per cell other than null (default 80)")
    parser.add_argument("--null-pairs", type=int, default=None, help="pairs of the null cell (default 200)")
    parser.add_argument("--quick", action="store_true", help="30 null pairs, 12 per other cell (~10 min)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--q", type=float, default=0.05, help="the judge's base error rate per call")
    parser.add_argument(
        "--flip",
        type=float,
        default=None,
        help="every case's flip rate (the issue's uniform noise, e.g. 0.05) instead of Beta(0.25, 3.5)",
    )
    parser.add_argument("--control", choices=["base", "probe"], default="base")
    parser.add_argument("--jobs", type=int, default=2, help="pairs run at once")
    parser.add_argument("--log", type=Path, default=None, help="append each pair's outcome here (JSONL)")
    parser.add_argument("--start", type=int, default=0, help="first pair index (rerun one pair: --pairs 1)")
    parser.add_argument("--explain", action="store_true", help="print each pair's verdict, reasons and notes")
    parser.add_argument(
        "--from-log", type=Path, default=None, help="print the table of a --log file and stop"
    )
    args = parser.parse_args(argv)
    if args.from_log:
        logged: dict[str, list[dict]] = {}
        for line in args.from_log.read_text().splitlines():
            row = json.loads(line)
            logged.setdefault(row.get("cell") or row["name"].rsplit("-", 1)[0], []).append(row)
        print("\n".join(table(logged)))
        return 0
    pairs_n = args.pairs or (12 if args.quick else 80)
    null_n = args.null_pairs or (30 if args.quick else 200)
    truth = load_truth()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    work = Path(tempfile.mkdtemp(prefix="heldout-noise-"))
    corpus = work / "corpus"
    run([CAIRN, "corpus", "generate", "--out", str(corpus)], work)
    started, cpu0 = time.monotonic(), os.times()
    results: dict[str, list[dict]] = {}
    log_lock = threading.Lock()

    def job(cell: str, i: int) -> dict:
        name = f"{cell}-{i}"
        pair = Handler.pairs[name] = Pair(truth, args, cell, i)
        out = one_pair(pair, name, port, work / name, corpus, args.control)
        row = outcome(pair, out, args)
        shutil.rmtree(work / name, ignore_errors=True)
        del Handler.pairs[name]
        if args.explain:
            decision = {k: out["decision"]["decision"][k] for k in ("status", "headline", "reasons", "notes")}
            print(name, json.dumps(decision, indent=1), file=sys.stderr, flush=True)
        if args.log:
            with log_lock, args.log.open("a") as handle:
                handle.write(json.dumps(row) + "\n")
        return row

    try:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            for cell in args.cells:
                n = null_n if cell == "null" else pairs_n
                results[cell] = list(pool.map(lambda i, c=cell: job(c, i), range(args.start, args.start + n)))
                print(table({cell: results[cell]})[2], file=sys.stderr, flush=True)
    except HarnessError as exc:
        print(f"harness error: {exc}", file=sys.stderr)
        return 2
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    wall, cpu1 = time.monotonic() - started, os.times()
    cpu = sum(cpu1[k] - cpu0[k] for k in range(4))
    noise = f"flip {args.flip:g} on every case" if args.flip is not None else "flip rates Beta(0.25, 3.5)"
    where = f"control {args.control}; wall {wall:.0f} s, CPU {cpu:.0f} s"
    print(f"seed {args.seed}, {noise}, judge q {args.q}, {where}")
    print("\n".join(table(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
