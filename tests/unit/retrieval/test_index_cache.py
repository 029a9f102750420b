"""The index built once: chunks, BM25 and embeddings on disk, rebuilt exactly when an input changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from cairn_action.config import ChunkingConfig, RetrievalConfig
from cairn_action.index.chunks import build_store
from cairn_action.index.corpus import Corpus, Document, corpus_hash_of
from cairn_action.index.sentences import sentences
from cairn_action.retrieval.build_retriever import BuiltRetrieval, build_retrieval
from cairn_action.retrieval.index_cache import IndexCache
from cairn_action.retrieval.lexical import BM25Retriever, index_text
from cairn_action.retrieval.vector_cache import VectorCache

POLICY = "# Leave\n\n" + " ".join(
    f"Rule {i}: inform your manager {i} business days before leave number {i}." for i in range(40)
)
EXPENSES = "# Expenses\n\n" + " ".join(
    f"Receipts over ${i} are itemised within {i} days of purchase {i}." for i in range(40)
)


def _corpus(**texts: str) -> Corpus:
    docs = tuple(Document(path=p, text=t) for p, t in sorted(texts.items()))
    return Corpus(root=Path("."), documents=docs, corpus_hash=corpus_hash_of((d.path, d.text) for d in docs))


CORPUS = _corpus(**{"leave.md": POLICY, "expenses.md": EXPENSES})


class CountingEmbedder:
    """A deterministic stand-in model: a vector from the text's hash; counts what it embeds."""

    def __init__(self, model_sha256: str = "a" * 64) -> None:
        self.model_id = "counting"
        self.model_sha256 = model_sha256
        self.dimension = 8
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        rows = [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=8) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), 8)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True).clip(1e-9)


def _bm25(cache: IndexCache, corpus: Corpus = CORPUS, size: int = 300, overlap: int = 60) -> BM25Retriever:
    built = build_retrieval(
        corpus, ChunkingConfig(size=size, overlap=overlap), RetrievalConfig(), cache=cache
    )
    assert isinstance(built.retriever, BM25Retriever)
    return built.retriever


def test_index_cache__second_build__reads_chunks_and_bm25_and_ranks_identically(tmp_path: Path) -> None:
    first_cache, second_cache = IndexCache(tmp_path), IndexCache(tmp_path)
    first, second = _bm25(first_cache), _bm25(second_cache)
    assert (first_cache.stats.chunks, first_cache.stats.bm25) == ("built", "built")
    assert (second_cache.stats.chunks, second_cache.stats.bm25) == ("cached", "cached")
    assert second.store.chunks == first.store.chunks
    for query in ("manager business days", "receipts itemised purchase", "nothing matches zzz"):
        assert second.retrieve(query, 10) == first.retrieve(query, 10)


@pytest.mark.parametrize(
    ("corpus", "size", "overlap"),
    [
        (_corpus(**{"leave.md": POLICY + " One more rule.", "expenses.md": EXPENSES}), 300, 60),
        (CORPUS, 400, 60),
        (CORPUS, 300, 30),
    ],
    ids=["document-edited", "chunk-size", "chunk-overlap"],
)
def test_index_cache__an_input_changes__chunks_and_bm25_rebuilt(
    tmp_path: Path, corpus: Corpus, size: int, overlap: int
) -> None:
    _bm25(IndexCache(tmp_path))
    cache = IndexCache(tmp_path)
    rebuilt = _bm25(cache, corpus, size, overlap)
    assert (cache.stats.chunks, cache.stats.bm25) == ("built", "built")
    assert rebuilt.store.chunks == build_store(corpus, size, overlap).chunks


def test_index_cache__unreadable_entry__rebuilt_and_noted(tmp_path: Path) -> None:
    _bm25(IndexCache(tmp_path))
    for entry in tmp_path.glob("*.npz"):
        entry.write_bytes(b"not a zip file")
    cache = IndexCache(tmp_path)
    _bm25(cache)
    assert (cache.stats.chunks, cache.stats.bm25) == ("built", "built")
    assert len(cache.stats.problems) == 2
    assert all("unreadable index cache entry (ValueError); rebuilt" in p for p in cache.stats.problems)


def _built(
    cache: IndexCache, corpus: Corpus, embedder: CountingEmbedder, **retrieval: object
) -> BuiltRetrieval:
    return build_retrieval(
        corpus,
        ChunkingConfig(size=300, overlap=60),
        RetrievalConfig(**{"mode": "hybrid", **retrieval}),
        cache=cache,
        embedder_factory=lambda _path: embedder,
    )


def _dense(tmp_path: Path, corpus: Corpus, embedder: CountingEmbedder) -> tuple[IndexCache, str]:
    cache = IndexCache(tmp_path)
    built = _built(cache, corpus, embedder)
    assert built.embedding_model == f"counting sha256:{embedder.model_sha256}"
    return cache, built.summary


def test_embeddings__second_build__nothing_embedded(tmp_path: Path) -> None:
    first = CountingEmbedder()
    _dense(tmp_path, CORPUS, first)
    again = CountingEmbedder()
    _, summary = _dense(tmp_path, CORPUS, again)
    chunks = build_store(CORPUS, 300, 60).chunks
    n, m = len(chunks), len({s for c in chunks for s in sentences(c.text)})
    assert len(first.embedded) == n + m and m > n  # each chunk, and each distinct sentence once
    assert again.embedded == []
    assert summary == f"chunks cached, BM25 cached, 0 of {n} chunks embedded, 0 of {m} sentences embedded"


def test_embeddings__sentence_weight_zero__no_sentence_embedded(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    built = _built(IndexCache(tmp_path), CORPUS, embedder, mode="dense", sentence_weight=0.0)
    assert len(embedder.embedded) == len(built.store.chunks)
    assert "sentences" not in built.summary


def test_embeddings__one_document_changed__only_its_chunks_embedded_again(tmp_path: Path) -> None:
    _dense(tmp_path, CORPUS, CountingEmbedder())
    edited = _corpus(
        **{"leave.md": POLICY, "expenses.md": EXPENSES.replace("Rule", "Clause") + " Late fees."}
    )
    again = CountingEmbedder()
    _dense(tmp_path, edited, again)

    def embedded_for(doc: str) -> set[str]:  # what the model sees of a document: chunks and sentences
        chunks = [c for c in build_store(edited, 300, 60).chunks if c.doc == doc]
        return {index_text(c) for c in chunks} | {s for c in chunks for s in sentences(c.text)}

    assert again.embedded
    assert set(again.embedded) <= embedded_for("expenses.md")
    assert not set(again.embedded) & embedded_for("leave.md")


def test_embeddings__another_model_file__everything_embedded_again(tmp_path: Path) -> None:
    _dense(tmp_path, CORPUS, CountingEmbedder("a" * 64))
    other = CountingEmbedder("b" * 64)
    _dense(tmp_path, CORPUS, other)
    chunks = build_store(CORPUS, 300, 60).chunks
    assert len(other.embedded) == len(chunks) + len({s for c in chunks for s in sentences(c.text)})


def test_vector_cache__unreadable_shard__texts_embedded_again_and_noted(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    VectorCache(tmp_path, embedder.model_sha256).vectors_for(["a", "b"], embedder.embed)
    for shard in tmp_path.rglob("vectors-*.npz"):
        shard.write_bytes(b"garbage")
    cache = VectorCache(tmp_path, embedder.model_sha256)
    vectors = cache.vectors_for(["a", "b"], embedder.embed)
    assert vectors.shape == (2, 8) and cache.embedded == 2
    assert len(cache.problems) == 1 and "unreadable embedding shard" in cache.problems[0]


def test_vector_cache__killed_part_way__keeps_the_shards_it_finished(tmp_path: Path) -> None:
    embedder = CountingEmbedder()
    texts = [f"chunk {i}" for i in range(7)]
    calls = 0

    def dies_on_the_third_shard(batch: list[str]) -> np.ndarray:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return embedder.embed(batch)

    with pytest.raises(KeyboardInterrupt):
        VectorCache(tmp_path, embedder.model_sha256).vectors_for(texts, dies_on_the_third_shard, checkpoint=2)
    assert len(list(tmp_path.rglob("vectors-*.npz"))) == 2
    resumed = CountingEmbedder()
    done: list[tuple[int, int]] = []
    cache = VectorCache(tmp_path, resumed.model_sha256)
    vectors = cache.vectors_for(
        texts, resumed.embed, checkpoint=2, progress=lambda n, of: done.append((n, of))
    )
    assert resumed.embedded == texts[4:] and done == [(0, 3), (2, 3), (3, 3)]
    assert np.array_equal(vectors, CountingEmbedder().embed(texts))


def test_dense_entry__second_build__reads_the_assembled_vectors_without_the_per_text_cache(
    tmp_path: Path,
) -> None:
    first = CountingEmbedder()
    _dense(tmp_path, CORPUS, first)
    shutil.rmtree(tmp_path / "embeddings")  # the assembled entry alone must answer
    again = CountingEmbedder()
    cache, summary = _dense(tmp_path, CORPUS, again)
    assert again.embedded == [] and cache.stats.dense == "cached"
    assert summary.endswith(" sentences embedded") and ", 0 of " in summary


def test_dense_entry__torn_owner_file__rebuilt_noted_and_identical(tmp_path: Path) -> None:
    first = _built(IndexCache(tmp_path), CORPUS, CountingEmbedder(), mode="dense")
    [owner] = tmp_path.glob("dense-*.owner.npy")
    owner.write_bytes(owner.read_bytes()[:-8])
    cache = IndexCache(tmp_path)
    again = _built(cache, CORPUS, CountingEmbedder(), mode="dense")
    assert cache.stats.dense == "built" and any("dense-" in p for p in again.problems)
    for query in ("manager business days", "receipts itemised purchase"):
        assert again.retriever.retrieve(query, 5) == first.retriever.retrieve(query, 5)
