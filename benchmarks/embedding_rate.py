"""How fast the dense extra embeds the handbook's chunks and sentences, one text at a time and in batches,
and how far the batched vectors move from the one-at-a-time ones.

Not a test. Takes an evenly spaced sample of the handbook's chunks (the project's chunker, 800/160) and of
their distinct sentences, embeds each sample with `OnnxEmbedder(workers=w, batch_tokens=t)` for each
pair (t = 0: one text at a time), and prints texts and tokens per second (wall), the estimated time for
the whole handbook, and the largest 1 - cosine of a vector with the same text's one-at-a-time vector:
what batching moves, against the tolerance it keeps (embedding.BATCHED_MIN_COSINE). Last, the dev sets'
questions (tests/data/handbook-dev*) rank each sample by cosine with the one-at-a-time and with the
batched vectors: the number of questions whose top 10 differ is printed (0: rankings unchanged).

    .venv/bin/python benchmarks/embedding_rate.py [--chunks 640] [--sentences 2560] [--workers 2]
        [--batch-tokens 0 256]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from cairn_action.index.chunks import build_store
from cairn_action.index.corpus import load_corpus
from cairn_action.index.sentences import sentences
from cairn_action.retrieval.embedding import BATCH_SIZE, BATCHED_MIN_COSINE, OnnxEmbedder, locate_model
from cairn_action.retrieval.lexical import index_text

REPO = Path(__file__).resolve().parents[1]
HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"
DEV_SETS = sorted((REPO / "tests" / "data").glob("handbook-dev*/golden.jsonl"))


def _spaced(items: list[str], n: int) -> list[str]:
    step = max(1, len(items) // n)
    return items[::step][:n]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--corpus", type=Path, default=HANDBOOK)
    parser.add_argument("--chunks", type=int, default=640)
    parser.add_argument("--sentences", type=int, default=2560)
    parser.add_argument("--workers", type=int, nargs="+", default=[2])
    parser.add_argument("--batch-tokens", type=int, nargs="+", default=[0, 256])
    args = parser.parse_args()
    store = build_store(load_corpus(args.corpus), 800, 160)
    chunk_texts = [index_text(c) for c in store.chunks]
    all_sentences = sorted({s for c in store.chunks for s in sentences(c.text)})
    samples = {
        "chunks": (_spaced(chunk_texts, args.chunks), len(chunk_texts)),
        "sentences": (_spaced(all_sentences, args.sentences), len(all_sentences)),
    }
    files = locate_model(None)
    alone: dict[str, np.ndarray] = {}
    batched: dict[tuple[str, int, int], np.ndarray] = {}
    print(f"corpus {args.corpus.name}: {len(chunk_texts)} chunks, {len(all_sentences)} distinct sentences")
    print(f"tolerance: 1 - cosine with the one-at-a-time vector <= {1 - BATCHED_MIN_COSINE:.0e}")
    print(
        "| texts | workers | batch tokens | sample | wall s | texts/s | tokens/s | whole corpus | 1 - cos |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for batch_tokens in sorted({0, *args.batch_tokens}):  # 0 first: the reference vectors
        for workers in args.workers:
            embedder = OnnxEmbedder(
                files,
                workers=workers,
                batch_size=1 if batch_tokens == 0 else BATCH_SIZE,
                batch_tokens=batch_tokens,
            )
            embedder.embed(["warm up the session"])
            for kind, (texts, total) in samples.items():
                tokens = sum(len(e.ids) for e in embedder._tokenizer.encode_batch(texts))
                started = time.perf_counter()
                vectors = embedder.embed(texts)
                wall = time.perf_counter() - started
                if batch_tokens == 0:
                    alone[kind], moved = vectors, "(reference)"
                else:
                    moved = f"{1 - np.einsum('ij,ij->i', vectors, alone[kind]).min():.1e}"
                batched[(kind, batch_tokens, workers)] = vectors
                print(
                    f"| {kind} | {workers} | {batch_tokens or 'one text'} | {len(texts)} | {wall:.2f} | "
                    f"{len(texts) / wall:.1f} | {tokens / wall:.0f} | {total / (len(texts) / wall):.0f} s | "
                    f"{moved} |"
                )

    questions = [json.loads(line)["question"] for path in DEV_SETS for line in path.read_text().splitlines()]
    queries = OnnxEmbedder(files).embed(questions)
    for (kind, batch_tokens, workers), vectors in batched.items():
        if batch_tokens:
            reference = alone[kind]
            differ = sum(
                not np.array_equal(
                    np.argsort(-(vectors @ q), kind="stable")[:10],
                    np.argsort(-(reference @ q), kind="stable")[:10],
                )
                for q in queries
            )
            print(
                f"{kind}, {batch_tokens} tokens a batch, {workers} workers: top 10 of the sample differs "
                f"from one-at-a-time for {differ} of {len(questions)} dev-set questions"
            )


if __name__ == "__main__":
    main()
