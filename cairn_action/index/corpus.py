"""Reading a corpus folder and hashing it.

A corpus is a folder of text documents (markdown by default), nested as deeply as the user likes.
Each document is known by its path relative to the corpus root, in POSIX form, so hashes and
references agree across operating systems.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import DataError
from cairn_action.files import LIMIT_DOCUMENT, decode_utf8, exists, is_dir, is_file, os_reason, read_bytes

DOCUMENT_SUFFIXES = (".md", ".markdown", ".txt")


@dataclass(frozen=True)
class Document:
    """One document: its corpus-relative POSIX path and its full text."""

    path: str
    text: str

    @property
    def basename(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Corpus:
    """All documents of a corpus, sorted by path, with the corpus hash."""

    root: Path
    documents: tuple[Document, ...]
    corpus_hash: str

    def by_path(self) -> dict[str, Document]:
        return {d.path: d for d in self.documents}


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_hash_of(contents: Mapping[str, str] | Iterable[tuple[str, str]]) -> str:
    """sha256 over the sorted document paths and their content hashes (report reference).

    One line per document, `<path>\\0<sha256 of content>\\n`, sorted by path; the NUL keeps a path
    from running into its hash.
    """
    items = contents.items() if isinstance(contents, Mapping) else contents
    digest = hashlib.sha256()
    for path, text in sorted(items):
        digest.update(f"{path}\0{content_hash(text)}\n".encode())
    return digest.hexdigest()


def load_corpus(root: Path | str) -> Corpus:
    """Read every document under `root`. Raises DataError for a missing or empty corpus."""
    root = Path(root)
    hint = "pass --corpus DIR, or generate the sample with `cairn corpus generate --out data/sample`"
    if not is_dir(root):
        if exists(root):
            raise DataError(f"{root}: the corpus is not a folder", hint)
        raise DataError(f"{root}: corpus folder not found", hint)
    _check_readable_tree(root)
    documents = []
    for file in sorted(root.rglob("*")):
        if not is_file(file) or file.suffix.lower() not in DOCUMENT_SUFFIXES:
            continue
        if any(part.startswith(".") for part in file.relative_to(root).parts):
            continue  # .git, .github and editor folders are not documents
        rel = file.relative_to(root).as_posix()
        data = read_bytes(file, what="document", hint="make the document readable", limit=LIMIT_DOCUMENT)
        text = decode_utf8(data, str(file), "re-save the document as UTF-8", bom=False)
        text = text.replace("\r\n", "\n").replace("\r", "\n")  # as open() in text mode reads it
        documents.append(Document(path=rel, text=text))
    if not documents:
        raise DataError(
            f"{root}: no documents ({', '.join(DOCUMENT_SUFFIXES)}) in the corpus folder",
            "point --corpus at the folder that holds your documents",
        )
    documents.sort(key=lambda d: d.path)
    return Corpus(
        root=root,
        documents=tuple(documents),
        corpus_hash=corpus_hash_of((d.path, d.text) for d in documents),
    )


def _check_readable_tree(root: Path) -> None:
    """A folder of the corpus that cannot be listed would silently drop its documents (and change the
    corpus): refuse it instead."""

    def refuse(exc: OSError) -> None:
        where = exc.filename or root
        raise DataError(f"{where}: cannot read the corpus folder: {os_reason(exc)}", "make it readable")

    for folder, subfolders, _ in os.walk(root, onerror=refuse):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        del folder
