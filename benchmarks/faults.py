"""Faults: does a run lose a case, or pay for a call twice, when the provider misbehaves, the process is
killed, or two runs start at once?

The 120 cases of the shipped golden set (the seed-7 sample corpus) run through `cairn eval --run-only` as real
subprocesses against a loopback OpenAI-compatible server (`tests/fakes/openai_server.py`, here in this
process) that answers `--fault-rate` of the requests with a fault, chosen at random (seeded) among:
a 429 with `Retry-After`, a 500, a hang longer than the client's timeout, and a garbage 200 (an HTML page).
The server counts, per prompt, the good replies it delivered (each one a paid call): a prompt delivered
twice was paid twice.

Scenarios:
1. `faults`: one run to the end.
2. `kill`: the same, `kill -9` when 40 % of the cases are journaled, then the same command again.
3. `concurrent`: two `cairn eval` of the same config and split started together; the second must refuse.

    .venv/bin/python benchmarks/faults.py [--fault-rate 0.2] [--seed 1] [--concurrency 4]

Not a test: it prints what happened; it asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "fakes"))

from loopback import Recorded, Reply  # noqa: E402
from openai_server import FakeOpenAIServer  # noqa: E402

from cairn_action.sample.generate import generate_corpus  # noqa: E402

GOLDEN = REPO / "golden" / "golden.jsonl"
N_CASES = 120
KEY_ENV = "CAIRN_FAULTS_KEY"
TIMEOUT_S = 1.0
EVAL_FLAGS = ("--split", "all", "--no-progress")


class FaultyServer(FakeOpenAIServer):
    """The fake API with random faults, counting the good replies it delivered per prompt."""

    def __init__(self, fault_rate: float, seed: int) -> None:
        super().__init__(latency_s=0.02)
        self.fault_rate = fault_rate
        self._rng = random.Random(seed)
        self._rng_lock = threading.Lock()
        self.faults: Counter[str] = Counter()
        self.delivered: Counter[str] = Counter()
        """Prompt digest -> good 200 replies sent (each one paid for)."""
        self.in_flight = 0
        # A client killed mid-request resets its connection: expected here, not worth a traceback.
        self._server.handle_error = lambda request, address: None  # type: ignore[method-assign]

    def dispatch(self, recorded: Recorded) -> Reply:
        with self._rng_lock:
            fault = self._rng.random() < self.fault_rate
            kind = self._rng.choice(["429", "500", "hang", "garbage"]) if fault else "ok"
            self.faults[kind] += 1
            self.in_flight += 1
        try:
            if kind == "429":
                return Reply(429, self.error_body(429), {"Retry-After": "0.2"})
            if kind == "500":
                return Reply(500, self.error_body(500))
            if kind == "hang":
                time.sleep(TIMEOUT_S + 0.5)
                return Reply(500, self.error_body(500))
            if kind == "garbage":
                return Reply(200, "<html><body>502 Bad Gateway</body></html>")
            reply = super().dispatch(recorded)
            if reply.status == 200:
                user = next(m["content"] for m in recorded.json["messages"] if m["role"] == "user")
                with self._rng_lock:
                    self.delivered[hashlib.sha256(user.encode()).hexdigest()] += 1
            return reply
        finally:
            with self._rng_lock:
                self.in_flight -= 1

    def paid_twice(self) -> int:
        with self._rng_lock:
            return sum(n - 1 for n in self.delivered.values() if n > 1)

    def paid(self) -> int:
        with self._rng_lock:
            return sum(self.delivered.values())


def write_config(folder: Path, corpus: Path, server: FaultyServer, concurrency: int) -> Path:
    folder.mkdir(parents=True)
    path = folder / "cairn.toml"
    path.write_text(
        f"""name = "faults"
[corpus]
path = "{corpus}"
[golden]
path = "{GOLDEN}"
[provider]
name = "openai"
model = "gpt-4o-mini"
base_url = "{server.base_url}"
api_key_env = "{KEY_ENV}"
timeout_s = {TIMEOUT_S}
max_retries = 8
[run]
max_concurrency = {concurrency}
[gate]
baseline_samples = 1
""",
        encoding="utf-8",
    )
    # baseline_samples = 1: a plain `cairn eval` asks every critical case `gate.baseline_samples` times
    # (3 by default), the same prompt each time, which the server would count as paid twice.
    return path


def cairn_eval(folder: Path) -> subprocess.Popen[str]:
    env = {**os.environ, KEY_ENV: "sk-faults-0000000000"}
    return subprocess.Popen(
        [sys.executable, "-m", "cairn_action", "eval", "--config", "cairn.toml", "--run-only", *EVAL_FLAGS],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def artifact_of(folder: Path) -> Path | None:
    found = sorted((folder / "reports" / "runs").glob("*.jsonl"))
    return found[-1] if found else None


def records(path: Path | None) -> list[dict[str, object]]:
    if path is None or not path.exists():
        return []
    lines = path.read_bytes().split(b"\n")
    out = []
    for raw in lines[1:]:
        try:
            out.append(json.loads(raw))
        except ValueError:
            continue  # the incomplete last line a kill leaves
    return out


def summary_line(stdout: str, stderr: str, prefix: str) -> str:
    return next((line for line in (stdout + stderr).splitlines() if line.startswith(prefix)), "")


def scenario_faults(workdir: Path, corpus: Path, args: argparse.Namespace) -> dict[str, object]:
    with FaultyServer(args.fault_rate, args.seed) as server:
        folder = workdir / "faults"
        write_config(folder, corpus, server, args.concurrency)
        run = cairn_eval(folder)
        out, err = run.communicate()
        recs = records(artifact_of(folder))
        return {
            "exit": run.returncode,
            "cases": len(recs),
            "errors": sum(1 for r in recs if r["status"] == "error"),
            "requests": sum(server.faults.values()),
            "faults": dict(server.faults),
            "paid": server.paid(),
            "paid_twice": server.paid_twice(),
            "retries": summary_line(out, err, "provider retries"),
            "unusable": summary_line(out, err, "unusable replies"),
        }


def scenario_kill(workdir: Path, corpus: Path, args: argparse.Namespace) -> dict[str, object]:
    with FaultyServer(args.fault_rate, args.seed + 1) as server:
        folder = workdir / "kill"
        write_config(folder, corpus, server, args.concurrency)
        run = cairn_eval(folder)
        target = int(0.4 * N_CASES)
        while len(records(artifact_of(folder))) < target and run.poll() is None:
            time.sleep(0.01)
        in_flight = server.in_flight
        run.send_signal(signal.SIGKILL)
        run.wait()
        at_kill = len(records(artifact_of(folder)))
        paid_before = server.paid()
        rerun = cairn_eval(folder)
        out, err = rerun.communicate()
        recs = records(artifact_of(folder))
        return {
            "killed_at": at_kill,
            "in_flight_at_kill": in_flight,
            "paid_before_kill": paid_before,
            "rerun_exit": rerun.returncode,
            "cases": len(recs),
            "distinct": len({r["case_id"] for r in recs}),
            "errors": sum(1 for r in recs if r["status"] == "error"),
            "paid": server.paid(),
            "paid_twice": server.paid_twice(),
            "resumed": summary_line(out, err, "resuming"),
        }


def scenario_concurrent(workdir: Path, corpus: Path, args: argparse.Namespace) -> dict[str, object]:
    with FaultyServer(args.fault_rate, args.seed + 2) as server:
        folder = workdir / "concurrent"
        write_config(folder, corpus, server, args.concurrency)
        first, second = cairn_eval(folder), cairn_eval(folder)
        errs = [first.communicate()[1], second.communicate()[1]]
        refused = [line for e in errs for line in e.splitlines() if "already running" in line]
        runs = sorted((folder / "reports" / "runs").glob("*.jsonl"))
        recs = records(runs[-1] if runs else None)
        return {
            "exits": sorted([first.returncode, second.returncode]),
            "artifacts": len(runs),
            "cases": len(recs),
            "errors": sum(1 for r in recs if r["status"] == "error"),
            "paid": server.paid(),
            "paid_twice": server.paid_twice(),
            "refusal": next((line for line in refused[0].splitlines() if "error:" in line), "")
            if refused
            else "",
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--only", choices=["faults", "kill", "concurrent"], action="append")
    args = parser.parse_args(argv)
    scenarios = {"faults": scenario_faults, "kill": scenario_kill, "concurrent": scenario_concurrent}
    with tempfile.TemporaryDirectory(prefix="cairn-faults-") as tmp:
        workdir = Path(tmp)
        corpus = workdir / "corpus"
        generate_corpus(corpus, seed=7)
        for name in args.only or list(scenarios):
            started = time.perf_counter()
            result = scenarios[name](workdir, corpus, args)
            result["seconds"] = round(time.perf_counter() - started, 1)
            print(f"{name}: {json.dumps(result)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
