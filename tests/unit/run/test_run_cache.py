"""The content-addressed result cache: hits, misses, atomic writes, unreadable entries."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from cairn_action.providers.base import AnswerResult
from cairn_action.run.cache import ResultCache
from cairn_action.run.models import Citation, Usage

RESULT = AnswerResult(
    answer_text="14 days",
    citations=[Citation(chunk_id="policy.md#0-60", quote="14 days")],
    confidence=0.9,
    usage=Usage(input_tokens=10, output_tokens=2),
    cost_usd=0.0005,
)


def test_cache__miss_then_put__returns_the_value_and_original_latency(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    assert cache.get("answer", "key-1", AnswerResult) is None
    cache.put("answer", "key-1", RESULT, latency_ms=812.5)
    hit = cache.get("answer", "key-1", AnswerResult)
    assert hit is not None
    assert hit.value == RESULT
    assert hit.latency_ms == 812.5


def test_cache__survives_a_new_cache_object__it_is_on_disk(tmp_path: Path) -> None:
    ResultCache(tmp_path).put("answer", "key-1", RESULT, latency_ms=1.0)
    hit = ResultCache(tmp_path).get("answer", "key-1", AnswerResult)
    assert hit is not None and hit.value == RESULT


def test_cache__other_key_or_namespace__misses(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.put("answer", "key-1", RESULT, latency_ms=1.0)
    assert cache.get("answer", "key-2", AnswerResult) is None
    assert cache.get("judge", "key-1", AnswerResult) is None


def test_cache__address__is_sha256_of_namespace_and_key(tmp_path: Path) -> None:
    # Stable across processes and machines: never Python's salted hash().
    digest = hashlib.sha256(b"answer\x00key-1").hexdigest()
    assert ResultCache(tmp_path).path_for("answer", "key-1") == tmp_path / "answer" / f"{digest}.json"


def test_cache__entry_at_the_older_fanned_out_address__still_a_hit_and_not_written_again(
    tmp_path: Path,
) -> None:
    """A cache written before the entries shared their namespace's folder is not paid for again."""
    digest = hashlib.sha256(b"answer\x00key-1").hexdigest()
    ResultCache(tmp_path).put("answer", "key-1", RESULT, latency_ms=3.0)
    older = tmp_path / "answer" / digest[:2] / f"{digest}.json"
    older.parent.mkdir()
    (tmp_path / "answer" / f"{digest}.json").rename(older)

    cache = ResultCache(tmp_path)
    hit = cache.get("answer", "key-1", AnswerResult)

    assert hit is not None and hit.value == RESULT and hit.latency_ms == 3.0
    assert cache.fanned_path_for("answer", "key-1") == older
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == [older]
    assert cache.get("answer", "key-2", AnswerResult) is None and not cache.problems


def test_cache__put__leaves_no_temporary_file(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.put("answer", "key-1", RESULT, latency_ms=1.0)
    cache.put("answer", "key-1", RESULT.model_copy(update={"answer_text": "15 days"}), latency_ms=2.0)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert files == [cache.path_for("answer", "key-1")]
    hit = cache.get("answer", "key-1", AnswerResult)
    assert hit is not None and hit.value.answer_text == "15 days"


def test_cache__corrupt_entry__is_a_miss_and_is_reported(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    path = cache.path_for("answer", "key-1")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"format": 1, "key": "key-1", "val')
    assert cache.get("answer", "key-1", AnswerResult) is None
    assert len(cache.problems) == 1 and str(path) in cache.problems[0]
    cache.put("answer", "key-1", RESULT, latency_ms=1.0)
    assert cache.get("answer", "key-1", AnswerResult) is not None


def test_cache__entry_of_another_shape__is_a_miss(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    path = cache.path_for("answer", "key-1")
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "key": "key-1", "latency_ms": 1, "value": {"answer": "x"}}')
    assert cache.get("answer", "key-1", AnswerResult) is None
    assert cache.problems


def test_cache__entry_under_a_colliding_address__is_a_miss(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    cache.put("answer", "key-1", RESULT, latency_ms=1.0)
    path = cache.path_for("answer", "key-1")
    path.write_text(path.read_text().replace('"key-1"', '"key-9"'))
    assert cache.get("answer", "key-1", AnswerResult) is None


def test_cache__concurrent_puts__leave_one_readable_entry(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path)
    threads = [
        threading.Thread(target=cache.put, args=("answer", "key-1", RESULT, float(i))) for i in range(16)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    hit = cache.get("answer", "key-1", AnswerResult)
    assert hit is not None and hit.value == RESULT
    assert not cache.problems
