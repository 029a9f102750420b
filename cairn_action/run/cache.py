"""A content-addressed on-disk cache for provider results: a rerun of an unchanged run calls no provider.

The caller supplies the key (for an answerer, `Answerer.request_key`: provider, model, parameters, the full
prompt and the prompt version), so anything that changes what a provider would see changes the address.
Each entry is one JSON file, written to a temporary file and moved into place with `os.replace`, so a
kill mid-write leaves either the old entry or none, never half of one. An entry that cannot be read is
treated as a miss and noted (`problems`), never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

CACHE_FORMAT = 1


@dataclass(frozen=True)
class CacheHit(Generic[T]):
    """A cached result and the latency of the provider call that originally produced it."""

    value: T
    latency_ms: float


class ResultCache:
    """Provider results on disk under `root`, one file per (namespace, key)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._problems: list[str] = []

    @property
    def problems(self) -> list[str]:
        """Entries that could not be read (and were recomputed), as `path: what was wrong`."""
        with self._lock:
            return list(self._problems)

    def path_for(self, namespace: str, key: str) -> Path:
        """Where the entry for `key` lives: the sha256 of namespace and key, fanned out by its first byte."""
        digest = hashlib.sha256(f"{namespace}\0{key}".encode()).hexdigest()
        return self.root / namespace / digest[:2] / f"{digest}.json"

    def get(self, namespace: str, key: str, model: type[T]) -> CacheHit[T] | None:
        """The entry for `key` parsed as `model`, or None on a miss (or an unreadable entry)."""
        path = self.path_for(namespace, key)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            entry = json.loads(raw)
            if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                raise ValueError("written for another key or cache format")
            value = model.model_validate(entry["value"])
            latency = float(entry.get("latency_ms", 0.0))
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            # json.JSONDecodeError is a ValueError. An entry from an older result model is a miss too.
            with self._lock:
                self._problems.append(f"{path}: unreadable cache entry ({type(exc).__name__}); recomputed")
            return None
        return CacheHit(value=value, latency_ms=latency)

    def put(self, namespace: str, key: str, value: BaseModel, latency_ms: float) -> None:
        """Store `value` for `key`, atomically (temp file + os.replace)."""
        path = self.path_for(namespace, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "latency_ms": latency_ms,
            "value": value.model_dump(mode="json"),
        }
        data = json.dumps(entry, ensure_ascii=False, sort_keys=True).encode("utf-8")
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
