"""Reading a corpus folder and hashing it.

A corpus is a folder of documents (markdown and plain text; HTML, PDF, reStructuredText and AsciiDoc
with the converters of index/readers.py), nested as deeply as the user likes. Each document is known by
its path relative to the corpus root, in POSIX form, so hashes and references agree across operating
systems, and its text is what a reader sees (rendered, for the converted formats).

Files that are not read are listed on the corpus (`skipped`), with the reason: another format, a
converter that is not installed, a file the converter could not read. Commands print that list; nothing
is dropped without a word. Hidden folders (.git, .github) are not part of the corpus.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import DataError
from cairn_action.files import (
    LIMIT_DOCUMENT,
    decode_utf8,
    exists,
    is_dir,
    is_file,
    not_found,
    os_reason,
    read_bytes,
)
from cairn_action.index.readers import DOCUMENT_SUFFIXES, MARKDOWN_SUFFIXES, READERS, Unreadable, render

__all__ = ["DOCUMENT_SUFFIXES", "Corpus", "Document", "Skipped", "corpus_hash_of", "load_corpus"]
_EXAMPLES = 3
OTHER_FORMAT = "not a format Cairn reads"


@dataclass(frozen=True)
class Document:
    """One document: its corpus-relative POSIX path and its full text."""

    path: str
    text: str

    @property
    def basename(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Skipped:
    """A file of the corpus folder that is not a document of the corpus, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class Corpus:
    """All documents of a corpus, sorted by path, with the corpus hash and the files not read."""

    root: Path
    documents: tuple[Document, ...]
    corpus_hash: str
    skipped: tuple[Skipped, ...] = ()

    def by_path(self) -> dict[str, Document]:
        return {d.path: d for d in self.documents}

    def skipped_lines(self) -> list[str]:
        """What was not read, grouped by reason, with a count and a few examples; [] when nothing."""
        return skipped_lines(self.root, self.skipped)


def skipped_lines(root: Path, skipped: Iterable[Skipped]) -> list[str]:
    """One line per reason: how many files, which suffixes for other formats, a few examples."""
    groups: dict[str, list[str]] = {}
    for item in skipped:
        groups.setdefault(item.reason, []).append(item.path)
    lines = []
    for reason, paths in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        if reason == OTHER_FORMAT:
            counts = Counter(Path(p).suffix.lower() or "no suffix" for p in paths)
            reason = f"{reason}: " + ", ".join(f"{n} {sfx}" for sfx, n in counts.most_common(5))
        more = f" and {len(paths) - _EXAMPLES} more" if len(paths) > _EXAMPLES else ""
        plural = "s" if len(paths) != 1 else ""
        examples = ", ".join(paths[:_EXAMPLES]) + more
        lines.append(f"{root}: {len(paths)} file{plural} not read ({reason}), e.g. {examples}")
    return lines


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
        raise DataError(f"{root}: corpus folder {not_found(root)}", hint)
    _check_readable_tree(root)
    documents = []
    skipped: list[Skipped] = []
    for file in sorted(root.rglob("*")):
        if any(part.startswith(".") for part in file.relative_to(root).parts):
            continue  # .git, .github and editor folders are not documents
        if not is_file(file):
            continue
        rel = file.relative_to(root).as_posix()
        suffix = file.suffix.lower()
        if suffix not in READERS:
            skipped.append(Skipped(rel, OTHER_FORMAT))
            continue
        data = read_bytes(file, what="document", hint="make the document readable", limit=LIMIT_DOCUMENT)
        if suffix in MARKDOWN_SUFFIXES:
            text = decode_utf8(data, str(file), "re-save the document as UTF-8", bom=False)
            text = text.replace("\r\n", "\n").replace("\r", "\n")  # as open() in text mode reads it
        else:
            try:
                text = render(data, file.name)
            except Unreadable as exc:
                skipped.append(Skipped(rel, f"{READERS[suffix].kind}: {exc.reason}"))
                continue
        documents.append(Document(path=rel, text=text))
    if not documents:
        found = Counter(Path(s.path).suffix.lower() or "no suffix" for s in skipped)
        kinds = ", ".join(f"{n} {suffix}" for suffix, n in found.most_common(6)) or "no files"
        extras = sorted({READERS[sfx].extra for sfx in found if sfx in READERS and READERS[sfx].extra})
        install = f"pip install 'cairn-action[{','.join(extras)}]' to read them, or " if extras else ""
        raise DataError(
            f"{root}: no document Cairn can read in the corpus folder (found {kinds}; it reads "
            f"{', '.join(DOCUMENT_SUFFIXES)})",
            f"{install}point --corpus at the folder that holds your documents",
        )
    documents.sort(key=lambda d: d.path)
    return Corpus(
        root=root,
        documents=tuple(documents),
        corpus_hash=corpus_hash_of((d.path, d.text) for d in documents),
        skipped=tuple(skipped),
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
