"""How fast the dense extra embeds the handbook's chunks and sentences, with one worker thread and more.

Not a test. Takes an evenly spaced sample of the handbook's chunks (the project's chunker, 800/160) and of
their sentences, embeds each sample with `OnnxEmbedder(workers=w)` for each w, and prints texts per second
(wall) and the estimated time for the whole handbook. Each text runs alone whatever w is, so the vectors
are the same: this checks that too.

    .venv/bin/python benchmarks/embedding_rate.py [--chunks 300] [--sentences 1500] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from cairn_action.index.chunks import build_store
from cairn_action.index.corpus import load_corpus
from cairn_action.index.sentences import sentences
from cairn_action.retrieval.embedding import OnnxEmbedder, locate_model
from cairn_action.retrieval.lexical import index_text

REPO = Path(__file__).resolve().parents[1]
HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"


def _spaced(items: list[str], n: int) -> list[str]:
    step = max(1, len(items) // n)
    return items[::step][:n]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=HANDBOOK)
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--sentences", type=int, default=1500)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    store = build_store(load_corpus(args.corpus), 800, 160)
    chunk_texts = [index_text(c) for c in store.chunks]
    all_sentences = sorted({s for c in store.chunks for s in sentences(c.text)})
    samples = {
        "chunks": (_spaced(chunk_texts, args.chunks), len(chunk_texts)),
        "sentences": (_spaced(all_sentences, args.sentences), len(all_sentences)),
    }
    files = locate_model(None)
    first: dict[str, np.ndarray] = {}
    print(f"corpus {args.corpus.name}: {len(chunk_texts)} chunks, {len(all_sentences)} distinct sentences")
    print("| texts | workers | sample | wall s | texts/s | whole corpus, est. | vectors as with 1 worker |")
    print("|---|---|---|---|---|---|---|")
    for workers in args.workers:
        embedder = OnnxEmbedder(files, workers=workers)
        embedder.embed(["warm up the session"])
        for kind, (texts, total) in samples.items():
            started = time.perf_counter()
            vectors = embedder.embed(texts)
            wall = time.perf_counter() - started
            same = first.setdefault(kind, vectors)
            print(
                f"| {kind} | {workers} | {len(texts)} | {wall:.2f} | {len(texts) / wall:.1f} | "
                f"{total / (len(texts) / wall) / 60:.1f} min | {np.array_equal(same, vectors)} |"
            )


if __name__ == "__main__":
    main()
