"""The config's retriever over a corpus: chunks, BM25 and (dense, hybrid) embeddings, via the index cache.

The dense half (embeddings, the dense and hybrid retrievers) is `build_dense`, imported only when the
config asks for it: a BM25 run never loads the encoders' modules."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.chunks import ChunkStore
from cairn_action.index.corpus import Corpus
from cairn_action.retrieval.base import Retriever
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.retrieval.lexical import BM25Retriever

if TYPE_CHECKING:
    from cairn_action.retrieval.embedding import Embedder


@dataclass(frozen=True)
class BuiltRetrieval:
    store: ChunkStore
    retriever: Retriever
    embedding_model: str | None
    """`<model id> sha256:<model file hash>` for dense and hybrid (config_hash and notes record it)."""
    summary: str
    """What the cache did, for the log: e.g. `chunks cached, BM25 cached, 0 of 10704 chunks embedded`."""
    problems: tuple[str, ...] = ()


def check_dense_available(retrieval: RetrievalConfig, model_path: Path | None) -> None:
    """Fail early (ConfigError, exit 2, naming the extra) when dense retrieval cannot run here."""
    if retrieval.mode != "bm25":
        from cairn_action.retrieval.embedding import locate_model, require_runtime

        require_runtime()
        locate_model(model_path)


def build_retrieval(
    corpus: Corpus,
    chunking: ChunkingConfig,
    retrieval: RetrievalConfig,
    *,
    cache: IndexCache,
    model_path: Path | None = None,
    embedder_factory: Callable[[Path | None], Embedder] | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> BuiltRetrieval:
    """The retriever `retrieval.mode` names, built (or loaded from `cache`) over `corpus`; the embedder is
    `retrieval.encoder`'s unless `embedder_factory` is given (tests)."""
    store = cache.store(corpus, chunking.size, chunking.overlap)
    key = cache.chunks_key(corpus, chunking.size, chunking.overlap)
    stats = cache.stats
    parts = []
    bm25: BM25Retriever | None = None
    if retrieval.mode in ("bm25", "hybrid"):
        bm25 = BM25Retriever(store, index=cache.lexical(store, key, k1=1.2, b=0.75))
        parts.append(f"BM25 {stats.bm25}")
    parts.insert(0, f"chunks {stats.chunks}")
    if retrieval.mode == "bm25":
        assert bm25 is not None
        return BuiltRetrieval(store, bm25, None, ", ".join(parts), tuple(stats.problems))

    from cairn_action.retrieval.build_dense import build_dense

    retriever, label, problems = build_dense(
        store,
        key,
        bm25,
        parts,
        retrieval,
        cache=cache,
        model_path=model_path,
        embedder_factory=embedder_factory,
        progress=progress,
    )
    return BuiltRetrieval(store, retriever, label, ", ".join(parts), problems)
