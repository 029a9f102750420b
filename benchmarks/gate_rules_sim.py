"""The gate's sampling rules simulated in numpy before they were built (issue 23): a model, not Cairn's code.

The shipped eval slice's truth table (which of the 72 cases the stub gets right, which are critical) from
the committed `reports/latest/default.json`; every ask of a case flips its right/wrong with the case's
noise p. Baseline: `baseline_samples` asks of every case, verdict by majority. Candidate: one ask, then
`confirm` more of each case whose verdict differs from the baseline's, then (`flaky`) that many more of a
confirmed case whose samples still disagree. Rules compared:

- critical losses: per-case one-sided Fisher p <= 0.1 (`raw`) against Holm over the critical cases that
  broke (`holm`); the share of pairs with any critical case called lost;
- correctness: exact McNemar on the verdicts against the Mantel-Haenszel test over the samples stratified
  by case (0.5 continuity correction), both at p < 0.05; the share of pairs failed.

Noise: uniform p, or `mixed` (per pair, 4 random cases at p .5, 11 at .2, the rest .01), or `mixed_safety`
(3 of the 4 coin flips are safety cases).

    .venv/bin/python benchmarks/gate_rules_sim.py --draws 2000
"""

from __future__ import annotations

import argparse
import json
from functools import cache
from pathlib import Path

import numpy as np
from scipy.stats import binomtest, fisher_exact, norm

ROOT = Path(__file__).resolve().parents[1]
CRITICAL = {"safety", "unanswerable", "false_premise"}


def table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    report = json.loads((ROOT / "reports/latest/default.json").read_text())
    rows = report["per_case"]
    right = [
        (c["status"] == "abstained") != c["answerable"]
        and (c["status"] != "answered" or c["correct"] is True)
        for c in rows
    ]
    return (
        np.array(right),
        np.array([bool(CRITICAL & set(c["tags"])) for c in rows]),
        np.array(["safety" in c["tags"] for c in rows]),
        np.array([c["answerable"] for c in rows]),
    )


TRUTH, CRIT, SAFETY, ANSWERABLE = table()
N = len(TRUTH)


@cache
def fisher(before: int, n_before: int, after: int, n_after: int) -> float:
    counts = [[before, n_before - before], [after, n_after - after]]
    return float(fisher_exact(counts, alternative="greater").pvalue)


@cache
def mcnemar(b: int, c: int) -> float:
    return float(binomtest(b, b + c, 0.5, alternative="greater").pvalue) if b + c else 1.0


def holm_rejections(p_values: list[float], level: float) -> int:
    for i, p in enumerate(sorted(p_values)):
        if p > level / (len(p_values) - i):
            return i
    return len(p_values)


def noise_model(kind: str, p: float, rng: np.random.Generator) -> np.ndarray:
    if kind == "uniform":
        return np.full(N, p)
    order = list(rng.permutation(N))
    if kind == "mixed_safety":
        coins = list(rng.permutation(np.flatnonzero(SAFETY))[:3])
        order = [i for i in order if i not in coins]
        coins.append(order.pop(0))
    else:
        coins, order = order[:4], order[4:]
    noise = np.full(N, 0.01)
    noise[coins] = 0.5
    noise[order[:11]] = 0.2
    return noise


def pair(
    noise: np.ndarray, broken: list[int], rng: np.random.Generator, flaky: int
) -> tuple[int, int, bool, bool]:
    """(critical cases lost raw, lost under Holm, McNemar fails, Mantel-Haenszel fails) for one pair."""
    truth = TRUTH.copy()
    truth[broken] = False

    def asks(k: int, t: np.ndarray) -> np.ndarray:
        return ((rng.random((N, k)) >= noise[:, None]) == t[:, None]).sum(1)

    right_b = asks(3, TRUTH)
    verdict_b = right_b >= 2
    first = asks(1, truth)
    changed = (first == 1) != verdict_b
    right_c = np.where(changed, first + asks(4, truth), first)
    n_c = np.where(changed, 5, 1)
    split = changed & (right_c > 0) & (right_c < n_c)
    if flaky:
        right_c = np.where(split, right_c + asks(flaky, truth), right_c)
        n_c = np.where(split, n_c + flaky, n_c)
    verdict_c = np.where(2 * right_c == n_c, first == 1, 2 * right_c > n_c)
    lost = [
        fisher(int(right_b[i]), 3, int(right_c[i]), int(n_c[i]))
        for i in range(N)
        if CRIT[i] and verdict_b[i] and not verdict_c[i]
    ]
    b = int(np.sum(verdict_b & ~verdict_c))
    c = int(np.sum(~verdict_b & verdict_c))
    total, right = 3 + n_c, right_b + right_c
    informative = (right > 0) & (right < total)
    expected = 3 * right / total
    variance = 3 * n_c * right * (total - right) / (total * total * (total - 1))
    z = (np.sum((right_b - expected)[informative]) - 0.5) / np.sqrt(np.sum(variance[informative]) or np.inf)
    return (
        sum(p <= 0.1 for p in lost),
        holm_rejections(lost, 0.1),
        mcnemar(b, c) < 0.05,
        bool(norm.sf(z) < 0.05 and b - c >= 2),
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    safety_right = np.flatnonzero(TRUTH & SAFETY)
    plain_right = np.flatnonzero(TRUTH & ANSWERABLE & ~CRIT)
    n_answerable = int(ANSWERABLE.sum())
    candidates = {
        "same system": lambda: [],
        "2 safety lost": lambda: list(rng.choice(safety_right, 2, replace=False)),
        "10 points, non-critical": lambda: list(
            rng.choice(plain_right, round(0.1 * n_answerable), replace=False)
        ),
        "5 points, non-critical": lambda: list(
            rng.choice(plain_right, round(0.05 * n_answerable), replace=False)
        ),
    }
    print(f"{args.draws} pairs a cell; share of pairs failed by each rule")
    print(
        "| noise | candidate | flaky re-asks | critical raw p <= .1 | critical Holm | McNemar "
        "| Mantel-Haenszel |"
    )
    print("|---|---|---|---|---|---|---|")
    for kind, p in (("uniform", 0.05), ("uniform", 0.10), ("mixed", 0.0), ("mixed_safety", 0.0)):
        for name, broken in candidates.items():
            for flaky in (0, 5):
                runs = [pair(noise_model(kind, p, rng), broken(), rng, flaky) for _ in range(args.draws)]
                raw, holm, mc, mh = (np.mean([r[k] > 0 for r in runs]) for k in range(4))
                label = f"{kind} {p:g}" if kind == "uniform" else kind
                print(
                    f"| {label} | {name} | {flaky} | {raw:.3f} | {holm:.3f} | {mc:.3f} | {mh:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
