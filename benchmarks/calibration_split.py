"""Fixed-sequence testing alone against the split procedure (fixed sequence and Bonferroni at delta / 2
each, the threshold that answers more: `fit_split`), on metrics.md §3.6's scenarios (see
calibration_start.py for them): the answer rate (population coverage of the certified threshold, 0 when
none) and the share of draws certifying a threshold whose true error among answered exceeds alpha.

    .venv/bin/python benchmarks/calibration_split.py            # 400 draws a cell, delta 0.1
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration_start import risk, true_risk

from cairn_action.score.calibration.threshold import fit_split, fit_threshold


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.Generator(np.random.PCG64(2323))
    print(
        "| scenario | alpha | n_cal | fixed sequence: answer rate / P(viol) | split: answer rate / P(viol) |"
    )
    print("|---|---|---|---|---|")
    for scenario, alpha in (("S1", 0.1), ("S2", 0.2), ("S3", 0.1), ("S3", 0.2)):
        for n in (100, 400):
            totals = {"fixed": [0.0, 0], "split": [0.0, 0]}
            for _ in range(args.draws):
                c = rng.uniform(0.0, 1.0, n)
                wrong = rng.uniform(0.0, 1.0, n) < risk(scenario, c)
                fits = {
                    "fixed": fit_threshold(c.tolist(), wrong.tolist(), alpha=alpha, delta=0.1),
                    "split": fit_split(c.tolist(), wrong.tolist(), alpha=alpha, delta=0.1),
                }
                for name, fit in fits.items():
                    if fit.threshold is not None:
                        totals[name][0] += 1.0 - fit.threshold
                        totals[name][1] += true_risk(scenario, fit.threshold) > alpha
            cells = " | ".join(f"{t[0] / args.draws:.3f} / {t[1] / args.draws:.3f}" for t in totals.values())
            print(f"| {scenario} | {alpha:g} | {n} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
