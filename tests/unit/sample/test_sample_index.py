"""The sample's prebuilt index entries shipped in the package, and the index cache's seed folder."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.corpus import Corpus, Document, corpus_hash_of
from cairn_action.retrieval.build_retriever import build_retrieval
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.sample import SAMPLE_INDEX

REPO = Path(__file__).resolve().parents[3]
TEXT = "# Leave\n\n" + " ".join(f"Rule {i}: tell your manager {i} days before leave {i}." for i in range(60))
CORPUS = Corpus(
    root=Path("."),
    documents=(Document(path="leave.md", text=TEXT),),
    corpus_hash=corpus_hash_of([("leave.md", TEXT)]),
)
CHUNKING, RETRIEVAL = ChunkingConfig(size=300, overlap=60), RetrievalConfig()


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_sample_index", REPO / "scripts" / "build_sample_index.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("build_sample_index", module)
    spec.loader.exec_module(module)
    return module


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def test_shipped_sample_index__against_a_fresh_build__byte_identical() -> None:
    assert _script().differences(SAMPLE_INDEX) == [], "stale: run scripts/build_sample_index.py and commit"
    assert sorted(p.name.split("-")[0] for p in SAMPLE_INDEX.iterdir()) == ["bm25", "bm25", "bm25", "chunks"]


def test_index_cache__entry_only_in_the_seed__copied_in_said_shipped_and_ranks_as_built(
    tmp_path: Path,
) -> None:
    seed = tmp_path / "seed"
    built = build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=IndexCache(seed))
    before = _snapshot(seed)

    cache = IndexCache(tmp_path / "cache", seed=seed)
    shipped = build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=cache)

    assert (cache.stats.chunks, cache.stats.bm25) == ("shipped", "shipped") and cache.stats.problems == []
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(before)  # the folder is whole
    question = "how many days before leave 7 do I tell my manager"
    assert shipped.retriever.retrieve(question, 5) == built.retriever.retrieve(question, 5)
    again = IndexCache(tmp_path / "cache", seed=seed)
    build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=again)
    assert (again.stats.chunks, again.stats.bm25) == ("cached", "cached")
    assert _snapshot(seed) == before  # read, never written


def test_index_cache__torn_seed_entry__rebuilt_in_the_cache_noted_and_the_seed_left_alone(
    tmp_path: Path,
) -> None:
    seed = tmp_path / "seed"
    build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=IndexCache(seed))
    [chunks] = seed.glob("chunks-*.npz")
    chunks.write_bytes(b"not a zip file")
    os.chmod(seed, 0o555)  # a package folder a user cannot write to
    before = _snapshot(seed)

    cache = IndexCache(tmp_path / "cache", seed=seed)
    build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=cache)

    assert cache.stats.chunks == "built" and cache.stats.bm25 == "shipped"
    assert [p.split(":")[1].strip() for p in cache.stats.problems] == [
        "unreadable index cache entry (ValueError); rebuilt"
    ]
    assert _snapshot(seed) == before
    fresh = IndexCache(tmp_path / "again")
    build_retrieval(CORPUS, CHUNKING, RETRIEVAL, cache=fresh)
    assert (tmp_path / "cache" / chunks.name).read_bytes() == (tmp_path / "again" / chunks.name).read_bytes()
