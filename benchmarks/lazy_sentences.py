"""Would embedding sentences only where a chunk's best sentence is needed keep the dense rankings?

Not a test. Issue 27 asked to consider embedding a chunk's sentences only for the chunks a query could
rank: score every chunk by its own vector, and add the best-sentence half of the score (`sentence_weight`
0.5) only for the `N` best of those. This reads the transformer's vectors of the whole handbook from an
index cache that holds them (run `dev_recall.py --cache-dir DIR` with dense first) and prints, per N, how
many dev-set questions keep exactly the full scoring's top 10, and how many of the corpus's chunks the
questions' top N cover together (the sentence embedding a lazy index would still pay).

    nice -n 10 .venv/bin/python benchmarks/lazy_sentences.py --cache-dir /tmp/c-tr
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.corpus import load_corpus
from cairn_action.retrieval.build_retriever import build_retrieval
from cairn_action.retrieval.dense import DenseRetriever
from cairn_action.retrieval.index_cache import IndexCache

REPO = Path(__file__).resolve().parents[1]
HANDBOOK = REPO.parent / "shared" / "corpora" / "sourcegraph-handbook"
SETS = ("handbook-dev", "handbook-dev2", "handbook-dev3", "handbook")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cache-dir", type=Path, required=True, help="dev_recall.py's --cache-dir")
    parser.add_argument("--n", type=int, nargs="+", default=[50, 100, 200, 500, 1000])
    args = parser.parse_args()
    built = build_retrieval(
        load_corpus(HANDBOOK),
        ChunkingConfig(),
        RetrievalConfig(mode="dense"),
        cache=IndexCache(args.cache_dir / "index"),
    )
    print(built.summary)
    dense = built.retriever
    assert isinstance(dense, DenseRetriever) and dense.sentences is not None
    units, chunks = dense.sentences, dense.vectors
    first = np.searchsorted(units.owner, np.arange(len(chunks)))
    last = np.searchsorted(units.owner, np.arange(len(chunks)), side="right")
    cases = [json.loads(line) for s in SETS for line in (REPO / "tests" / "data" / s / "golden.jsonl").open()]
    answerable = [c for c in cases if c.get("answerable", True) and c.get("support")]
    same = dict.fromkeys(args.n, 0)
    covered: dict[int, set[int]] = {n: set() for n in args.n}
    for case in cases:
        query = np.asarray(dense.embed_query(case["question"]), dtype=np.float32)
        own = chunks @ query
        by_own = np.argsort(-own, kind="stable")
        full_top = np.argsort(-dense.similarities(case["question"]), kind="stable")[:10].tolist()
        for n in args.n:
            candidates = by_own[:n]
            covered[n].update(candidates.tolist())
            if case not in answerable:
                continue
            best = np.array(
                [
                    (units.vectors[first[i] : last[i]] @ query).max() if last[i] > first[i] else own[i]
                    for i in candidates
                ]
            )
            lazy = np.full(len(own), -np.inf, dtype=np.float32)
            lazy[candidates] = 0.5 * own[candidates] + 0.5 * best
            same[n] += np.argsort(-lazy, kind="stable")[:10].tolist() == full_top
    for n in args.n:
        print(
            f"N={n}: top 10 unchanged for {same[n]} of {len(answerable)} answerable questions; the "
            f"{len(cases)} questions' top {n} cover {len(covered[n])} of {len(chunks)} chunks "
            f"({len(covered[n]) / len(chunks):.0%})"
        )


if __name__ == "__main__":
    main()
