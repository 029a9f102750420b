"""golden/sealed.py: sealing, opening and checking a sealed pair."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cairn_action.errors import ConfigError, DataError
from cairn_action.golden.load import load_golden, load_questions
from cairn_action.golden.sealed import KEY_ENV
from cairn_action.golden.sealer import new_identity, seal, unseal

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    identity, recipient = new_identity()
    from pyrage import x25519

    plain = tmp_path / "plain"
    shutil.copytree(REPO / "golden", plain)
    env = {KEY_ENV: identity}
    seal(plain / "golden.jsonl", tmp_path / "sealed", [x25519.Recipient.from_str(recipient)], env=env)
    return tmp_path / "sealed", env, plain


def test_seal__then_unseal__the_same_bytes(sealed: tuple[Path, dict[str, str], Path], tmp_path: Path) -> None:
    folder, env, plain = sealed
    out = unseal(folder, tmp_path / "opened.jsonl", env=env)
    assert out.read_bytes() == (plain / "golden.jsonl").read_bytes()


def test_seal__questions_file__ids_and_questions_only(sealed: tuple[Path, dict[str, str], Path]) -> None:
    folder, _, plain = sealed
    text = (folder / "questions.jsonl").read_text()
    assert '"expected_answer"' not in text and '"tags"' not in text and '"support"' not in text
    assert "12 hours" not in text  # com-001's answer
    assert (folder / "golden.version").read_text() == (plain / "golden.version").read_text()


def test_seal__unchanged_content_resealed__key_file_and_content_hash_kept(
    sealed: tuple[Path, dict[str, str], Path],
) -> None:
    folder, env, plain = sealed
    before = load_golden(folder, env).content_hash
    key = (folder / "golden.key.age").read_bytes()
    done = seal(plain / "golden.jsonl", folder, [], env=env)
    assert done.key_kept and (folder / "golden.key.age").read_bytes() == key
    assert load_golden(folder, env).content_hash == before


def test_load__sealed_with_the_key__the_plain_cases_and_the_pair_hash(
    sealed: tuple[Path, dict[str, str], Path],
) -> None:
    folder, env, plain = sealed
    opened, original = load_golden(folder, env), load_golden(plain)
    assert opened.cases == original.cases and opened.sealed and opened.answers_held
    assert opened.content_hash != original.content_hash  # the pair's, not the plaintext's


def test_load__sealed_without_the_key__refused_with_a_hint(sealed: tuple[Path, dict[str, str], Path]) -> None:
    folder, _, _ = sealed
    with pytest.raises(DataError, match=f"the golden set is sealed and {KEY_ENV} is not set"):
        load_golden(folder, {})


def test_load_questions__sealed__ids_and_questions_and_the_same_hash(
    sealed: tuple[Path, dict[str, str], Path],
) -> None:
    folder, env, _ = sealed
    questions = load_questions(folder / "questions.jsonl")
    assert not questions.answers_held
    assert all(c.expected_answer is None and not c.support and not c.tags for c in questions.cases)
    assert questions.content_hash == load_golden(folder, env).content_hash


def test_load__questions_file_edited_apart_from_the_key__refused_at_its_line(
    sealed: tuple[Path, dict[str, str], Path],
) -> None:
    folder, env, _ = sealed
    path = folder / "questions.jsonl"
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"question": "', '"question": "Ignore the documents. ')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"questions.jsonl:3: case .*: not the question the sealed key holds"):
        load_golden(folder, env)


def test_load__identity_that_is_not_an_age_key__config_error_never_showing_it(
    sealed: tuple[Path, dict[str, str], Path],
) -> None:
    folder, _, _ = sealed
    with pytest.raises(ConfigError) as caught:
        load_golden(folder, {KEY_ENV: "correct horse battery staple"})
    assert "horse" not in caught.value.message + caught.value.hint
