"""`cairn corpus generate`: deterministic from the seed, checked against the pinned digest for seed 7."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn_action.cli import main
from cairn_action.errors import DataError
from cairn_action.sample.generate import PINNED_DIGESTS, generate_corpus


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_corpus_generate__same_seed_twice__byte_identical_with_the_pinned_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["corpus", "generate", "--out", str(tmp_path / "a")]) == 0
    assert main(["corpus", "generate", "--out", str(tmp_path / "b"), "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert out.count(f"corpus_hash {PINNED_DIGESTS[7]}") == 2
    assert "matches the digest pinned for seed 7" in out
    words = sum(len(text.split()) for text in (t.decode() for t in _tree(tmp_path / "a").values()))
    assert len(_tree(tmp_path / "a")) >= 15 and words >= 25_000
    assert "archive/returns-policy-2024.md" in _tree(tmp_path / "a")  # the superseded policy


def test_corpus_generate__seed_8__different_corpus_and_says_no_digest_is_pinned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["corpus", "generate", "--out", str(tmp_path / "s7")]) == 0
    assert main(["corpus", "generate", "--out", str(tmp_path / "s8"), "--seed", "8"]) == 0
    out = capsys.readouterr().out
    seven, eight = _tree(tmp_path / "s7"), _tree(tmp_path / "s8")
    assert seven.keys() == eight.keys() and seven != eight
    assert "no digest is pinned for seed 8" in out


def test_corpus_generate__changed_generator__fails_loudly_naming_both_digests(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        generate_corpus(tmp_path / "c", 7, pinned_digests={7: "0" * 64})
    assert f"has digest {PINNED_DIGESTS[7]}, but {'0' * 64} is pinned" in caught.value.message
    assert "PINNED_DIGESTS" in caught.value.hint


def test_corpus_generate__folder_with_other_documents__refused_and_nothing_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "docs" / "handbook.md"
    mine.parent.mkdir()
    mine.write_text("my own document\n", encoding="utf-8")
    assert main(["corpus", "generate", "--out", str(tmp_path / "docs")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"error: {tmp_path / 'docs'}: holds files the sample corpus does not have (handbook.md)"
    )
    assert "Traceback" not in err
    assert _tree(tmp_path / "docs") == {"handbook.md": b"my own document\n"}
