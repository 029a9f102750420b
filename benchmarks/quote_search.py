"""`cairn golden quote` and `import`: what finding a quote costs, and how often it finds the right one.

For each committed golden set (the shipped set over the seed-7 sample, the handbook set over its vendored
excerpt) it builds the quote index (`retrieval.quote_search.QuoteIndex`) and asks it, for every answerable
case, with the case's own expected answer and question: is the labelled document among the top 5 passages,
and does one of them (of that document) contain the answer. Times are medians over three runs.

    .venv/bin/python benchmarks/quote_search.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from cairn_action.golden.load import load_golden
from cairn_action.index.corpus import load_corpus
from cairn_action.retrieval.quote_search import QuoteIndex
from cairn_action.sample.generate import generate_corpus

REPO = Path(__file__).resolve().parents[1]


def measure(name: str, corpus_dir: Path, golden: Path, runs: int = 3) -> None:
    corpus = load_corpus(corpus_dir)
    cases = [c for c in load_golden(golden).cases if c.answerable]
    builds, queries = [], []
    for _ in range(runs):
        started = time.perf_counter()
        index = QuoteIndex(corpus)
        builds.append(time.perf_counter() - started)
        in_top5 = contains = 0
        started = time.perf_counter()
        for case in cases:
            found = index.find(case.expected_answer or "", question=case.question, top=5)
            wanted = {s.doc for s in case.support}
            in_top5 += any(c.doc in wanted for c in found)
            contains += any(c.contains_answer and c.doc in wanted for c in found)
        queries.append((time.perf_counter() - started) / len(cases))
    print(
        f"{name}: {len(corpus.documents)} documents, {len(cases)} answerable cases; right document in the "
        f"top 5: {in_top5}/{len(cases)}; a passage of it containing the answer: {contains}/{len(cases)}; "
        f"index build median {statistics.median(builds):.2f} s, "
        f"query median {statistics.median(queries) * 1000:.1f} ms"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "sample"
        generate_corpus(sample, 7)
        measure("sample (seed 7)", sample, REPO / "golden" / "golden.jsonl")
    measure(
        "handbook excerpt",
        REPO / "tests" / "data" / "handbook" / "excerpt",
        REPO / "tests" / "data" / "handbook" / "golden.jsonl",
    )


if __name__ == "__main__":
    main()
