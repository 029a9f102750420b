"""How the drift probe (gate/control.py) was chosen: which unchanged cases to re-ask, what to compare them
with, and how many asks a 5-point bad day needs. A numpy model of the rule, not Cairn's code.

The model is gate_noise.py's mixed noise: 72 cases, 39 right; per pair 4 cases flip with p .5, 11 with .2,
57 with .01; the baseline asks every case 3 times. A bad day turns a right answer wrong with probability
0.05 x 72 / 39 on every call. The probe re-asks k eligible cases once each and calls a shift when the
one-sided Mantel-Haenszel p (Cairn's `mantel_haenszel_drop`) is < 0.1 and at least two answers are now
wrong. Selections:
- stable-all: every baseline sample right, compared with all three (the samples that chose the case);
- first-right: the first baseline sample right, compared with the other two (what Cairn does);
- first-two: the first two right, compared with the third.

    .venv/bin/python benchmarks/drift_probe_sim.py --draws 2000
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cairn_action.gate.stats import mantel_haenszel_drop

SHIFT = 0.05 * 72 / 39
CHOOSE = {"stable-all": (3, 0), "first-right": (1, 1), "first-two": (2, 2)}
"""Selection -> (baseline samples that choose the case, first sample compared)."""


def pair(rng: np.random.Generator, shift: float, k: int, selection: str) -> bool:
    right = np.zeros(72, bool)
    right[:39] = True
    p = np.full(72, 0.01)
    order = rng.permutation(72)
    p[order[:4]], p[order[4:15]] = 0.5, 0.2
    base = np.repeat(right[:, None], 3, 1) ^ (rng.random((72, 3)) < p[:, None])
    chosen_by, compared_from = CHOOSE[selection]
    eligible = np.nonzero(base[:, :chosen_by].all(1))[0]
    pick = rng.choice(eligible, min(k, len(eligible)), replace=False)
    now = right[pick] ^ (rng.random(len(pick)) < p[pick])
    now &= ~(rng.random(len(pick)) < shift)
    before = base[pick, compared_from:]
    tables = [(int(before[i].sum()), before.shape[1], int(now[i]), 1) for i in range(len(pick))]
    return mantel_haenszel_drop(tables).p_one_sided < 0.1 and int((~now).sum()) >= 2


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.Generator(np.random.PCG64(23))
    print("| selection | probe asks | says shifted, no shift | says shifted, bad day |")
    print("|---|---|---|---|")
    for selection in CHOOSE:
        for k in (10, 20, 30, 40):
            null = np.mean([pair(rng, 0.0, k, selection) for _ in range(args.draws)])
            bad = np.mean([pair(rng, SHIFT, k, selection) for _ in range(args.draws)])
            print(f"| {selection} | {k} | {null:.1%} | {bad:.1%} |", flush=True)


if __name__ == "__main__":
    main()
