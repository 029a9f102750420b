"""Judge draws under a noisy LLM judge, simulated in numpy before building (issue 23): a model of the rules.

Only the judge is noisy (the answers are fixed, as `gate_noise.py --p 0 --judge-noise Q` runs): each judge
draw on an answered answerable case flips with probability q (abstentions and answered unanswerable cases are
decided without the model, so never flip). The baseline asks every case 3 times; the candidate asks once,
then 4 more times on a case whose verdict differs from the baseline's, and 6 more when those samples still
disagree. Critical losses: one-sided Fisher per case, Holm over the critical cases that broke at 0.1.
Rules compared, for a judge that is not deterministic:

- `one`: one judge draw per sample (main);
- `maj-cand`: a confirmation sample (a changed case's re-asks) is judged twice, and a third time when the
  two draws disagree; the sample's verdict is their majority (flip rate q^2 (3 - 2q));
- `maj-base`: the same for every baseline sample only (paid on the default branch, once per merge);
- `maj-both`: both of the above;
- `base-split`: one draw, but a baseline whose samples disagree also earns the candidate the 6 more asks.

    .venv/bin/python benchmarks/judge_draws_sim.py --draws 4000
"""

from __future__ import annotations

import argparse

import numpy as np
from gate_rules_sim import ANSWERABLE, CRIT, SAFETY, TRUTH, N, fisher, holm_rejections, noise_model

from cairn_action.gate.stats import holm_adjusted

FLAKY: list[float] = [1.0]
"""`--flaky-factor F`: a known-flaky lost case (either side's samples disagree) at Holm p <= 0.1 x F (round 4:
1/2); 1 is the rule before round 4."""

BASE_READ: list[str] = ["3"]
"""`--baseline-read`: the critical rule's baseline read. "3" the first 3 samples (as built); "all-wrong"
all 10 (the default baseline_samples) for a case whose candidate samples are all wrong, the first 3
otherwise; "all" all 10 for every critical case. Known flaky reads the same samples."""


CAND_READ: list[str] = ["all"]
"""`--candidate-read` (round 5): "all" every candidate sample of the case; "fresh" without the first, which
chose the case for differing from the baseline."""

LEVEL: list[float] = [0.1]
"""`--level`: the Holm level of the critical rule (`critical_max_p` 0.1; round 5 models 0.05)."""


def majority_flip(q: float) -> float:
    """Flip rate of the majority of two draws and a third on their disagreement."""
    return q * q * (3 - 2 * q)


def pair(rule: str, q: float, answer_noise: np.ndarray, broken: list[int], rng: np.random.Generator):
    """(any critical case lost under Holm, extra judge draws per changed case) for one pair."""
    truth = TRUTH.copy()
    truth[broken] = False
    judged = ANSWERABLE  # only answered answerable cases go to the model
    strong = majority_flip(q)

    def asks(k: int, t: np.ndarray, flip: float) -> np.ndarray:
        answer = (rng.random((N, k)) >= answer_noise[:, None]) == t[:, None]
        judge = np.where(judged[:, None], rng.random((N, k)) < flip, False)
        return (answer != judge).sum(1)

    right_b = asks(3, TRUTH, strong if rule in ("maj-both", "maj-base") else q)
    verdict_b = right_b >= 2
    first = asks(1, truth, q)
    changed = (first == 1) != verdict_b
    confirm_flip = strong if rule in ("maj-cand", "maj-both") else q
    right_c = np.where(changed, first + asks(4, truth, confirm_flip), first)
    n_c = np.where(changed, 5, 1)
    split = changed & (right_c > 0) & (right_c < n_c)
    if rule == "base-split":
        split |= changed & (right_b > 0) & (right_b < 3)
    right_c = np.where(split, right_c + asks(6, truth, confirm_flip), right_c)
    n_c = np.where(split, n_c + 6, n_c)
    verdict_c = np.where(2 * right_c == n_c, first == 1, 2 * right_c > n_c)
    family = [i for i in range(N) if CRIT[i] and verdict_b[i] and not verdict_c[i]]
    if BASE_READ[0] != "3":
        rest_b = asks(7, TRUTH, strong if rule in ("maj-both", "maj-base") else q)
        whole_b = right_b + rest_b
        reads = [
            (int(rest_b[i]), 7)
            if BASE_READ[0] == "rest"
            else (int(whole_b[i]), 10)
            if BASE_READ[0] == "all" or right_c[i] == 0
            else (int(right_b[i]), 3)
            for i in family
        ]
    else:
        reads = [(int(right_b[i]), 3) for i in family]
    fresh = CAND_READ[0] == "fresh"
    cand = [
        (int(right_c[i] - first[i]), int(n_c[i] - 1)) if fresh else (int(right_c[i]), int(n_c[i]))
        for i in family
    ]
    lost = [fisher(r, n, cr, cn) for (r, n), (cr, cn) in zip(reads, cand, strict=True)]
    asked = (n_c - 1)[changed]
    per_draw = (2 + 2 * q * (1 - q)) if rule in ("maj-cand", "maj-both") else 1.0
    judge_extra = float(np.sum(asked * np.where(judged[changed], per_draw, 0)))
    if (FLAKY[0] != 1.0 or BASE_READ[0] != "3") and lost:
        flaky = [0 < r < n or 0 < cr < cn for (r, n), (cr, cn) in zip(reads, cand, strict=True)]
        bars = [LEVEL[0] * (FLAKY[0] if f else 1.0) for f in flaky]
        called = any(a <= bar for a, bar in zip(holm_adjusted(lost), bars, strict=True))
        return called, (judge_extra / changed.sum()) if changed.any() else 0.0
    return holm_rejections(lost, LEVEL[0]) > 0, (judge_extra / changed.sum()) if changed.any() else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--flaky-factor", type=float, default=1.0, help="known-flaky bar share (round 4: 0.5)"
    )
    parser.add_argument(
        "--rules", nargs="+", default=["one", "maj-cand", "maj-base", "maj-both", "base-split"]
    )
    parser.add_argument("--baseline-read", default="3", choices=["3", "all-wrong", "all", "rest"])
    parser.add_argument("--candidate-read", default="all", choices=["all", "fresh"])
    parser.add_argument("--level", type=float, default=0.1)
    args = parser.parse_args()
    CAND_READ[0], LEVEL[0] = args.candidate_read, args.level
    FLAKY[0] = args.flaky_factor
    BASE_READ[0] = args.baseline_read
    rng = np.random.default_rng(args.seed)
    safety_right = np.flatnonzero(TRUTH & SAFETY)
    bar = (
        f"Holm at {args.level:g}, known flaky x{args.flaky_factor:g}, baseline read {args.baseline_read}, "
        f"candidate read {args.candidate_read}"
    )
    print(f"{args.draws} pairs a cell; critical case called lost ({bar})")
    print(
        "| answers | judge q | rule | same system: false alarm | 2 safety lost: caught "
        "| judge draws / changed case |"
    )
    print("|---|---|---|---|---|---|")
    for noise, q in (("fixed", 0.05), ("fixed", 0.10), ("mixed", 0.0), ("mixed", 0.10)):
        for rule in args.rules:
            if q == 0 and rule.startswith("maj"):
                continue
            cells = []
            for broken in (lambda: [], lambda: list(rng.choice(safety_right, 2, replace=False))):
                answers = (
                    (lambda: noise_model("mixed", 0, rng)) if noise == "mixed" else (lambda: np.zeros(N))
                )
                runs = [pair(rule, q, answers(), broken(), rng) for _ in range(args.draws)]
                cells.append((np.mean([r[0] for r in runs]), np.median([r[1] for r in runs if r[1]] or [0])))
            (null, _), (lose, cost) = cells
            print(f"| {noise} | {q:g} | {rule} | {null:.3f} | {lose:.3f} | {cost:.1f} |", flush=True)


if __name__ == "__main__":
    main()
