"""The rules that can fail a pull request, simulated in numpy before building (issue 23, round 4): a model.

gate_noise.py's mixed model (72 cases, 39 right; per pair 4 cases flip with p .5, 11 with .2, 57 with .01).
The baseline asks every case 3 times. The candidate asks once; a changed case (first sample against the
baseline's verdict) is re-asked `confirm` more times (4; `--critical-confirm` for a critical case), and a
confirmed case whose samples disagree and still differ gets `flaky` more (5; gate/confirm.py's flaky_plan).
With the base control (`control`), the base system is asked 3 fresh times on every changed case, on the
same provider at the same moment, and the rules read this PR's fresh samples against those (gate/control.py's
fresh_samples); without it (`none`), the candidate's every sample against the baseline's 3.

The rules modelled (the guarantee rule is not: it failed 0 to 2 % of honest pairs end to end):
- critical: a changed critical case that broke is lost when its one-sided Fisher p, Holm-adjusted over the
  critical cases that broke, is at most `level`; a *known flaky* case (either side's samples disagree) at
  most `level x flaky_factor` (`--flaky-factor`; 1 is main's rule);
- correctness: Mantel-Haenszel stratified by case over every sample, one-sided p < `--correctness-level`,
  and at least 2 more cases broke than fixed; with the base control, discounted when the shift note is said
  (weighted first-pass test p < 0.1, the fresh pairing clear at p >= 0.2), as gate/__init__.py does.

    cd benchmarks && ../.venv/bin/python blame_rules_sim.py --draws 1000
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate_rules_sim import ANSWERABLE, CRIT, SAFETY, TRUTH, fisher

from cairn_action.gate.stats import holm_adjusted, mantel_haenszel_drop, weighted_drop

N = len(TRUTH)
SHIFT = 0.05 * N / TRUTH.sum()


@dataclass(frozen=True)
class Rules:
    name: str
    level: float = 0.1
    flaky_factor: float = 1.0
    correctness_level: float = 0.05
    critical_confirm: int = 4
    confirm: int = 4
    flaky: int = 5
    committed: bool = False
    fresh_correctness: bool = False
    clean_round: bool = False
    baseline_read: str = "3"
    candidate_read: str = "all"
    flaky_from: str = "read"
    shift_read: str = ""
    """A critical case wrong in every sample (against a right baseline verdict) gets the flaky round too."""
    """Without a control, the correctness test reads a re-asked case's fresh samples only (not the first,
    which chose it for differing)."""
    """With the base control, the committed baseline's samples disagreeing make a case known flaky too."""
    """The critical rule's baseline read: "3" the first 3 samples (as built); "all-wrong" all 10 of the
    committed baseline for a case whose candidate samples are all wrong, the first 3 otherwise; "all" all 10
    for every critical case. Known flaky reads the same samples (either side's disagree). With the base
    control too, the 10 are the committed baseline's (the control asks 3). Round 5: "rest" the 7 samples
    that did not choose the case (the baseline's 4th to 10th: its first 3 made the verdict the candidate's
    first sample differed from); with the base control, the control's 3 fresh asks and those 7."""
    """The critical rule's candidate read (round 5): "all" every sample (as built); "fresh" without the
    first sample, which chose the case for differing (with the base control the rules already read the
    fresh samples only)."""
    """Which samples make a case known flaky (round 5): "read" the samples the critical rule reads; "3"
    the baseline's (or the control's) first 3 and the candidate's read: a rule on disagreement among 7 or
    10 samples calls almost every case flaky at uniform p .10 (10 samples all agree 35 % of the time)."""
    """With the base control (round 5): "shifted" when the shift test fires (the first pass against every
    baseline sample, p < 0.1), "cleared" when the fresh pairing clears the PR as well (p >= 0.2), the
    critical rule reads as round 4 built it (the control's 3 against the fresh samples, known flaky at
    half): the committed samples predate the shift."""


UNIFORM: list[float] = []
"""`--uniform P`: every case flips with p P instead of the mixed model (gate_noise.py's `--p P`)."""


def noise(rng: np.random.Generator) -> np.ndarray:
    if UNIFORM:
        return np.full(N, UNIFORM[0])
    order = rng.permutation(N)
    p = np.full(N, 0.01)
    p[order[:4]], p[order[4:15]] = 0.5, 0.2
    return p


def pair(rng: np.random.Generator, rules: Rules, broken: list[int], shift: float, control: bool) -> dict:
    p = noise(rng)
    cand_truth = TRUTH.copy()
    cand_truth[broken] = False

    def asks(k: int, truth: np.ndarray, drift: float) -> np.ndarray:
        right = (rng.random((N, k)) >= p[:, None]) == truth[:, None]
        return (right & ~(rng.random((N, k)) < drift)).sum(1)

    right_b = asks(3, TRUTH, 0.0)
    verdict_b = right_b >= 2
    first = asks(1, cand_truth, shift)
    changed = (first == 1) != verdict_b
    confirm = np.where(CRIT, rules.critical_confirm, rules.confirm)
    # the re-asks: `confirm` of them per changed case
    draws = (rng.random((N, 10)) >= p[:, None]) == cand_truth[:, None]
    draws &= ~(rng.random((N, 10)) < shift)
    fresh = np.array([draws[i, : confirm[i]].sum() if changed[i] else 0 for i in range(N)])
    n_fresh = np.where(changed, confirm, 0)
    total = fresh + first
    split = changed & (total > 0) & (total < n_fresh + 1) & ((2 * total > n_fresh + 1) != verdict_b)
    if rules.clean_round:
        split |= changed & CRIT & verdict_b & (total == 0)
    more = asks(rules.flaky, cand_truth, shift)
    fresh = np.where(split, fresh + more, fresh)
    n_fresh = np.where(split, n_fresh + rules.flaky, n_fresh)
    ids = np.flatnonzero(changed)
    extra = int(n_fresh.sum())
    if control:
        ref_right, ref_n = np.where(changed, asks(3, TRUTH, shift), right_b), 3
        c_right, c_n = np.where(changed, fresh, first), np.where(changed, n_fresh, 1)
        extra += 3 * len(ids)
        extra += max(0, min(3 * len(ids), 10 * len(ids) - extra))  # the drift probe takes what is left
    else:
        ref_right, ref_n = right_b, 3
        c_right, c_n = fresh + first, n_fresh + 1
    ref_v = 2 * ref_right > ref_n
    c_v = np.where(2 * c_right == c_n, first == 1, 2 * c_right > c_n)
    broke = ids[ref_v[ids] & ~c_v[ids]]
    fixed = ids[~ref_v[ids] & c_v[ids]]
    family = [i for i in broke if CRIT[i]]
    # the baseline's 7 further samples (default baseline_samples 10), drawn only when a rule reads them
    rest_b = asks(7, TRUTH, 0.0) if rules.baseline_read != "3" else np.zeros(N, dtype=int)
    whole_b = right_b + rest_b

    def base_read(i: int) -> tuple[int, int]:
        if rules.baseline_read == "rest":
            return (int(ref_right[i] + rest_b[i]), 10) if control else (int(rest_b[i]), 7)
        if rules.baseline_read == "all+control" and control:
            return int(ref_right[i] + whole_b[i]), 13
        if rules.baseline_read in ("all", "all+control") or (
            rules.baseline_read == "all-wrong" and c_right[i] == 0
        ):
            return int(whole_b[i]), 10
        return int(ref_right[i]), ref_n

    def cand_read(i: int) -> tuple[int, int]:
        if rules.candidate_read == "fresh" and not control:
            return int(fresh[i]), int(n_fresh[i])
        return int(c_right[i]), int(c_n[i])

    reads = [(*base_read(i), *cand_read(i)) for i in family]
    raw = [fisher(*read) for read in reads]
    adjusted = holm_adjusted(raw) if raw else []
    flaky_case = [
        (0 < r < n if rules.flaky_from == "read" else 0 < ref_right[i] < ref_n)
        or (0 < cr < cn)
        or (rules.committed and 0 < right_b[i] < 3)
        for (r, n, cr, cn), i in zip(reads, family, strict=True)
    ]
    bars = [rules.level * (rules.flaky_factor if f else 1.0) for f in flaky_case]
    critical = any(a <= bar for a, bar in zip(adjusted, bars, strict=True))
    if control and rules.shift_read:
        k = 10 if rules.baseline_read != "3" else 3
        moved = weighted_drop([(int(whole_b[i]), k, int(first[i]), 1) for i in range(N)])
        now = mantel_haenszel_drop([(int(ref_right[i]), 3, int(fresh[i]), int(n_fresh[i])) for i in ids])
        shifted = moved.p_one_sided < 0.1 and moved.n_after - moved.right_after >= 2
        if shifted and (rules.shift_read == "shifted" or now.p_one_sided >= 0.2):
            old = [fisher(int(ref_right[i]), ref_n, int(c_right[i]), int(c_n[i])) for i in family]
            flaky = [0 < ref_right[i] < ref_n or 0 < c_right[i] < c_n[i] for i in family]
            bars = [0.1 * (0.5 if f else 1.0) for f in flaky]
            critical = any(a <= b for a, b in zip(holm_adjusted(old) if old else [], bars, strict=True))
    tables = [(int(ref_right[i]), ref_n, int(c_right[i]), int(c_n[i])) for i in range(N)]
    if rules.fresh_correctness and not control:
        tables = [
            (int(ref_right[i]), ref_n, int(fresh[i]), int(n_fresh[i])) if changed[i] else tables[i]
            for i in range(N)
        ]
    mh = mantel_haenszel_drop(tables)
    correctness = mh.p_one_sided < rules.correctness_level and len(broke) - len(fixed) >= 2
    if control and correctness:
        pairing = mantel_haenszel_drop([(int(ref_right[i]), 3, int(fresh[i]), int(n_fresh[i])) for i in ids])
        whole = weighted_drop([(int(right_b[i]), 3, int(first[i]), 1) for i in range(N)])
        shifted = whole.p_one_sided < 0.1 and whole.n_after - whole.right_after >= 2
        correctness = not (shifted and pairing.p_one_sided >= 0.2)
    return {
        "critical": critical,
        "correctness": correctness,
        "failed": critical or correctness,
        "asks": extra / len(ids) if len(ids) else 0.0,
    }


VARIANTS = {
    "main": Rules("main"),
    "flaky x1/2": Rules("flaky x1/2", flaky_factor=0.5),
    "flaky x1/4": Rules("flaky x1/4", flaky_factor=0.25),
    "critical .05": Rules("critical .05", level=0.05),
    "crit 9 re-asks": Rules("crit 9 re-asks", critical_confirm=9),
    "crit 9, flaky x1/2": Rules("crit 9, flaky x1/2", critical_confirm=9, flaky_factor=0.5),
    "correctness .025": Rules("correctness .025", correctness_level=0.025),
    "flaky x1/2, corr .025": Rules("flaky x1/2, corr .025", flaky_factor=0.5, correctness_level=0.025),
    "flaky x1/2, corr .03": Rules("flaky x1/2, corr .03", flaky_factor=0.5, correctness_level=0.03),
    "flaky x0.4, corr .025": Rules("flaky x0.4, corr .025", flaky_factor=0.4, correctness_level=0.025),
    "flaky x1/4, corr .025": Rules("flaky x1/4, corr .025", flaky_factor=0.25, correctness_level=0.025),
    "flaky x1/2, corr .025 fresh": Rules(
        "flaky x1/2, corr .025 fresh", flaky_factor=0.5, correctness_level=0.025, fresh_correctness=True
    ),
    "flaky x1/2, corr .05 fresh": Rules(
        "flaky x1/2, corr .05 fresh", flaky_factor=0.5, fresh_correctness=True
    ),
    "built + clean round": Rules(
        "built + clean round", flaky_factor=0.5, correctness_level=0.025, clean_round=True
    ),
    "built, all 10 if all wrong": Rules(
        "built, all 10 if all wrong", flaky_factor=0.5, correctness_level=0.025, baseline_read="all-wrong"
    ),
    "built, all 10": Rules("built, all 10", flaky_factor=0.5, correctness_level=0.025, baseline_read="all"),
    "rest 7, fresh": Rules(
        "rest 7, fresh", correctness_level=0.025, baseline_read="rest", candidate_read="fresh"
    ),
    "rest 7, fresh, flaky x1/2": Rules(
        "rest 7, fresh, flaky x1/2",
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="rest",
        candidate_read="fresh",
    ),
    "all 10, fresh": Rules(
        "all 10, fresh", correctness_level=0.025, baseline_read="all", candidate_read="fresh"
    ),
    "all 10, fresh, flaky x1/2": Rules(
        "all 10, fresh, flaky x1/2",
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="all",
        candidate_read="fresh",
    ),
    "rest 7, all": Rules("rest 7, all", correctness_level=0.025, baseline_read="rest"),
    "rest 7, all, flaky x1/2": Rules(
        "rest 7, all, flaky x1/2", flaky_factor=0.5, correctness_level=0.025, baseline_read="rest"
    ),
    "rest 7, fresh, crit .05": Rules(
        "rest 7, fresh, crit .05",
        level=0.05,
        correctness_level=0.025,
        baseline_read="rest",
        candidate_read="fresh",
    ),
    "rest 7, fresh, crit .05, flaky x1/2": Rules(
        "rest 7, fresh, crit .05, flaky x1/2",
        level=0.05,
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="rest",
        candidate_read="fresh",
    ),
    "rest 7, fresh, flaky(3) x1/2": Rules(
        "rest 7, fresh, flaky(3) x1/2",
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="rest",
        candidate_read="fresh",
        flaky_from="3",
    ),
    "all 10, fresh, crit .05": Rules(
        "all 10, fresh, crit .05",
        level=0.05,
        correctness_level=0.025,
        baseline_read="all",
        candidate_read="fresh",
    ),
    "all 10 (+control 3), fresh, crit .05": Rules(
        "all 10 (+control 3), fresh, crit .05",
        level=0.05,
        correctness_level=0.025,
        baseline_read="all+control",
        candidate_read="fresh",
    ),
    "all 10 (+control 3), fresh, crit .05, round 4 if shifted": Rules(
        "all 10 (+control 3), fresh, crit .05, round 4 if shifted",
        level=0.05,
        correctness_level=0.025,
        baseline_read="all+control",
        candidate_read="fresh",
        shift_read="shifted",
    ),
    "all 10 (+control 3), fresh, crit .05, round 4 if cleared": Rules(
        "all 10 (+control 3), fresh, crit .05, round 4 if cleared",
        level=0.05,
        correctness_level=0.025,
        baseline_read="all+control",
        candidate_read="fresh",
        shift_read="cleared",
    ),
    "all 10, crit .05": Rules("all 10, crit .05", level=0.05, correctness_level=0.025, baseline_read="all"),
    "all 10, fresh, flaky(3) x1/2": Rules(
        "all 10, fresh, flaky(3) x1/2",
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="all",
        candidate_read="fresh",
        flaky_from="3",
    ),
    "all 10, flaky(3) x1/2": Rules(
        "all 10, flaky(3) x1/2",
        flaky_factor=0.5,
        correctness_level=0.025,
        baseline_read="all",
        flaky_from="3",
    ),
    "flaky+committed x1/2, corr .025": Rules(
        "flaky+committed x1/2, corr .025", flaky_factor=0.5, correctness_level=0.025, committed=True
    ),
    "flaky+committed x0.4, corr .025": Rules(
        "flaky+committed x0.4, corr .025", flaky_factor=0.4, correctness_level=0.025, committed=True
    ),
    "flaky+committed x1/4, corr .025": Rules(
        "flaky+committed x1/4, corr .025", flaky_factor=0.25, correctness_level=0.025, committed=True
    ),
}


KINDS = {
    "null": ("plain", 0, 0.0),
    "bad day": ("plain", 0, SHIFT),
    "2 safety lost": ("safety", 2, 0.0),
    "10 points, non-critical": ("plain", 5, 0.0),
    "8 lost": ("plain", 8, 0.0),
}
"""Candidate -> (which right cases it may lose, how many it loses, the bad day's shift)."""


def line(labels: list[str], runs: list[dict]) -> str:
    """One table row: the labels, the share of pairs failed (any rule, critical, correctness), the asks."""
    cells = [f"{np.mean([r[k] for r in runs]):.1%}" for k in ("failed", "critical", "correctness")]
    asks = np.median([r["asks"] for r in runs if r["asks"]])
    return "| " + " | ".join([*labels, *cells, f"{asks:.1f}"]) + " |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--control", nargs="+", default=["none", "base"], choices=["none", "base"])
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--uniform", type=float, default=None, help="uniform noise p instead of mixed")
    args = parser.parse_args()
    if args.uniform is not None:
        UNIFORM.append(args.uniform)
    rng = np.random.Generator(np.random.PCG64(34))
    pools = {"safety": np.flatnonzero(TRUTH & SAFETY), "plain": np.flatnonzero(TRUTH & ANSWERABLE & ~CRIT)}
    model = "mixed noise" if args.uniform is None else f"uniform noise p {args.uniform:g}"
    print(f"{args.draws} pairs a cell, {model}; share of pairs failed (by critical, by correctness)")
    print("| rules | control | candidate | failed | critical | correctness | extra asks / changed case |")
    print("|---|---|---|---|---|---|---|")
    for name in args.variants:
        for control in args.control:
            for kind in args.kinds:
                pool, lost, shift = KINDS[kind]
                rules, base = VARIANTS[name], control == "base"
                runs = [
                    pair(rng, rules, list(rng.choice(pools[pool], lost, replace=False)), shift, base)
                    for _ in range(args.draws)
                ]
                print(line([name, control, kind], runs), flush=True)


if __name__ == "__main__":
    main()
