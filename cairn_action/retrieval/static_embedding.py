"""A static encoder distilled locally from the transformer (`retrieval.encoder = "static"`).

The transformer costs about 4,000 tokens/s per core however it is batched (embedding.py), so a cold dense
index of the handbook takes minutes. A static encoder looks each token's vector up in a table and
averages: no attention, no layers, tens of thousands of times cheaper per token. The table is made the
way model2vec makes one (Tulkens and van Dongen, 2024), but here, in numpy, from the model file already
installed: no torch, no hub (model2vec's own distillation needs torch and transformers, and its runtime
huggingface-hub):

1. every vocabulary token runs through the transformer once as `[CLS] token [SEP]`, mean-pooled (batched,
   on the worker threads; the only slow step, once per machine: the table is cached);
2. PCA of those vectors to `PCA_DIMS` dimensions (it centres them, removing the direction every token
   shares, which otherwise dominates every cosine);
3. each row scaled by a SIF weight, `SIF / (SIF + p)`, with p from Zipf's law over the vocabulary's rank
   (WordPiece vocabularies list frequent tokens first), so that "the" and punctuation count for less.

A text's vector is the sum of its tokens' rows (tokenized without special tokens, never truncated),
L2-normalised. It is computed per text, so a vector is bit-identical whether its text is embedded alone or
in a batch of any size. How it ranks against the transformer on the dev sets is measured in
benchmarks/README.md ("Dense indexing").
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cairn_action.errors import ConfigError
from cairn_action.retrieval.embedding import (
    ModelFiles,
    OnnxEmbedder,
    file_sha256,
    locate_model,
    require_runtime,
)
from cairn_action.retrieval.vector_cache import save_npz

PCA_DIMS = 256
"""model2vec's default: a fifth fewer dimensions than MiniLM's 384, and the PCA's centring."""
SIF = 1e-4
"""model2vec's default SIF coefficient."""
DISTILL_VERSION = 1
"""Bumped whenever the recipe changes, so a cached table made the old way is never read."""
DISTILL_STEP = 2048
"""Vocabulary tokens per progress line while distilling."""
TABLE_FILE = "static-table.npy"
_BLOCK_TOKENS = 1 << 17
"""Token rows gathered at once when embedding (a 256-wide float32 block of 128 MB at most)."""


def distill_key(files: ModelFiles, pca_dims: int = PCA_DIMS, sif: float = SIF) -> str:
    """What the table depends on: the model file, the tokenizer and the recipe (sha256 hex)."""
    recipe = (
        f"static v{DISTILL_VERSION} onnx={file_sha256(files.onnx)} tokenizer={file_sha256(files.tokenizer)} "
        f"pca={pca_dims} sif={sif!r}"
    )
    return hashlib.sha256(recipe.encode()).hexdigest()


def zipf_sif_weights(vocab_size: int, sif: float) -> np.ndarray:
    """`sif / (sif + p)` with p(rank) proportional to 1 / (rank + 1): model2vec's weighting."""
    inverse_rank = 1.0 / np.arange(2, vocab_size + 2, dtype=np.float64)
    probability = inverse_rank / inverse_rank.sum()
    return sif / (sif + probability)


def pca(vectors: np.ndarray, dims: int) -> np.ndarray:
    """`vectors` centred and projected on their `dims` principal axes (eigenvectors of the covariance),
    each axis's sign fixed so that its largest coefficient is positive (eigh may return either)."""
    data = vectors.astype(np.float64)
    data -= data.mean(axis=0)
    values, axes = np.linalg.eigh(data.T @ data)
    axes = axes[:, np.argsort(values)[::-1][: min(dims, data.shape[1])]]
    signs = np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(axes.shape[1])])
    return data @ (axes * signs)


def distill_table(
    model: OnnxEmbedder,
    tokenizer: Any,
    *,
    pca_dims: int = PCA_DIMS,
    sif: float = SIF,
    progress: Callable[[str, int, int], None] | None = None,
) -> np.ndarray:
    """The weighted token table (vocabulary x `pca_dims`, float32), steps 1-3 of the module docstring."""
    size = tokenizer.get_vocab_size()
    cls, sep = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    if cls is None or sep is None:  # the recipe frames each token as BERT does
        raise ConfigError(
            "retrieval.encoder: static distils BERT-style encoders only; the tokenizer has no [CLS] or [SEP]",
            'use encoder = "transformer" with this model_path',
        )
    raw = np.empty((size, model.dimension), dtype=np.float32)
    kind = "vocabulary tokens for the static encoder"
    if progress is not None:
        progress(kind, 0, size)
    for start in range(0, size, DISTILL_STEP):
        ids = range(start, min(size, start + DISTILL_STEP))
        raw[start : ids.stop] = model.embed_ids([[cls, i, sep] for i in ids], normalize=False)
        if progress is not None:
            progress(kind, ids.stop, size)
    table = pca(raw, pca_dims) * zipf_sif_weights(size, sif)[:, None]
    return table.astype(np.float32)


class StaticEmbedder:
    """Texts embedded as the normalised sum of their tokens' distilled rows (module docstring)."""

    def __init__(self, table: np.ndarray, tokenizer_file: Path, *, model_id: str, digest: str) -> None:
        self.table = np.asarray(table, dtype=np.float32)
        self.dimension = int(self.table.shape[1])
        self.model_id = model_id
        self.model_sha256 = digest
        self._tokenizer = plain_tokenizer(tokenizer_file)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encoded = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        lengths = np.fromiter((len(e.ids) for e in encoded), dtype=np.int64, count=len(texts))
        flat = np.fromiter((i for e in encoded for i in e.ids), dtype=np.int64, count=int(lengths.sum()))
        ends = np.cumsum(lengths)
        first = 0
        while first < len(texts):  # blocks of whole texts, so a text's sum never depends on its batch
            last = first + 1
            while last < len(texts) and ends[last] - (ends[first] - lengths[first]) <= _BLOCK_TOKENS:
                last += 1
            self._sum_into(out, flat, lengths, ends, first, last)
            first = last
        norms = np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out / norms

    def _sum_into(
        self, out: np.ndarray, flat: np.ndarray, lengths: np.ndarray, ends: np.ndarray, first: int, last: int
    ) -> None:
        """Rows `first:last` of `out`: each text's token rows summed (a text without tokens stays 0)."""
        begin = int(ends[first] - lengths[first])
        rows = self.table[flat[begin : int(ends[last - 1])]]
        nonempty = np.flatnonzero(lengths[first:last] > 0)
        if not len(nonempty):
            return
        starts = (ends[first:last] - lengths[first:last] - begin)[nonempty]
        out[first + nonempty] = np.add.reduceat(rows, starts, axis=0)


def load_static_embedder(
    model_path: Path | None,
    cache_root: Path | None,
    *,
    progress: Callable[[str, int, int], None] | None = None,
) -> StaticEmbedder:
    """The static encoder distilled from the configured transformer: the cached table under
    `cache_root/<digest>/` when there is one, else distilled now (and cached when `cache_root` is set)."""
    files = locate_model(model_path)
    digest = distill_key(files, PCA_DIMS, SIF)
    label = f"static, distilled from {files.model_id} (pca {PCA_DIMS}, sif {SIF:g})"
    path = None if cache_root is None else Path(cache_root) / digest[:16] / TABLE_FILE
    table = None
    if path is not None and path.is_file():
        try:
            table = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            table = None  # a torn or foreign file: distil again and replace it
    if table is None:
        table = distill_table(
            OnnxEmbedder(files),
            plain_tokenizer(files.tokenizer),
            pca_dims=PCA_DIMS,
            sif=SIF,
            progress=progress,
        )
        if path is not None:
            save_npz(path, array=table)
    return StaticEmbedder(table, files.tokenizer, model_id=label, digest=digest)


def plain_tokenizer(path: Path) -> Any:
    """The model's tokenizer without its truncation and padding (a static encoder reads every token)."""
    _, tokenizers = require_runtime()
    tokenizer = tokenizers.Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer
