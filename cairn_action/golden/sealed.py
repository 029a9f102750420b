"""A sealed golden set: the questions in plain text, the answer key encrypted (issue 28).

The system under test must see the questions and never the answers. A sealed set is three files in one
folder:

- `questions.jsonl`: one `{"id", "question"}` per scored case (drafts and deprecated cases are left out),
  in the key's order. Nothing else: tags would tell the system which cases are unanswerable, false-premise
  or safety-critical, and a system that behaves differently on those is gaming the exam.
- `golden.key.age`: the whole `golden.jsonl` (expected answers, quotes, answerability, tags, notes),
  encrypted with age (pyrage, the Python bindings of the Rust implementation) to the X25519 recipients in
- `golden.recipients`: the public keys (`age1...`), one per line. Anyone may seal an edited set to them;
  only a holder of the matching identity (`AGE-SECRET-KEY-1...`, in the `CAIRN_GOLDEN_KEY` variable) can
  open it: the scoring side (the Action's trusted process, the `gate` job, `cairn score`), never the run.

`golden.version` stays beside them in plain text. The set's content hash covers the sealed pair (the
questions' and the key's bytes), so the gate's comparability rule holds; resealing unchanged content keeps
the key file as it is (`seal` checks when it can open the old one), so the hash does not move for nothing.
Identities rather than passphrases: age's passphrase mode runs scrypt on every open (seconds of CPU per
process on a small runner), and an identity lets people who may not read the key still seal to it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cairn_action.errors import ConfigError, DataError
from cairn_action.files import (
    LIMIT_GOLDEN,
    JsonProblem,
    decode_utf8,
    exists,
    is_dir,
    parse_json,
    read_bytes,
    read_text,
)

KEY_ENV = "CAIRN_GOLDEN_KEY"
"""The variable that holds the age identity of a sealed set; the only way the key reaches Cairn."""
QUESTIONS_FILE = "questions.jsonl"
KEY_FILE = "golden.key.age"
RECIPIENTS_FILE = "golden.recipients"
PLAIN_FILE = "golden.jsonl"

HINT_KEY = (
    f"set {KEY_ENV} to the age identity (AGE-SECRET-KEY-1...) the set was sealed to; its public key is "
    f"in {RECIPIENTS_FILE}"
)
HINT_NO_KEY = (
    f"set {KEY_ENV} where the set is scored; to run the system without the key, `cairn eval --run-only` "
    "and then `cairn score RUN.jsonl` where the key is"
)
HINT_RESEAL = "`cairn golden seal` writes questions.jsonl and golden.key.age together: reseal"


class SealedQuestion(BaseModel):
    """One line of questions.jsonl: what the system under test may see of a case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)


@dataclass(frozen=True)
class SealedFiles:
    """Where a sealed set's files are (they need not all exist)."""

    questions: Path
    key: Path
    recipients: Path

    @property
    def folder(self) -> Path:
        return self.questions.parent

    @classmethod
    def beside(cls, folder: Path) -> SealedFiles:
        return cls(folder / QUESTIONS_FILE, folder / KEY_FILE, folder / RECIPIENTS_FILE)


def sealed_files(path: Path) -> SealedFiles | None:
    """The sealed set `path` names (its questions file, or a folder holding a sealed set and no plain
    golden.jsonl), else None: a plain golden set."""
    path = Path(path)
    if is_dir(path):
        if exists(path / PLAIN_FILE) or not exists(path / KEY_FILE):
            return None
        return SealedFiles.beside(path)
    if path.name == QUESTIONS_FILE or (exists(path.parent / KEY_FILE) and path.name != PLAIN_FILE):
        return SealedFiles(path, path.parent / KEY_FILE, path.parent / RECIPIENTS_FILE)
    return None


def pair_hash(questions: bytes, key: bytes) -> str:
    """The content hash of a sealed set: sha256 over both files, each preceded by its length."""
    digest = hashlib.sha256(b"cairn-sealed-golden-1\x00")
    for part in (questions, key):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def identity_from(env: Mapping[str, str] | None = None) -> object | None:
    """The age identity in `KEY_ENV` (None when unset or blank). Its value is never shown."""
    from pyrage import IdentityError, x25519

    value = (os.environ if env is None else env).get(KEY_ENV, "").strip()
    if not value:
        return None
    try:
        return x25519.Identity.from_str(value)
    except IdentityError:
        raise ConfigError(
            f"{KEY_ENV}: not an age identity (it must start with AGE-SECRET-KEY-1)", HINT_KEY
        ) from None


def read_recipients(path: Path) -> list[object]:
    """The age recipients of a recipients file: `age1...` one per line, `#` comments and blanks allowed."""
    from pyrage import RecipientError, x25519

    text = read_text(path, what="recipients", hint="one age public key (age1...) per line", limit=64 * 1024)
    recipients = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            recipients.append(x25519.Recipient.from_str(line))
        except RecipientError:
            raise DataError(
                f"{path}:{number}: not an age public key", "each line holds one key that starts with age1"
            ) from None
    if not recipients:
        raise DataError(f"{path}: no recipient", "add the public key (age1...) of the identity that scores")
    return recipients


def encrypt(plain: bytes, recipients: list[object]) -> bytes:
    import pyrage

    return pyrage.encrypt(plain, recipients, armored=True)  # type: ignore[arg-type]


def open_key(files: SealedFiles, identity: object) -> tuple[bytes, bytes]:
    """(the key file's bytes, the plaintext golden.jsonl inside); DataError (exit 2) when it does not
    open with `identity`."""
    import pyrage

    data = read_bytes(files.key, what="sealed answer key", hint=HINT_RESEAL, limit=2 * LIMIT_GOLDEN)
    try:
        return data, pyrage.decrypt(data, [identity])  # type: ignore[list-item]
    except pyrage.DecryptError:
        raise DataError(f"{files.key}: the answer key does not open with {KEY_ENV}", HINT_KEY) from None


def questions_of(plain_cases: list[tuple[str, str]]) -> bytes:
    """questions.jsonl's bytes for these (id, question) pairs."""
    lines = [json.dumps({"id": i, "question": q}, ensure_ascii=False) for i, q in plain_cases]
    return ("\n".join(lines) + "\n").encode()


def read_questions(path: Path) -> tuple[list[SealedQuestion], dict[str, int], bytes]:
    """The questions file's cases, their lines, and its bytes; DataError listing the first problem."""
    data = read_bytes(path, what="questions", hint=HINT_RESEAL, limit=LIMIT_GOLDEN)
    text = decode_utf8(data, str(path))
    found: list[SealedQuestion] = []
    lines: dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            question = SealedQuestion.model_validate(parse_json(raw.rstrip("\r")), strict=True)
        except JsonProblem as exc:
            raise DataError(f"{path}:{number}: {exc.message}", HINT_RESEAL) from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "the line"
            raise DataError(
                f"{path}:{number}: {where}: {first['msg']} (a line holds only id and question)", HINT_RESEAL
            ) from None
        if question.id in lines:
            raise DataError(f"{path}:{number}: case {question.id}: duplicate id", HINT_RESEAL)
        lines[question.id] = number
        found.append(question)
    if not found:
        raise DataError(f"{path}: no questions", HINT_RESEAL)
    return found, lines, data


def check_questions_match(
    path: Path, questions: list[SealedQuestion], expected: list[tuple[str, str]]
) -> None:
    """Refuse a questions file that is not the one the key implies (edited apart from the key)."""
    given = [(q.id, q.question) for q in questions]
    if given == expected:
        return
    for number, (mine, theirs) in enumerate(zip(given, expected, strict=False), start=1):
        if mine != theirs:
            raise DataError(
                f"{path}:{number}: case {mine[0]}: not the question the sealed key holds at this place",
                HINT_RESEAL,
            )
    raise DataError(
        f"{path}: {len(given)} questions, the sealed key holds {len(expected)} scored cases", HINT_RESEAL
    )


def plain_beside(files: SealedFiles) -> Path | None:
    """A plain golden.jsonl beside the sealed set (the answer key in the clear), if there is one."""
    path = files.folder / PLAIN_FILE
    return path if exists(path) else None
