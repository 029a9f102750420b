"""What identifies an experiment: `config_hash` and the settings a report records.

The hash leaves out paths and run mechanics (cache folder, concurrency), so two machines with different
checkouts agree on it.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from cairn_action.config.models import Config, RetrievalConfig

# Fields that say where things are or how to reach and pace the provider, not what is measured: two
# machines (a laptop with another key variable, CI with a lower rate limit) must agree on the hash.
UNHASHED: dict[str, Any] = {
    "description": True,
    "target_version_url": True,  # what it reports is in target_hash, the system's identity
    "corpus": {"path"},
    "golden": {"path"},
    "run": True,
    "retrieval": {"model_path"},
    "calibration": {"path"},
    "provider": {"api_key_env", "timeout_s", "max_retries", "requests_per_minute"},
    "judge": {"api_key_env", "min_kappa"},
    # How much evidence the gate asks for, not what is measured.
    "gate": {"confirm_samples", "baseline_samples", "critical_max_p", "allow_self_override"},
    # The attack policy does not change what `cairn eval` measures (the attack report records its own).
    "attack": True,
}


_RETRIEVAL_DEFAULTS = {
    key: RetrievalConfig.model_fields[key].default
    for key in ("rrf_k", "candidates", "rewrite", "rerank", "encoder")
}
_DENSE_ONLY = ("fusion", "bm25_weight", "sentence_weight", "encoder")


def prune_retrieval_defaults(data: dict[str, Any]) -> None:
    """Drop the retrieval keys added after hashes were pinned while they hold their defaults, so configs
    written before them keep their `config_hash` (and calibrations their system hash)."""
    retrieval = data.get("retrieval", {})
    for key, default in _RETRIEVAL_DEFAULTS.items():
        if key in retrieval and retrieval[key] == default:
            del retrieval[key]
    # How dense scores are made and fused counts for dense and hybrid at every value: pruned at its
    # default, a default that moved (fusion was rrf, sentences were not embedded) would hash two
    # experiments alike. BM25 reads none of it.
    if retrieval.get("mode", "bm25") == "bm25":
        for key in _DENSE_ONLY:
            retrieval.pop(key, None)


def config_hash(config: Config, embedding_model: str | None = None) -> str:
    """16 hex digits identifying the experiment; paths and run mechanics excluded.

    `embedding_model` (`<id> sha256:<file hash>`, dense and hybrid runs) counts too: the same config with
    another model file measures something else."""
    data = config.model_dump(mode="json", exclude=UNHASHED)
    prune_retrieval_defaults(data)
    if embedding_model is not None:
        data["retrieval"]["embedding_model"] = embedding_model
    # Keys added after the default hash was pinned count only once set, so existing configs keep theirs.
    for key in ("provider", "base_url"):
        if data["judge"][key] is None:
            del data["judge"][key]
    if not data["prices"]:
        del data["prices"]
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _public(value: object) -> object:
    """A URL without its user, password, query or fragment (a token may hide there); anything else as is."""
    if isinstance(value, str) and re.match(r"(?i)https?://", value):
        parts = urlsplit(value)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return urlunsplit((parts.scheme, host + port, parts.path, "", ""))
    return value


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, dict):  # an empty table (no prices, no floors) adds no key
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            public = [_public(v) for v in value] if isinstance(value, list) else _public(value)
            flat[f"{prefix}{key}"] = public
    return flat


def experiment_settings(config: Config, embedding_model: str | None = None) -> dict[str, object]:
    """What `config_hash` identifies, as dotted keys (`chunking.size`: 800), with URLs stripped of
    credentials and queries: a report records it, so a comparison can say which settings changed."""
    data = config.model_dump(mode="json", exclude=UNHASHED)
    if embedding_model is not None:
        data["retrieval"]["embedding_model"] = embedding_model
    return dict(sorted(_flatten(data).items()))
