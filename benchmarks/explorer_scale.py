"""How big and how slow the case explorer gets: render it for a report scaled up to N cases.

The rows (and the run's records, and the baseline's rows) of a real report are repeated under new case
ids until there are N of them, so every case has a realistic question, answer and ten retrieved chunks.
Prints the file's size and the time to render it; `scripts/explorer_browser.py --time PAGE` then times
the page in Chromium.

    .venv/bin/cairn demo --out .cairn/demo
    .venv/bin/python benchmarks/explorer_scale.py --cases 10000 --out .cairn/explorer/large.html \
        .cairn/demo/worse.json --run .cairn/demo/runs/worse.jsonl --baseline .cairn/demo/default.json
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cairn_action.gate import run_gate  # noqa: E402
from cairn_action.render.explorer.page import render_explorer  # noqa: E402
from cairn_action.report.io import read_report, write_text_atomic  # noqa: E402
from cairn_action.report.models import Report  # noqa: E402
from cairn_action.run.artifact import read_artifact  # noqa: E402


def scaled(report: Report, n: int) -> Report:
    rows = [
        row.model_copy(update={"case_id": f"{row.case_id}-x{i // len(report.per_case)}"})
        for i, row in zip(range(n), _cycle(report.per_case), strict=False)
    ]
    return report.model_copy(update={"per_case": rows, "n_cases": n})


def _cycle(items):  # type: ignore[no-untyped-def]
    while True:
        yield from items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--run", type=Path)
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    report = scaled(read_report(args.report), args.cases)
    records = None
    if args.run:
        found = read_artifact(args.run).records
        by_id = {r.case_id: r for r in found}
        records = {
            row.case_id: by_id[row.case_id.rsplit("-x", 1)[0]].model_copy(update={"case_id": row.case_id})
            for row in report.per_case
            if row.case_id.rsplit("-x", 1)[0] in by_id
        }
    result = None
    if args.baseline:
        result = run_gate(scaled(read_report(args.baseline), args.cases), report)
    start = time.perf_counter()
    html = render_explorer(report, records=records, result=result)
    took = time.perf_counter() - start
    write_text_atomic(args.out, html)
    size = args.out.stat().st_size
    print(
        f"{args.cases} cases: {size / 1e6:.1f} MB ({size / args.cases:.0f} bytes a case), "
        f"rendered in {took:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
