"""Writing and opening sealed pairs (golden/sealed.py says what a sealed set is): `cairn golden seal`,
`unseal` and `keygen`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import DataError
from cairn_action.files import LIMIT_GOLDEN, exists, is_dir, make_dirs, read_bytes, write_bytes
from cairn_action.golden.load import golden_files, load_golden
from cairn_action.golden.sealed import (
    HINT_KEY,
    KEY_ENV,
    PLAIN_FILE,
    QUESTIONS_FILE,
    SealedFiles,
    encrypt,
    identity_from,
    open_key,
    questions_of,
    sealed_files,
)


@dataclass(frozen=True)
class Sealed:
    """What `seal` wrote."""

    files: SealedFiles
    cases: int
    key_kept: bool
    """The old key file opened to the same content and was kept (the content hash did not move)."""


def seal(plain: Path, out: Path, recipients: list[object], *, env: Mapping[str, str] | None = None) -> Sealed:
    """Seal the plain golden set `plain` into the folder `out`: questions.jsonl and golden.key.age, written
    together, and golden.version copied beside them when `plain` has one."""
    if sealed_files(plain) is not None:
        raise DataError(
            f"{plain}: already sealed", "`cairn golden unseal` opens it; seal the plain golden.jsonl"
        )
    golden = load_golden(plain)  # only a valid set is sealed: nobody can read the key to fix it later
    jsonl, version_file = golden_files(plain)
    plain_bytes = read_bytes(jsonl, what="golden set", limit=LIMIT_GOLDEN)
    files = SealedFiles.beside(out)
    make_dirs(out, what="the sealed set's folder")
    key_kept = False
    identity = identity_from(env) if exists(files.key) else None
    if identity is not None:
        try:
            key_kept = open_key(files, identity)[1] == plain_bytes
        except DataError:
            key_kept = False
    if not key_kept:
        write_bytes(files.key, encrypt(plain_bytes, recipients), what="the sealed answer key")
    if not exists(files.recipients):  # the sealed set carries who can open it
        lines = "".join(f"{r}\n" for r in recipients)
        write_bytes(files.recipients, lines.encode(), what="the recipients file")
    questions = questions_of([(c.id, c.question) for c in golden.cases])
    write_bytes(files.questions, questions, what="the questions file")
    if exists(version_file) and version_file.resolve() != (out / version_file.name).resolve():
        write_bytes(out / version_file.name, read_bytes(version_file, what="golden.version", limit=4096))
    return Sealed(files=files, cases=len(golden.cases), key_kept=key_kept)


def unseal(sealed: Path, out: Path, *, env: Mapping[str, str] | None = None) -> Path:
    """Write the plaintext golden.jsonl of the sealed set `sealed` to `out` (a file, or a folder); never
    overwrites a file."""
    files = sealed_files(sealed)
    if files is None:
        raise DataError(f"{sealed}: not a sealed golden set", f"name its {QUESTIONS_FILE} or its folder")
    identity = identity_from(env)
    if identity is None:
        raise DataError(f"{files.questions}: {KEY_ENV} is not set", HINT_KEY)
    plain = open_key(files, identity)[1]
    target = out / PLAIN_FILE if is_dir(out) else out
    if exists(target):
        raise DataError(f"{target}: already exists", "unseal into a new file: nothing is overwritten")
    write_bytes(target, plain, what="the golden set")
    return target


def new_identity() -> tuple[str, str]:
    """(identity, recipient): a fresh age X25519 key pair, as text."""
    from pyrage import x25519

    identity = x25519.Identity.generate()
    return str(identity), str(identity.to_public())
