"""A content-addressed on-disk cache for provider results: a rerun of an unchanged run calls no provider.

The caller supplies the key (for an answerer, `Answerer.request_key`: provider, model, parameters, the full
prompt and the prompt version), so anything that changes what a provider would see changes the address.
Each entry is one JSON file, written to a temporary file and moved into place with `os.replace`, so a
kill mid-write leaves either the old entry or none, never half of one. An entry that cannot be read is
treated as a miss and noted (`problems`), never trusted.

The entries of a namespace share its folder. Until issue 27's last round they were fanned out by the first
byte of their address (`answer/ab/abcd....json`); a file system makes a new inode for every folder as for
every file, and on a cold run of the sample those 63 folders beside the 72 entries were a visible share of
the kernel's CPU (benchmarks/README.md, the offline floor). An entry at the old address is still found
(`get` looks there after a miss at the new one), so no cache written before is paid for again.

Entries are not fsynced one by one (72 fsyncs were most of an offline run on the sample: issue 27). A
crash of Cairn or a `kill -9` loses nothing, since the kernel holds what was written; a power cut or a
kernel crash can lose the entries of the last writeback interval (about 30 s on Linux), and a rerun pays
for those calls again.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from cairn_action.errors import CairnError
from cairn_action.files import LIMIT_CACHE_ENTRY, atomic_writer, exists, os_reason, parse_json, read_bytes
from cairn_action.run.models import ProviderCall, Usage

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R", bound="ProviderResult")

CACHE_FORMAT = 1


@dataclass(frozen=True)
class CacheHit(Generic[T]):
    """A cached result and the latency of the provider call that originally produced it."""

    value: T
    latency_ms: float


class ResultCache:
    """Provider results on disk under `root`, one file per (namespace, key) in the namespace's folder."""

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
        """Where the entry for `key` is written: the sha256 of namespace and key, in the namespace folder."""
        digest = hashlib.sha256(f"{namespace}\0{key}".encode()).hexdigest()
        return self.root / namespace / f"{digest}.json"

    def fanned_path_for(self, namespace: str, key: str) -> Path:
        """Where Cairn wrote the entry before: the same name, in a folder named by its first byte."""
        path = self.path_for(namespace, key)
        return path.parent / path.name[:2] / path.name

    def get(self, namespace: str, key: str, model: type[T]) -> CacheHit[T] | None:
        """The entry for `key` parsed as `model`, or None on a miss (or an unreadable entry)."""
        path = self.path_for(namespace, key)
        if not exists(path):
            path = self.fanned_path_for(namespace, key)  # written by an older Cairn: still paid for
            if not exists(path):
                return None
        try:
            raw = read_bytes(path, what="cache entry", limit=LIMIT_CACHE_ENTRY)
            entry = parse_json(raw.decode("utf-8"))
            if entry.get("format") != CACHE_FORMAT or entry.get("key") != key:
                raise ValueError("written for another key or cache format")
            value = model.model_validate(entry["value"])
            latency = float(entry.get("latency_ms", 0.0))
        except (CairnError, ValueError, KeyError, TypeError, AttributeError, ValidationError) as exc:
            # Unreadable (permissions, a folder, too big), not JSON, or from an older result model: a miss.
            what = exc.message if isinstance(exc, CairnError) else f"{path}: unreadable cache entry"
            self._note(f"{what} ({type(exc).__name__}); recomputed")
            return None
        return CacheHit(value=value, latency_ms=latency)

    def _note(self, problem: str) -> None:
        with self._lock:
            self._problems.append(problem)

    def put(self, namespace: str, key: str, value: BaseModel, latency_ms: float) -> None:
        """Store `value` for `key`, atomically (temp file + os.replace)."""
        path = self.path_for(namespace, key)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "latency_ms": latency_ms,
            "value": value.model_dump(mode="json"),
        }
        data = json.dumps(entry, ensure_ascii=False, sort_keys=True).encode("utf-8")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(path, prefix=".tmp-", durable=False) as handle:
                handle.write(data)
        except OSError as exc:
            # The result is still recorded in the artifact; only a later rerun loses the cached copy.
            self._note(f"{path}: cannot write cache entry: {os_reason(exc)}; the run goes on without it")


def sample_key(key: str, sample: int) -> str:
    """The cache key of one sample: the first ask keeps the caller's own key (so caches written before
    repeats existed stay valid), later asks get keys of their own, so a repeat is a fresh draw. Used for
    the answer and for a judge that is not deterministic (run/graded.py)."""
    if sample == 0:
        return key
    return hashlib.sha256(f"{key}\0sample\0{sample}".encode()).hexdigest()


class ProviderResult(Protocol):
    """What a cacheable provider result (`AnswerResult`, `JudgeResult`) says about its call."""

    usage: Usage
    cost_usd: float | None
    prompt_prefix_hash: str | None
    error: str | None

    def model_dump(self, *, mode: str) -> dict[str, object]: ...


def cached_call(
    cache: ResultCache,
    namespace: str,
    key: str,
    model: type[R],
    call: Callable[[], R],
    *,
    clock: Callable[[], float],
    started: float,
    role: Literal["answer", "judge", "rewrite", "rerank"],
    provider: str,
    model_name: str,
) -> tuple[R, ProviderCall]:
    """The result for `key` from the cache, else from `call` (stored unless it is an error: a rerun asks
    again, as a provider hiccup may not repeat), with the `ProviderCall` it makes on the case record.
    `started` is the caller's clock reading before the lookup; exceptions from `call` propagate."""
    hit = cache.get(namespace, key, model)  # type: ignore[type-var]
    if hit is not None:
        result, latency_ms, cached = hit.value, hit.latency_ms, True
    else:
        result = call()
        latency_ms = (clock() - started) * 1000.0
        cached = False
        if result.error is None:
            cache.put(namespace, key, result, latency_ms)  # type: ignore[arg-type]
    provider_call = ProviderCall(
        role=role,
        provider=provider,
        model=model_name,
        cached=cached,
        prompt_prefix_hash=result.prompt_prefix_hash,
        usage=result.usage,
        cost_usd=result.cost_usd,
        latency_ms=latency_ms,
    )
    return result, provider_call
