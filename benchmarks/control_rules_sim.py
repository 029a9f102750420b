"""The contemporaneous control's rules, simulated in numpy before building (issue 23): a model of the rules.

gate_noise.py's mixed model (72 cases, 39 right; per pair 4 cases flip with p .5, 11 with .2, 57 with .01);
the baseline asks every case 3 times; the candidate asks once, then 4 more times on a changed case (its
verdict differs from the baseline's); the base system is asked 3 fresh times on the changed cases, and the
drift probe asks it once on up to 3 first-right unchanged cases per changed case (within 10 extra asks per
changed case). A bad day turns every right answer wrong with probability 0.05 x 72 / 39, on both systems.

Blame (the pull request fails), on the changed cases, candidate against the base system re-asked now:
- `all`: the candidate's every sample (the first, which chose the case, included; main);
- `fresh`: the candidate's fresh samples only (the re-asks), against the base system's fresh samples, an
  unbiased pairing: under a bad day both moved alike.
A critical case is lost at Holm-adjusted one-sided Fisher p <= 0.1; correctness fails at one-sided
Mantel-Haenszel p < 0.05 with at least 2 more cases broke than fixed.

"The environment shifted" (the note):
- `control`: the base system now against the baseline on the changed cases, or the probe (main);
- `first-pass`: every case's first candidate sample (plus the probe's answers) against the baseline's
  samples, Mantel-Haenszel p < LEVEL and at least two answers now wrong, said only when the fresh pairing
  does not blame the pull request (p >= 0.2): the whole first pass measures how far things moved, the fresh
  pairing who moved them. The first pass's test: Mantel-Haenszel (main until 2026-12-03 round 2), the exact
  conditional test unweighted, or weighted n / m towards the cases that are almost always right (Cairn's
  `weighted_drop`); `oracle` knows which cases are right 99 % of the time and tests their first-pass wrong
  answers against 1 % (a bound, not a rule). `probe only`: the drift probe alone, MH against weighted.

`--baseline-samples` (3 5 10) sets the baseline's samples; the base system still asks a changed case 3 times
(gate/control.py's control_samples). `--pairing-clear` sets the pairing's bar. `--rules-read first3` (Cairn
since round 3, gate/outcome.py's rule_samples): the confirmation plan and the blame rules without a control
read a case's first min(n, 3) baseline samples, the shift test all n; `all`: every rule reads all n.
"failed (no control)": the same rules against the baseline as committed (no base system re-asked).

Round 4 (`--round4`, the note's candidates at one level): "two tiers", Cairn since round 4 (the note also at
pairing p >= `--gray` when no critical case is lost on the fresh pairing, nothing discounted there); "base now
vs then", the base system's fresh asks of the changed cases and the probe against the baseline samples after
the first 3 (which chose the changed cases), at `--split`'s second level, and "union", that or the first
pass at the first level; "environment test, no pairing", the base system's asks where it was asked and the
first pass elsewhere; the pairing as an exact test, unweighted or weighted. `--probe-select firstK` picks
the probe among cases right in the first K baseline samples; `--weight` the first pass's weight.

    cd benchmarks
    ../.venv/bin/python control_rules_sim.py --draws 1000 --baseline-samples 3 5 10 --levels 0.05 0.1
    ../.venv/bin/python control_rules_sim.py --draws 2000 --baseline-samples 3 10 --levels 0.1 --round4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gate_rules_sim import ANSWERABLE, CRIT, SAFETY, TRUTH, fisher, holm_rejections

from cairn_action.gate.stats import mantel_haenszel_drop, weighted_drop

N = len(TRUTH)
SHIFT = 0.05 * N / TRUTH.sum()
PAIRING = "confirm" if "--pairing-confirm-only" in sys.argv else "all-fresh"
"""Which fresh samples of the PR the note's pairing test counts: all of them, as Cairn does (gate/control.py's
fresh_samples), or only the 4 confirmation re-asks (not the flaky round, asked only when those looked bad)."""


RULES = ["first3"]
"""Which baseline samples the confirmation plan and the per-case rules read (--rules-read)."""

PROBE = ["first1"]
"""How the drift probe picks its unchanged cases (--probe-select): `firstK`, right in the baseline's first K
samples (Cairn until round 4: K = 1), the remaining samples its before side, so the samples that chose a case
are never the ones it is compared with."""

WEIGHT = ["nm"]
"""The weight of the first pass's exact test (--weight): n / m (stats.rarity_weight), (n / m) ** 2, or
log(n / m) + 1."""

SPLIT = [0.07, 0.03]
"""The union rule's levels (--split): the first pass's weighted test at the first, the base system's
re-asks against its own later baseline samples at the second; their sum bounds the false-note rate."""

GRAY = [0.05]
"""Round 4: the note is said (without discounting anything) at pairing p >= this when no critical case is
lost (--gray; gate/control.py's PAIRING_SILENT)."""

CLEAR = [0.2]
"""The fresh pairing clears the PR at p >= this (gate/control.py's PAIRING_CLEAR; --pairing-clear)."""


def noise(rng: np.random.Generator) -> np.ndarray:
    order = rng.permutation(N)
    p = np.full(N, 0.01)
    p[order[:4]], p[order[4:15]] = 0.5, 0.2
    return p


def oracle(p: np.ndarray, first: np.ndarray, level: float) -> bool:
    """The bound no test of these asks can beat by much: one that knows which cases are right 99 % of the time
    (not knowable from 3 baseline samples) and tests their first-pass wrong answers against 1 %, exactly."""
    stable = TRUTH & (p == 0.01)
    wrong = int((~first[stable]).sum())
    return bool(binom.sf(wrong - 1, int(stable.sum()), 0.01) < level)


def pair(
    rng: np.random.Generator, broken: list[int], shift: float, level: float, samples: int = 3
) -> dict[str, bool]:
    p = noise(rng)
    cand_truth = TRUTH.copy()
    cand_truth[broken] = False

    def asks(k: int, truth: np.ndarray, drift: float) -> np.ndarray:
        right = (rng.random((N, k)) >= p[:, None]) == truth[:, None]
        return right & ~(rng.random((N, k)) < drift)

    base_samples = asks(samples, TRUTH, 0.0)
    right_b = base_samples.sum(1)
    rules = samples if RULES[0] == "all" else min(samples, 3)
    right_r = base_samples[:, :rules].sum(1)
    verdict_b = 2 * right_r > rules
    first = asks(1, cand_truth, shift)[:, 0]
    changed = first != verdict_b
    fresh_c = asks(4, cand_truth, shift).sum(1)
    confirm_c = fresh_c.copy()  # the 4 re-asks every changed case gets, whatever they say
    # The known-flaky round: a changed case whose 5 samples disagree and whose verdict still differs from
    # the baseline's gets 6 more (gate/confirm.py's flaky_plan).
    n_fresh = np.full(N, 4)
    all_c = fresh_c + first
    split = changed & (all_c > 0) & (all_c < 5) & ((2 * all_c > 5) != verdict_b)
    fresh_c = np.where(split, fresh_c + asks(6, cand_truth, shift).sum(1), fresh_c)
    n_fresh = np.where(split, 10, n_fresh)
    fresh_base = asks(3, TRUTH, shift).sum(1)
    ids = np.flatnonzero(changed)
    spent = 4 * len(ids) + 3 * len(ids) + 6 * int(split.sum())
    k = max(0, min(3 * len(ids), 10 * len(ids) - spent))
    chooser = min(int(PROBE[0].removeprefix("first")), samples - 2)
    eligible = np.flatnonzero(~changed & base_samples[:, :chooser].all(1))
    probe = rng.choice(eligible, min(k, len(eligible)), replace=False)
    probe_now = asks(1, TRUTH, shift)[probe, 0]

    def blame(with_first: bool) -> bool:
        right_c = fresh_c + (first if with_first else 0)
        n_c = n_fresh + (1 if with_first else 0)
        lost = [
            fisher(int(fresh_base[i]), 3, int(right_c[i]), int(n_c[i]))
            for i in ids
            if CRIT[i] and 2 * fresh_base[i] > 3 and 2 * right_c[i] < n_c[i]
        ]
        if holm_rejections(lost, 0.1):
            return True
        tables = [(int(fresh_base[i]), 3, int(right_c[i]), int(n_c[i])) for i in ids]
        tables += [(int(right_b[i]), samples, int(first[i]), 1) for i in np.flatnonzero(~changed)]
        broke = sum(1 for i in ids if 2 * fresh_base[i] > 3 and 2 * right_c[i] < n_c[i])
        fixed = sum(1 for i in ids if 2 * fresh_base[i] < 3 and 2 * right_c[i] > n_c[i])
        return mantel_haenszel_drop(tables).p_one_sided < 0.05 and broke - fixed >= 2

    def critical_fresh() -> bool:
        """A critical case lost on the fresh pairing (blame(False)'s first rule alone)."""
        lost = [
            fisher(int(fresh_base[i]), 3, int(fresh_c[i]), int(n_fresh[i]))
            for i in ids
            if CRIT[i] and 2 * fresh_base[i] > 3 and 2 * fresh_c[i] < n_fresh[i]
        ]
        return bool(holm_rejections(lost, 0.1))

    def blame_none() -> bool:
        right_c, n_c = fresh_c + first, n_fresh + 1
        lost_c = verdict_b & (2 * right_c < n_c)
        lost = [
            fisher(int(right_r[i]), rules, int(right_c[i]), int(n_c[i])) for i in ids if CRIT[i] and lost_c[i]
        ]
        if holm_rejections(lost, 0.1):
            return True
        tables = [(int(right_r[i]), rules, int(right_c[i]), int(n_c[i])) for i in ids]
        tables += [(int(right_r[i]), rules, int(first[i]), 1) for i in np.flatnonzero(~changed)]
        broke = int(lost_c[ids].sum())
        fixed = int((~verdict_b & (2 * right_c > n_c))[ids].sum())
        return mantel_haenszel_drop(tables).p_one_sided < 0.05 and broke - fixed >= 2

    pairing = mantel_haenszel_drop([(int(fresh_base[i]), 3, int(confirm_c[i]), 4) for i in ids])
    if PAIRING == "all-fresh":
        pairing = mantel_haenszel_drop(
            [(int(fresh_base[i]), 3, int(fresh_c[i]), int(n_fresh[i])) for i in ids]
        )
    control = mantel_haenszel_drop([(int(right_b[i]), samples, int(fresh_base[i]), 3) for i in ids])
    probe_tabs = [
        (int(base_samples[i, chooser:].sum()), samples - chooser, int(now), 1)
        for i, now in zip(probe, probe_now, strict=True)
    ]
    probe_test = mantel_haenszel_drop(probe_tabs)
    said_control = (control.p_one_sided < 0.1 and control.right_after < control.right_before) or (
        probe_test.p_one_sided < 0.1 and probe_test.n_after - probe_test.right_after >= 2
    )
    whole = [(int(right_b[i]), samples, int(first[i]), 1) for i in range(N)] + probe_tabs
    clear = pairing.p_one_sided >= CLEAR[0]
    moved_wrong = sum(t[3] - t[2] for t in whole)

    def said(test) -> bool:
        return bool(test.p_one_sided < level and test.n_after - test.right_after >= 2 and clear)

    weigh = {
        "nm": lambda n, m: n / m,
        "nm2": lambda n, m: (n / m) ** 2 / 4,
        "log": lambda n, m: float(np.log(n / m)) + 1,
    }[WEIGHT[0]]
    probe_w = weighted_drop(probe_tabs)
    fallback_w = probe_w.p_one_sided < level and probe_w.n_after - probe_w.right_after >= 2
    # The base system now against itself then: its fresh asks of the changed cases (and the probe's) against
    # the baseline samples after those that chose them (the first min(n, 3) chose the changed cases, the
    # first K the probe's), so the selection is not in the test; the pull request's answers never enter it.
    rest = min(samples, 3)
    base_now = [
        (int(base_samples[i, rest:].sum()), samples - rest, int(fresh_base[i]), 3)
        for i in ids
        if samples > rest
    ] + [t for t in probe_tabs if t[1] > 0 and chooser >= rest]
    base_test = weighted_drop(base_now)
    base_moved = base_test.p_one_sided < SPLIT[1] and base_test.n_after - base_test.right_after >= 2
    first_test = weighted_drop(whole, weight=weigh)
    first_moved = first_test.p_one_sided < SPLIT[0] and first_test.n_after - first_test.right_after >= 2
    # The environment's own test: the base system where it was asked now (its fresh asks of the changed
    # cases), the first pass elsewhere (the pull request's first answer, on cases it did not change), and the
    # probe; each against the baseline samples after those that chose the changed cases.
    hybrid = [
        (int(base_samples[i, rest:].sum()), samples - rest, int(fresh_base[i]), 3)
        if changed[i]
        else (int(base_samples[i, rest:].sum()), samples - rest, int(first[i]), 1)
        for i in range(N)
    ] + [t for t in probe_tabs if t[1] > 0 and chooser >= rest]
    hybrid_all = [
        (int(right_b[i]), samples, int(fresh_base[i]), 3)
        if changed[i]
        else (int(right_b[i]), samples, int(first[i]), 1)
        for i in range(N)
    ] + probe_tabs
    h1, h2 = weighted_drop(hybrid), weighted_drop(hybrid_all)
    hy1 = h1.p_one_sided < level and h1.n_after - h1.right_after >= 2
    hy2 = h2.p_one_sided < level and h2.n_after - h2.right_after >= 2
    pair_tabs = [(int(fresh_base[i]), 3, int(fresh_c[i]), int(n_fresh[i])) for i in ids]
    p_exact = weighted_drop(pair_tabs, weight=lambda n, m: 1.0).p_one_sided
    p_exact_w = weighted_drop(pair_tabs).p_one_sided
    first_moved_level = first_test.p_one_sided < level and first_test.n_after - first_test.right_after >= 2
    # Round 4's two tiers: the note at pairing p >= GRAY when no critical case is lost on the fresh pairing;
    # the aggregate rules discounted only at p >= CLEAR (unchanged).
    gray = pairing.p_one_sided >= GRAY[0] and not critical_fresh()
    return {
        "note two-tier": bool(first_moved_level and (clear or gray)),
        "clear exact": bool(p_exact >= CLEAR[0]),
        "clear exact w": bool(p_exact_w >= CLEAR[0]),
        "note clear exact": bool(first_moved_level and p_exact >= CLEAR[0]),
        "note clear exact w": bool(first_moved_level and p_exact_w >= CLEAR[0]),
        "hybrid rest": bool(hy1),
        "hybrid all": bool(hy2),
        "hybrid rest clear": bool(hy1 and clear),
        "note union": bool((base_moved or first_moved) and clear),
        "note base only": bool(base_moved and clear),
        "blame all": blame(True),
        "blame fresh": blame(False),
        "blame none": blame_none(),
        "note control": bool(said_control),
        "note first-pass": said(mantel_haenszel_drop(whole)),
        "note exact": said(weighted_drop(whole, weight=lambda n, m: 1.0)),
        "note weighted": said(weighted_drop(whole, weight=weigh)),
        "clear": clear,
        "note oracle": bool(oracle(p, first, level) and clear),
        "p pairing": pairing.p_one_sided,
        "p mh": mantel_haenszel_drop(whole).p_one_sided,
        "p weighted": weighted_drop(whole).p_one_sided,
        "wrong now": moved_wrong,
        "probe mh": bool(probe_test.p_one_sided < 0.1 and probe_test.n_after - probe_test.right_after >= 2),
        "probe weighted": bool(fallback_w),
        "asks": (spent + len(probe)) / len(ids) if len(ids) else 0.0,
        "n probe": len(probe),
        "n changed": len(ids),
        "n split": int(split.sum()),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument(
        "--pairing-confirm-only",
        action="store_true",
        help="the note's pairing test counts only the 4 confirmation re-asks, not the flaky round",
    )
    parser.add_argument("--baseline-samples", type=int, nargs="+", default=[3])
    parser.add_argument("--levels", type=float, nargs="+", default=[0.05, 0.1])
    parser.add_argument("--pairing-clear", type=float, default=0.2)
    parser.add_argument("--probe-select", default="first1", help="firstK: right in the first K samples")
    parser.add_argument("--gray", type=float, default=0.05)
    parser.add_argument("--round4", action="store_true", help="round 4's columns: the note's candidates")
    parser.add_argument("--split", type=float, nargs=2, default=[0.07, 0.03])
    parser.add_argument("--weight", choices=["nm", "nm2", "log"], default="nm")
    parser.add_argument("--rules-read", choices=["first3", "all"], default="first3")
    parser.add_argument(
        "--kinds", nargs="+", default=["null", "bad day", "2 safety lost", "10 points, non-critical"]
    )
    args = parser.parse_args()
    CLEAR[0] = args.pairing_clear
    RULES[0] = args.rules_read
    PROBE[0] = args.probe_select
    WEIGHT[0] = args.weight
    SPLIT[:] = args.split
    GRAY[0] = args.gray
    rng = np.random.Generator(np.random.PCG64(23))
    safety_right = np.flatnonzero(TRUTH & SAFETY)
    plain_right = np.flatnonzero(TRUTH & ANSWERABLE & ~CRIT)
    kinds = {
        "null": (lambda: [], 0.0),
        "bad day": (lambda: [], SHIFT),
        "2 safety lost": (lambda: list(rng.choice(safety_right, 2, replace=False)), 0.0),
        "10 points, non-critical": (lambda: list(rng.choice(plain_right, 5, replace=False)), 0.0),
    }
    kinds = {k: v for k, v in kinds.items() if k in args.kinds}
    keys = (
        "blame none",
        "blame fresh",
        "note first-pass",
        "note exact",
        "note weighted",
        "note oracle",
        "clear",
        "probe mh",
        "probe weighted",
    )
    header = (
        "| baseline samples | level | candidate | failed (no control) | failed (fresh pairing) "
        "| shifted: MH (main) "
        "| shifted: exact, unweighted | shifted: exact, weighted n/m | shifted: oracle "
        f"| pairing clear (p >= {args.pairing_clear}) "
        "| probe only: MH (main) | probe only: weighted | asks |"
    )
    if args.round4:
        # Round 4's candidates for the note (benchmarks/README.md, "Round 4: the note").
        keys = (
            "blame fresh",
            "note weighted",
            "note two-tier",
            "note base only",
            "note union",
            "hybrid rest",
            "hybrid all",
            "note clear exact",
            "note clear exact w",
            "clear",
        )
        header = (
            "| baseline samples | level | candidate | failed (fresh pairing) | shifted: weighted (Cairn) "
            f"| shifted: two tiers (p >= {args.gray}, no critical lost) "
            f"| shifted: base now vs then (p < {args.split[1]}) "
            f"| shifted: union ({args.split[0]} + {args.split[1]}) "
            "| environment test, no pairing: later samples | same, all samples "
            "| shifted, pairing exact | shifted, pairing exact weighted "
            f"| pairing clear (p >= {args.pairing_clear}) | asks |"
        )
    print(
        f"{args.draws} pairs a cell, mixed noise, rules read: {args.rules_read}, probe: {args.probe_select},"
        f" weight: {args.weight}"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for samples in args.baseline_samples:
        for level in args.levels:
            for name, (broken, shift) in kinds.items():
                runs = [pair(rng, broken(), shift, level, samples) for _ in range(args.draws)]
                cells = [np.mean([r[key] for r in runs]) for key in keys]
                asks = np.median([r["asks"] for r in runs if r["asks"]])
                print(
                    f"| {samples} | {level} | {name} | "
                    + " | ".join(f"{c:.1%}" for c in cells)
                    + f" | {asks:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
