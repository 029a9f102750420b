"""What the label-free start rule of the fixed-sequence calibration buys, and that it keeps the guarantee.

The scenarios of docs/concepts/abstention.md#fixed-sequence: confidence c ~ Uniform(0, 1), P(wrong | c) =
r(c):
S1 r = 0.5 (1 - c)^1.5; S2 r = 0.8 (1 - c)^1.5; S3 as S1 but r = 0.3 for c >= 0.95 (non-monotone).
For each cell, `--draws` calibration sets of n_cal cases are drawn (numpy PCG64, fixed seed) and fitted by
`cairn_action.score.calibration.threshold.fit_threshold` with each start rule; the answer rate is the
population coverage 1 - t of the certified threshold (0 when not achievable), a violation is a certified
threshold whose true selective risk, integrated numerically, exceeds alpha. delta = 0.1 throughout.

    .venv/bin/python benchmarks/calibration_start.py            # 400 draws a cell
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cairn_action.score.calibration.threshold import fit_threshold

GRID = np.linspace(0.0, 1.0, 20001)
RULES = ("zero_error", "one_error", "auto")


def risk(scenario: str, c: np.ndarray) -> np.ndarray:
    scale = 0.8 if scenario == "S2" else 0.5
    r = scale * (1 - c) ** 1.5
    return np.where(c >= 0.95, 0.3, r) if scenario == "S3" else r


def true_risk(scenario: str, t: float) -> float:
    above = GRID[GRID >= t]
    return float(risk(scenario, above).mean()) if len(above) else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--draws", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.Generator(np.random.PCG64(12345))
    print("| scenario | alpha | n_cal | " + " | ".join(f"{r} answer rate / P(viol)" for r in RULES) + " |")
    print("|---|---|---|" + "---|" * len(RULES))
    for scenario, alpha in (("S1", 0.1), ("S2", 0.1), ("S2", 0.2), ("S3", 0.1), ("S3", 0.2)):
        for n in (48, 100, 400):
            totals = {r: [0.0, 0] for r in RULES}
            for _ in range(args.draws):
                c = rng.uniform(0.0, 1.0, n)
                wrong = rng.uniform(0.0, 1.0, n) < risk(scenario, c)
                for rule in RULES:
                    fit = fit_threshold(c.tolist(), wrong.tolist(), alpha=alpha, delta=0.1, start=rule)
                    if fit.threshold is not None:
                        totals[rule][0] += 1.0 - fit.threshold
                        totals[rule][1] += true_risk(scenario, fit.threshold) > alpha
            cells = " | ".join(
                f"{totals[r][0] / args.draws:.3f} / {totals[r][1] / args.draws:.3f}" for r in RULES
            )
            print(f"| {scenario} | {alpha:g} | {n} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
