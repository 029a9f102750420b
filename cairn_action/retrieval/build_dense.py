"""The dense half of `build_retriever.build_retrieval`: every chunk's (and sentence's) vector through the
vector and index caches, then the dense or hybrid retriever. Imported only by a dense or hybrid run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cairn_action.config import RetrievalConfig
from cairn_action.index.chunks import ChunkStore
from cairn_action.index.sentences import sentences as split_sentences
from cairn_action.retrieval.base import Retriever
from cairn_action.retrieval.dense import DenseRetriever, HybridRetriever, SentenceUnits
from cairn_action.retrieval.embedding import Embedder, load_embedder
from cairn_action.retrieval.index_cache import DenseArrays, IndexCache
from cairn_action.retrieval.lexical import BM25Retriever, index_text
from cairn_action.retrieval.static_embedding import load_static_embedder
from cairn_action.retrieval.vector_cache import VectorCache


def embedding_label(embedder: Embedder) -> str:
    return f"{embedder.model_id} sha256:{embedder.model_sha256}"


@dataclass(frozen=True)
class _Embedded:
    vectors: DenseArrays
    embedded: tuple[int, int]
    """Chunks and sentences this run embedded (the rest came from the vector cache)."""
    problems: tuple[str, ...]


def _embed_store(
    store: ChunkStore,
    embedder: Embedder,
    cache: IndexCache,
    *,
    sentences: bool,
    progress: Callable[[str, int, int], None] | None,
) -> _Embedded:
    """Every chunk's vector and (with `sentences`) every sentence's, through the per-text vector cache."""
    texts = [index_text(c) for c in store.chunks]
    owner: list[int] = []
    pieces: list[str] = []
    if sentences:
        for position, chunk in enumerate(store.chunks):
            for sentence in split_sentences(chunk.text):
                owner.append(position)
                pieces.append(sentence)
    distinct = len(set(pieces))
    if cache.embeddings_root is None:
        chunk_vectors, sentence_vectors = _embed_distinct(texts, embedder), _embed_distinct(pieces, embedder)
        done, problems = (len(texts), distinct), ()
    else:
        vector_cache = VectorCache(cache.embeddings_root, embedder.model_sha256)

        def report(kind: str) -> Callable[[int, int], None] | None:
            return None if progress is None else lambda n, of: progress(kind, n, of)

        chunk_vectors = vector_cache.vectors_for(texts, embedder.embed, progress=report("chunks"))
        after_chunks = vector_cache.embedded
        sentence_vectors = vector_cache.vectors_for(pieces, embedder.embed, progress=report("sentences"))
        done = (after_chunks, vector_cache.embedded - after_chunks)
        problems = tuple(vector_cache.problems)
    dimension = chunk_vectors.shape[1] if len(chunk_vectors) else embedder.dimension
    arrays = DenseArrays(
        chunks=np.asarray(chunk_vectors, dtype=np.float32),
        sentences=np.asarray(sentence_vectors, dtype=np.float32).reshape(len(pieces), dimension),
        owner=np.asarray(owner, dtype=np.int64),
        distinct_sentences=distinct,
    )
    return _Embedded(arrays, done, problems)


def _embed_distinct(texts: list[str], embedder: Embedder) -> np.ndarray:
    """One row per text, each distinct text embedded once (a sentence recurs across overlapping chunks)."""
    distinct = list(dict.fromkeys(texts))
    rows = embedder.embed(distinct)
    where = {text: i for i, text in enumerate(distinct)}
    return rows[[where[text] for text in texts]] if texts else rows


def build_dense(
    store: ChunkStore,
    key: str,
    bm25: BM25Retriever | None,
    parts: list[str],
    retrieval: RetrievalConfig,
    *,
    cache: IndexCache,
    model_path: Path | None,
    embedder_factory: Callable[[Path | None], Embedder] | None,
    progress: Callable[[str, int, int], None] | None,
) -> tuple[Retriever, str, tuple[str, ...]]:
    """The dense or hybrid retriever over `store` (chunked under `key`; `bm25` for hybrid), the embedding
    label and the cache's problems; what was embedded is added to `parts` (the log summary)."""
    stats = cache.stats
    if embedder_factory is not None:
        embedder = embedder_factory(model_path)
    elif retrieval.encoder == "static":
        embedder = load_static_embedder(model_path, cache.embeddings_root, progress=progress)
    else:
        embedder = load_embedder(model_path)
    embedding_problems: list[str] = []
    use_sentences = retrieval.sentence_weight > 0
    embedded: list[str] = []

    def assemble() -> DenseArrays:
        arrays = _embed_store(store, embedder, cache, sentences=use_sentences, progress=progress)
        embedded.append(f"{arrays.embedded[0]} of {len(store.chunks)} chunks embedded")
        if use_sentences:
            embedded.append(f"{arrays.embedded[1]} of {arrays.vectors.distinct_sentences} sentences embedded")
        embedding_problems.extend(arrays.problems)
        return arrays.vectors

    vectors = cache.dense(
        store, key, model_sha256=embedder.model_sha256, sentences=use_sentences, build=assemble
    )
    if not embedded:  # read back whole: nothing was embedded
        embedded.append(f"0 of {len(store.chunks)} chunks embedded")
        if use_sentences:
            embedded.append(f"0 of {vectors.distinct_sentences} sentences embedded")
    parts.extend(embedded)
    problems = [*stats.problems, *embedding_problems]
    units = None
    if len(vectors.owner):
        units = SentenceUnits(vectors.sentences, vectors.owner)
    dense = DenseRetriever(
        store,
        vectors.chunks,
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
    return retriever, embedding_label(embedder), tuple(problems)
