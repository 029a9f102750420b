"""The config's retriever over a corpus: chunks, BM25 and (dense, hybrid) embeddings, via the index cache."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.chunks import ChunkStore
from cairn_action.index.corpus import Corpus
from cairn_action.retrieval.base import Retriever
from cairn_action.retrieval.dense import DenseRetriever, HybridRetriever
from cairn_action.retrieval.embedding import Embedder, load_embedder, locate_model, require_runtime
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.retrieval.lexical import BM25Retriever, index_text
from cairn_action.retrieval.vector_cache import VectorCache


@dataclass(frozen=True)
class BuiltRetrieval:
    store: ChunkStore
    retriever: Retriever
    embedding_model: str | None
    """`<model id> sha256:<model file hash>` for dense and hybrid (config_hash and notes record it)."""
    summary: str
    """What the cache did, for the log: e.g. `chunks cached, BM25 cached, 0 of 10704 chunks embedded`."""
    problems: tuple[str, ...] = ()


def embedding_label(embedder: Embedder) -> str:
    return f"{embedder.model_id} sha256:{embedder.model_sha256}"


def check_dense_available(retrieval: RetrievalConfig, model_path: Path | None) -> None:
    """Fail early (ConfigError, exit 2, naming the extra) when dense retrieval cannot run here."""
    if retrieval.mode != "bm25":
        require_runtime()
        locate_model(model_path)


def build_retrieval(
    corpus: Corpus,
    chunking: ChunkingConfig,
    retrieval: RetrievalConfig,
    *,
    cache: IndexCache,
    model_path: Path | None = None,
    embedder_factory: Callable[[Path | None], Embedder] = load_embedder,
    progress: Callable[[int, int], None] | None = None,
) -> BuiltRetrieval:
    """The retriever `retrieval.mode` names, built (or loaded from `cache`) over `corpus`."""
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

    embedder = embedder_factory(model_path)
    texts = [index_text(c) for c in store.chunks]
    problems = list(stats.problems)
    if cache.embeddings_root is None:
        vectors = embedder.embed(texts)
        parts.append(f"{len(texts)} of {len(texts)} chunks embedded")
    else:
        vector_cache = VectorCache(cache.embeddings_root, embedder.model_sha256)
        vectors = vector_cache.vectors_for(texts, embedder.embed, progress=progress)
        problems.extend(vector_cache.problems)
        parts.append(f"{vector_cache.embedded} of {len(texts)} chunks embedded")
    dense = DenseRetriever(store, vectors, lambda q: embedder.embed([q])[0])
    retriever: Retriever = dense
    if retrieval.mode == "hybrid":
        assert bm25 is not None
        retriever = HybridRetriever(store, [bm25, dense], k=retrieval.rrf_k, candidates=retrieval.candidates)
    return BuiltRetrieval(store, retriever, embedding_label(embedder), ", ".join(parts), tuple(problems))
