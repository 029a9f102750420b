"""How long reading, chunking and BM25-indexing a real corpus takes, and how much memory it needs.

Not a test: it prints medians and a ratio against a stated limit. The default corpus is the Sourcegraph
handbook beside the repository (883 markdown files, nested folders, 185 named index.md).

    .venv/bin/python benchmarks/index_build.py [--corpus DIR] [--runs 5] [--limit-s 10]

The limit is a budget, not a law: a pull request's evaluation re-indexes the corpus on every run, so on a
2-core CI runner a ~1,000-document corpus should index in well under 10 s.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

from cairn_action.config import ChunkingConfig
from cairn_action.index.chunks import build_store
from cairn_action.index.corpus import load_corpus
from cairn_action.retrieval.lexical import BM25Retriever

HANDBOOK = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "sourcegraph-handbook"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=HANDBOOK)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--limit-s", type=float, default=10.0)
    args = parser.parse_args()
    chunking = ChunkingConfig()
    load, chunk, index = [], [], []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        corpus = load_corpus(args.corpus)
        t1 = time.perf_counter()
        store = build_store(corpus, chunking.size, chunking.overlap)
        t2 = time.perf_counter()
        retriever = BM25Retriever(store)
        t3 = time.perf_counter()
        load.append(t1 - t0)
        chunk.append(t2 - t1)
        index.append(t3 - t2)
    retriever.retrieve("parental leave policy", 10)  # the index answers
    total = [a + b + c for a, b, c in zip(load, chunk, index, strict=True)]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"corpus {args.corpus.name}: {len(corpus.documents)} documents, {len(store.chunks)} chunks "
        f"(size {chunking.size}, overlap {chunking.overlap}), {args.runs} runs"
    )
    print(
        f"median load {statistics.median(load):.2f} s, chunk {statistics.median(chunk):.2f} s, "
        f"BM25 index {statistics.median(index):.2f} s, total {statistics.median(total):.2f} s"
    )
    print(
        f"total / limit {args.limit_s:g} s = {statistics.median(total) / args.limit_s:.2f}; "
        f"peak RSS {peak_mb:.0f} MB"
    )


if __name__ == "__main__":
    main()
