#!/usr/bin/env python3
"""Write the sample corpus's prebuilt index-cache entries into `cairn_action/sample/index/`.

    PYTHONPATH=. .venv/bin/python scripts/build_sample_index.py [--check]

The package ships them so that the first `cairn eval` of the sample (the README's Quickstart, `cairn demo`,
the Docker image) copies the chunks and the BM25 matrix instead of building them: `IndexCache(seed=...)`,
see `retrieval/index_cache.py`. They are built here exactly as a run builds them: the sample generated from
its default seed, chunked and indexed with the repository's cairn.toml (the embedded default experiment).
Their names are content keys, so a change to the generator, the chunker, the tokenizer or the BM25 settings
gives entries of new names and the shipped ones are simply never found; `--check` (and
tests/unit/sample/test_sample_index.py) exits 1 when the shipped folder differs from a fresh build, so they
are rebuilt, not left stale.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def build(out: Path) -> list[str]:
    """Build the entries into the empty folder `out`; their file names, sorted."""
    from cairn_action.config import load_config
    from cairn_action.index.corpus import load_corpus
    from cairn_action.retrieval.build_retriever import build_retrieval
    from cairn_action.retrieval.index_cache import IndexCache
    from cairn_action.sample.generate import DEFAULT_SEED, generate_corpus

    config = load_config(REPO / "cairn.toml").config
    with tempfile.TemporaryDirectory(prefix="cairn-sample-index-") as tmp:
        corpus_dir = Path(tmp) / "sample"
        generate_corpus(corpus_dir, DEFAULT_SEED)
        corpus = load_corpus(corpus_dir)
        build_retrieval(corpus, config.chunking, config.retrieval, cache=IndexCache(out))
    return sorted(p.name for p in out.iterdir())


def differences(shipped: Path) -> list[str]:
    """What differs between the folder `shipped` and a fresh build: one line per file, or []."""
    with tempfile.TemporaryDirectory(prefix="cairn-sample-index-") as tmp:
        fresh = Path(tmp)
        names = set(build(fresh))
        have = {p.name for p in shipped.iterdir()} if shipped.is_dir() else set()
        lines = [f"missing: {n}" for n in sorted(names - have)]
        lines += [f"not built any more: {n}" for n in sorted(have - names)]
        lines += [
            f"differs: {n}"
            for n in sorted(names & have)
            if (fresh / n).read_bytes() != (shipped / n).read_bytes()
        ]
        return lines


def main() -> int:
    from cairn_action.sample import SAMPLE_INDEX

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped entries are stale")
    args = parser.parse_args()
    if args.check:
        lines = differences(SAMPLE_INDEX)
        for line in lines:
            print(f"{SAMPLE_INDEX}: {line}", file=sys.stderr)
        return 1 if lines else 0
    shutil.rmtree(SAMPLE_INDEX, ignore_errors=True)
    SAMPLE_INDEX.mkdir()
    for name in build(SAMPLE_INDEX):
        print(SAMPLE_INDEX / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
