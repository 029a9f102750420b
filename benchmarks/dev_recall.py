"""Retrieval recall of each mode on a golden set over the handbook (default: the paraphrased dev set).

Not a test: it runs `cairn eval` once per mode in a temporary project (stub answerer, lexical judge) and
prints recall@1/5/10, nDCG@10 and MRR from each report. The index cache is shared between the runs and
kept in `--cache-dir` (default .cairn/bench-cache under the repository), so the handbook is embedded once
(about 10,700 chunks: tens of minutes on one core) and later runs only read the vectors.

    .venv/bin/python benchmarks/dev_recall.py [--modes bm25 dense hybrid] [--golden tests/data/handbook-dev]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"
CAIRN = Path(sys.executable).parent / "cairn"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--modes", nargs="+", default=["bm25", "dense", "hybrid"])
    parser.add_argument("--golden", type=Path, default=REPO / "tests" / "data" / "handbook-dev")
    parser.add_argument("--corpus", type=Path, default=HANDBOOK)
    parser.add_argument("--cache-dir", type=Path, default=REPO / ".cairn" / "bench-cache")
    parser.add_argument("--extra", default="", help="more [retrieval] lines, e.g. 'rrf_k = 30'")
    args = parser.parse_args()
    golden = args.golden if args.golden.suffix == ".jsonl" else args.golden / "golden.jsonl"
    print(f"golden {golden.relative_to(REPO) if golden.is_relative_to(REPO) else golden}")
    print("| mode | recall@1 | recall@5 | recall@10 | nDCG@10 | MRR | cases with support |")
    print("|---|---|---|---|---|---|---|")
    for mode in args.modes:
        with tempfile.TemporaryDirectory(prefix="cairn-recall-") as tmp:
            project = Path(tmp)
            (project / "cairn.toml").write_text(
                f'name = "{mode}"\n[corpus]\npath = "{args.corpus.resolve()}"\n'
                f'[golden]\npath = "{golden.resolve()}"\n[retrieval]\nmode = "{mode}"\n{args.extra}\n'
                f'[run]\ncache_dir = "{args.cache_dir.resolve()}"\n',
                encoding="utf-8",
            )
            done = subprocess.run(
                [str(CAIRN), "eval", "--split", "all"],
                cwd=project,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode not in (0, 1):
                raise SystemExit(f"{mode}: cairn eval failed ({done.returncode}):\n{done.stderr[-3000:]}")
            # --split all writes reports/all/<config>-<timestamp>.json (never reports/latest)
            written = sorted((project / "reports" / "all").glob(f"{mode}-*.json"))
            report = json.loads(written[-1].read_text(encoding="utf-8"))
        r = report["retrieval"]
        at = r["recall_at_k"]
        print(
            f"| {mode} | {at['1']:.3f} | {at['5']:.3f} | {at['10']:.3f} | {r['ndcg_at_10']:.3f} | "
            f"{r['mrr']:.3f} | {r['n_with_support']} |"
        )


if __name__ == "__main__":
    main()
