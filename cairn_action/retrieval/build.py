"""The config's retriever over a corpus: chunks, BM25 and (dense, hybrid) embeddings, via the index cache."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.chunks import ChunkStore
from cairn_action.index.corpus import Corpus
from cairn_action.index.sentences import sentences
from cairn_action.retrieval.base import Retriever
from cairn_action.retrieval.dense import DenseRetriever, HybridRetriever, SentenceUnits
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


def _embed_distinct(texts: list[str], embedder: Embedder) -> np.ndarray:
    """One row per text, each distinct text embedded once (a sentence recurs across overlapping chunks)."""
    distinct = list(dict.fromkeys(texts))
    rows = embedder.embed(distinct)
    where = {text: i for i, text in enumerate(distinct)}
    return rows[[where[text] for text in texts]] if texts else rows


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
    progress: Callable[[str, int, int], None] | None = None,
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
    owner: list[int] = []
    pieces: list[str] = []
    if retrieval.sentence_weight > 0:
        for position, chunk in enumerate(store.chunks):
            for sentence in sentences(chunk.text):
                owner.append(position)
                pieces.append(sentence)
    problems = list(stats.problems)
    if cache.embeddings_root is None:
        vectors, sentence_vectors = _embed_distinct(texts, embedder), _embed_distinct(pieces, embedder)
        parts.append(f"{len(texts)} of {len(texts)} chunks embedded")
    else:
        vector_cache = VectorCache(cache.embeddings_root, embedder.model_sha256)

        def report(kind: str) -> Callable[[int, int], None] | None:
            return None if progress is None else lambda done, of: progress(kind, done, of)

        vectors = vector_cache.vectors_for(texts, embedder.embed, progress=report("chunks"))
        parts.append(f"{vector_cache.embedded} of {len(texts)} chunks embedded")
        before = vector_cache.embedded
        sentence_vectors = vector_cache.vectors_for(pieces, embedder.embed, progress=report("sentences"))
        problems.extend(vector_cache.problems)
        if pieces:
            parts.append(f"{vector_cache.embedded - before} of {len(set(pieces))} sentences embedded")
    units = None
    if pieces:
        units = SentenceUnits(
            np.asarray(sentence_vectors, dtype=np.float32), np.asarray(owner, dtype=np.int64)
        )
    dense = DenseRetriever(
        store,
        vectors,
        lambda q: embedder.embed([q])[0],
        sentences=units,
        sentence_weight=retrieval.sentence_weight,
    )
    retriever: Retriever = dense
    if retrieval.mode == "hybrid":
        assert bm25 is not None
        retriever = HybridRetriever(
            store,
            [bm25, dense],
            fusion=retrieval.fusion,
            k=retrieval.rrf_k,
            bm25_weight=retrieval.bm25_weight,
            candidates=retrieval.candidates,
        )
    return BuiltRetrieval(store, retriever, embedding_label(embedder), ", ".join(parts), tuple(problems))
