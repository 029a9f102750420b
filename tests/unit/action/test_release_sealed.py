"""action/release.py: a sealed golden set at a tag is identified by the hash over its pair, as a report of it
records it (golden/sealed.py), so the release gate checks that the tag's report measured that set."""

from __future__ import annotations

from cairn_action.action.release import ReleaseRequest, _at_tag
from cairn_action.golden.sealed import pair_hash


class _Files:
    """A gateway's `file_at`, over a dict of repository paths."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def file_at(self, path: str, ref: str) -> bytes | None:
        del ref
        return self.files.get(path)


def test_release_at_tag__sealed_golden_set__identified_by_the_pairs_hash() -> None:
    questions, key = b'{"id": "a", "question": "q?"}\n', b"-----BEGIN AGE ENCRYPTED FILE-----\nxyz\n"
    files = {
        "cairn.toml": b'name = "default"\n[golden]\npath = "golden/questions.jsonl"\n',
        "golden/questions.jsonl": questions,
        "golden/golden.key.age": key,
        "golden/golden.version": b"3\n",
    }
    notes: list[str] = []

    found = _at_tag(_Files(files), ReleaseRequest(repository="acme/rag"), "cairn.toml", "v1", notes)  # type: ignore[arg-type]

    assert found.golden_hash == pair_hash(questions, key)
    assert found.golden_version == "3" and notes == []


def test_release_at_tag__plain_golden_set__its_bytes_hash_as_before() -> None:
    import hashlib

    plain = b'{"id": "a"}\n'
    files = {"cairn.toml": b'name = "default"\n', "golden/golden.jsonl": plain}

    found = _at_tag(_Files(files), ReleaseRequest(repository="acme/rag"), "cairn.toml", "v1", [])  # type: ignore[arg-type]

    assert found.golden_hash == hashlib.sha256(plain).hexdigest()
