"""What limits the bad day's note "the environment shifted" (issue 23): a numpy model of the shift test.

Not a test: it prints, per design, how often the note's test fires on a same-system pull request and on a
bad day, under the held-out harness's noise model (benchmarks/heldout_noise.py, re-implemented here in
numpy, without HTTP, the judge's wording or the gate's other rules):

    .venv/bin/python benchmarks/shift_note_sim.py [--worlds 300] [--seed 7] [--later-asks [--extra-probe N]]

The model: 54 answerable and 18 unanswerable eval cases; 70 % and 80 % of them truly right; each case flips
with its own rate f ~ Beta(0.25, 3.5) on every ask; an answerable answer is graded by a judge that errs per
draw with probability q x {.5, 1, 1.5}[difficulty] x (2 when the answer is hedged, which it is with
probability 0.2 + 2 f), the verdict the majority of up to `draws` draws; the bad day turns a right answer
wrong with probability s x {.5, 1, 1.5}[difficulty], s set so that 5 points of all cases are lost in
expectation. The baseline has `baseline_samples` samples per case; the pull request asks every case once
(the first pass) and a probe of `probe` cases right in the baseline's first sample, once each, compared
with the baseline's samples after the first (gate/control.py probe_tables). The note's test is the gate's
own: `stats.weighted_drop` over both, one-sided p < 0.1 (gate/control.py SHIFT_P), at least two answers
now wrong. Each world (a draw of every case's truth, difficulty and f) serves 4 pairs; rates are over
pairs.

With `--later-asks` it models the whole ask budget of a pull request instead (the changed cases, the
candidate's re-asks, the base system's asks and the probe under the cap of 10 extra calls per changed case)
and compares what the note's test reads of the changed cases' later asks (round 8, `reask_tables`).

The default table's designs read the first pass and the probe only, as the gate did until round 8 (since
then it also reads the base system's asks of the changed cases: `--later-asks`).

It leaves out what the gate adds (the fresh pairing may withhold the note) and the harness's hash-based
truth table, so it reads high: on the harness the design of round 7 says "shifted" on 73 % of bad days and
15 % of same-system pull requests (benchmarks/README.md, round 6), here about 79 % and 11 %; round 8's 76 %
and 13.5 % on the harness, about 78 % and 11 % with `--later-asks`.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cairn_action.gate.control import SHIFT_P
from cairn_action.gate.stats import rarity_weight, weighted_drop

N_ANSWERABLE, N_UNANSWERABLE = 54, 18
DIFFICULTY = np.array([0.5, 1.0, 1.5])
PER_WORLD = 4


@dataclass(frozen=True)
class Design:
    name: str
    probe: int = 16
    """Probe asks per pull request: the harness's bad days got 15 to 17 on average under the cap of 10 extra
    calls per changed case (about 10 changed cases, 52 re-asks of the candidate, 29 of the base system)."""
    baseline_samples: int = 10
    chosen_on: int = 1
    """The probe asks cases right in the baseline's first `chosen_on` samples, compared with the others
    (gate/control.py probe_eligible: 1)."""
    judge_draws: int = 3
    """The verdict is the majority of up to this many judge draws (stopping once one verdict has it)..."""
    lead: bool = False
    """... or, with `lead`, stopping as soon as one verdict leads by 2 (at most `judge_draws`, then the
    majority): 3 is the same rule either way."""
    q: float = 0.05
    weight: Callable[[int, int], float] = rarity_weight


DESIGNS = [
    Design("round 7's: probe 16, baseline 10 samples, judge majority of 3"),
    Design("judge exact (q 0)", q=0.0),
    Design("weight log(1 + 0.1 n/m)", weight=lambda n, m: math.log(1 + 0.1 * n / m) / math.log(1.1)),
    Design("weight sqrt(n/m)", weight=lambda n, m: math.sqrt(n / m)),
    Design("weight 1 (Mantel-Haenszel-like)", weight=lambda n, m: 1.0),
    Design("probe cases right in the first 3 baseline samples, compared with the other 7", chosen_on=3),
    Design("no probe", probe=0),
    Design("probe 25", probe=25),
    Design("probe 40", probe=40),
    Design("probe 60", probe=60),
    Design("baseline 5 samples", baseline_samples=5),
    Design("baseline 20 samples", baseline_samples=20),
    Design("judge majority of 5", judge_draws=5),
    Design("judge: first to lead by 2, at most 5 draws", judge_draws=5, lead=True),
    Design("judge: first to lead by 2, at most 7 draws", judge_draws=7, lead=True),
    Design("baseline 20, judge of 5, probe 25", baseline_samples=20, judge_draws=5, probe=25),
]


def majority_error(e: np.ndarray, draws: int) -> np.ndarray:
    """The chance that the majority of `draws` independent draws errs, each erring with probability `e`."""
    need = draws // 2 + 1
    return sum(math.comb(draws, k) * e**k * (1 - e) ** (draws - k) for k in range(need, draws + 1))


def lead_error(e: np.ndarray, cap: int) -> np.ndarray:
    """The chance that "draw until one verdict leads by 2, at most `cap` (odd) draws, then the majority"
    errs, each draw erring with probability `e`: a walk of the lead, absorbed at +-2 or at the cap."""
    at = {0: np.ones_like(e)}  # lead (right minus wrong) -> probability, among walks still going
    wrong = np.zeros_like(e)
    for n in range(1, cap + 1):
        step: dict[int, np.ndarray] = {}
        for lead, p in at.items():
            step[lead + 1] = step.get(lead + 1, 0) + p * (1 - e)
            step[lead - 1] = step.get(lead - 1, 0) + p * e
        at = {}
        for lead, p in step.items():
            if abs(lead) >= 2 or n == cap:
                wrong = wrong + (p if lead < 0 else 0)
            else:
                at[lead] = p
    return wrong


def world(rng: np.random.Generator, design: Design) -> tuple[np.ndarray, np.ndarray]:
    """(P(judged right) per case on an ordinary day, the same on the bad day)."""
    n = N_ANSWERABLE + N_UNANSWERABLE
    answerable = np.arange(n) < N_ANSWERABLE
    truth = np.where(answerable, rng.random(n) < 0.7, rng.random(n) < 0.8)
    weight = DIFFICULTY[rng.integers(0, 3, n)]
    flip = rng.beta(0.25, 3.5, n)
    hedged = np.minimum(0.8, 0.2 + 2 * flip)
    per_draw = design.q * weight
    errs = lead_error if design.lead else majority_error
    judge = hedged * errs(np.minimum(1.0, 2 * per_draw), design.judge_draws)
    judge = judge + (1 - hedged) * errs(per_draw, design.judge_draws)
    judge = np.where(answerable, judge, 0.0)  # an abstention is scored without the judge
    right = truth * (1 - flip) + ~truth * flip
    shift = 0.05 * n / float(np.sum(right * weight))
    bad = right * (1 - np.minimum(1.0, shift * weight))
    return right * (1 - judge) + (1 - right) * judge, bad * (1 - judge) + (1 - bad) * judge


def said(tables: list[tuple[int, int, int, int]], wrong_now: int, design: Design) -> bool:
    return wrong_now >= 2 and weighted_drop(tables, weight=design.weight).p_one_sided < SHIFT_P


def run(design: Design, worlds: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    hits = {"same": 0, "bad": 0}
    pairs = 0
    for _ in range(worlds):
        ordinary, bad_day = world(rng, design)
        nb = design.baseline_samples
        baseline = rng.random((nb, ordinary.size)) < ordinary[None, :]
        chosen = design.chosen_on
        eligible = np.flatnonzero(baseline[:chosen].all(0))  # compared on the samples that did not choose
        every, later = baseline.sum(0), baseline[chosen:].sum(0)
        for _ in range(PER_WORLD):
            pairs += 1
            probe = rng.choice(eligible, size=min(design.probe, eligible.size), replace=False)
            for kind, p in (("same", ordinary), ("bad", bad_day)):
                first = rng.random(p.size) < p
                again = rng.random(probe.size) < p[probe]
                tables = [(int(every[i]), nb, int(first[i]), 1) for i in range(p.size)]
                tables += [(int(later[i]), nb - chosen, int(a), 1) for i, a in zip(probe, again, strict=True)]
                hits[kind] += said(tables, int((~first).sum() + (~again).sum()), design)
    return hits["same"] / pairs, hits["bad"] / pairs


LATER_ASKS = {
    "first pass and probe (before round 8)": (),
    "and the base system's asks of the changed cases (shipped since round 8)": ("base",),
    "and both systems' later asks of the changed cases (the PR's re-asks too)": ("base", "pr"),
}
"""Which later asks of the changed cases the note's test reads beside the first pass and the probe."""


def _reasked(first: bool, verdict: bool, p: float, rng: np.random.Generator) -> np.ndarray:
    """The candidate's re-asks of a changed case (gate/confirm.py): 4, then 5 more when its 5 samples are
    split and their verdict still differs from the baseline's."""
    again = rng.random(4) < p
    right = int(first) + int(again.sum())
    after = first if 2 * right == 5 else 2 * right > 5
    if 0 < right < 5 and after != verdict:
        again = np.concatenate([again, rng.random(5) < p])
    return again


def run_with_reasks(
    reads: tuple[str, ...], worlds: int, seed: int, extra_probe: int = 0
) -> tuple[float, float, np.ndarray]:
    """The note under the pull request's whole ask budget: the changed cases (the first ask against the
    verdict of the baseline's first 3 samples), the candidate's re-asks of them, the base system's asks of
    them (gate/control.py control_samples: at most 3 each) and the probe of what the cap of 10 extra calls
    per changed case leaves (probe_size), plus `extra_probe` asks beyond the cap. `reads`: which later
    asks of the changed cases enter the test,
    each case one stratum against the baseline's samples after its first 3 (reask_tables). Returns the
    note's rate on same-system and bad-day pairs, and the bad days' mean asks (changed cases, candidate
    re-asks, base asks, probe)."""
    design = Design("round 8")
    rng = np.random.default_rng(seed)
    hits = {"same": 0, "bad": 0}
    pairs = 0
    budget = []
    for _ in range(worlds):
        ordinary, bad_day = world(rng, design)
        nb, n = design.baseline_samples, ordinary.size
        baseline = rng.random((nb, n)) < ordinary[None, :]
        verdict = baseline[:3].sum(0) >= 2
        every, after_first, after_3 = baseline.sum(0), baseline[1:].sum(0), baseline[3:].sum(0)
        for _ in range(PER_WORLD):
            pairs += 1
            for kind, p in (("same", ordinary), ("bad", bad_day)):
                first = rng.random(n) < p
                changed = np.flatnonzero(first != verdict)
                reasks = {
                    int(i): _reasked(bool(first[i]), bool(verdict[i]), float(p[i]), rng) for i in changed
                }
                spent = sum(a.size for a in reasks.values())
                each = max(1, min(3, (10 * changed.size - spent) // changed.size)) if changed.size else 0
                base = {int(i): rng.random(each) < p[i] for i in changed}
                size = max(0, min(3 * changed.size, 10 * changed.size - spent - each * changed.size))
                size += extra_probe
                eligible = np.flatnonzero(baseline[0] & ~np.isin(np.arange(n), changed))
                probe = rng.choice(eligible, size=min(size, eligible.size), replace=False)
                again = rng.random(probe.size) < p[probe]
                tables = [(int(every[i]), nb, int(first[i]), 1) for i in range(n)]
                tables += [
                    (int(after_first[i]), nb - 1, int(a), 1) for i, a in zip(probe, again, strict=True)
                ]
                wrong_now = int((~first).sum() + (~again).sum())
                for i in changed if reads else ():
                    now = np.concatenate([base[int(i)], reasks[int(i)] if "pr" in reads else []])
                    tables.append((int(after_3[i]), nb - 3, int(now.sum()), now.size))
                    wrong_now += int(now.size - now.sum())
                if kind == "bad":
                    budget.append((changed.size, spent, each * changed.size, probe.size))
                hits[kind] += said(tables, wrong_now, design)
    return hits["same"] / pairs, hits["bad"] / pairs, np.mean(budget, axis=0)


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--worlds", type=int, default=300, help="worlds per design (4 pairs each)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--later-asks",
        action="store_true",
        help="model the whole ask budget and the changed cases' later asks",
    )
    parser.add_argument(
        "--extra-probe", type=int, default=0, help="with --later-asks: probe asks beyond the cap, per PR"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    print(f"{args.worlds * PER_WORLD} pairs per design, seed {args.seed} (the same worlds for every design)")
    print("| design | same system: says shifted | bad day: says shifted | goal |")
    print("|---|---|---|---|")
    if args.later_asks:
        for name, reads in LATER_ASKS.items():
            same, bad, asks = run_with_reasks(reads, args.worlds, args.seed, args.extra_probe)
            print(f"| {name} | {same:.1%} | {bad:.1%} | bad day >= 80 % |")
        changed, reasks, base, probe = asks
        print(f"bad days' asks per pull request: {changed:.1f} changed cases, {reasks:.1f} re-asks of the")
        print(f"candidate, {base:.1f} of the base system, {probe:.1f} probe asks")
    else:
        for design in DESIGNS:
            same, bad = run(design, args.worlds, args.seed)
            print(f"| {design.name} | {same:.1%} | {bad:.1%} | bad day >= 80 % |")
    print(f"wall {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
