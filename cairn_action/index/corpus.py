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
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from cairn_action.errors import DataError
from cairn_action.files import (
    HINT_WRITE,
    LIMIT_CACHE_ENTRY,
    LIMIT_DOCUMENT,
    atomic_writer,
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


class Document:
    """One document: its corpus-relative POSIX path and its full text.

    The text is either given, or read when first asked for (`load`): a document the corpus manifest
    vouched for is not read at all unless a run needs its text (a retrieved chunk, a quote to locate).
    """

    __slots__ = ("_load", "_text", "path")

    def __init__(self, path: str, text: str | None = None, *, load: Callable[[], str] | None = None) -> None:
        if (text is None) == (load is None):
            raise ValueError("a document needs its text or a way to read it, not both")
        self.path = path
        self._text = text
        self._load = load

    @property
    def text(self) -> str:
        text = self._text
        if text is None:  # two threads may both read it: the same checked text, no harm
            assert self._load is not None
            text = self._text = self._load()
        return text

    @property
    def basename(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Document):
            return NotImplemented
        return self.path == other.path and self.text == other.text

    def __hash__(self) -> int:
        return hash((self.path, self.text))

    def __repr__(self) -> str:
        shown = "<not read>" if self._text is None else repr(self._text[:40])
        return f"Document(path={self.path!r}, text={shown})"


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
    pending_manifest: Callable[[], None] | None = field(default=None, compare=False, repr=False)
    """Writes the corpus manifest `load_corpus` was given, updated: called by a run once its input checks
    have passed (bad input writes nothing), never by `load_corpus` itself."""

    def save_manifest(self) -> None:
        if self.pending_manifest is not None:
            self.pending_manifest()

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
    """sha256 over the sorted document paths and their content hashes (docs/reference/report.md#identity).

    One line per document, `<path>\\0<sha256 of content>\\n`, sorted by path; the NUL keeps a path
    from running into its hash.
    """
    items = contents.items() if isinstance(contents, Mapping) else contents
    return _hash_of_digests((path, content_hash(text)) for path, text in items)


def load_corpus(root: Path | str, *, manifest: Path | None = None) -> Corpus:
    """Read every document under `root`. Raises DataError for a missing or empty corpus.

    With `manifest` (a file in the run's cache), a document whose size, mtime, ctime and inode are those
    the manifest recorded is not read: its content hash is the recorded one, and its text is read only
    when asked for, then checked against that hash (see `_Manifest` for when this is safe). The updated
    manifest is written by `Corpus.save_manifest`."""
    root = Path(root)
    hint = "pass --corpus DIR, or generate the sample with `cairn corpus generate --out data/sample`"
    if not is_dir(root):
        if exists(root):
            raise DataError(f"{root}: the corpus is not a folder", hint)
        raise DataError(f"{root}: corpus folder {not_found(root)}", hint)
    _check_readable_tree(root)
    known = _Manifest.read(manifest) if manifest is not None else None
    seen: dict[str, _Entry] = {}
    documents = []
    skipped: list[Skipped] = []
    hashes: list[tuple[str, str]] = []
    for rel, file in _files(root):
        suffix = file.suffix.lower()
        if suffix not in READERS:
            skipped.append(Skipped(rel, OTHER_FORMAT))
            continue
        stamp = _stamp(file) if manifest is not None else None
        if stamp is not None and known is not None and known.files.get(rel, (None,))[:4] == stamp:
            digest = known.files[rel][4]
            documents.append(Document(rel, load=partial(_read_known, file, rel, digest)))
            hashes.append((rel, digest))
            seen[rel] = (*stamp, digest)
            continue
        try:
            text = _read_document(file)
        except Unreadable as exc:
            skipped.append(Skipped(rel, f"{READERS[suffix].kind}: {exc.reason}"))
            continue
        documents.append(Document(path=rel, text=text))
        digest = content_hash(text)
        hashes.append((rel, digest))
        if stamp is not None:
            seen[rel] = (*stamp, digest)
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
        corpus_hash=_hash_of_digests(hashes),
        skipped=tuple(skipped),
        pending_manifest=None if manifest is None else partial(_Manifest.write, manifest, seen, known),
    )


def _files(root: Path) -> list[tuple[str, Path]]:
    """(corpus-relative POSIX path, path) of every file under `root` outside hidden folders, in the order
    `sorted(root.rglob("*"))` gives (by path parts). Symlinked folders are not followed (as rglob and
    os.walk do not); a symlinked file is a file. os.scandir, not pathlib: at 8,800 files pathlib's
    path parsing was a third of a warm run."""
    found: list[tuple[tuple[str, ...], Path]] = []

    def walk(folder: str, parts: tuple[str, ...]) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue  # .git, .github and editor folders are not documents
                try:
                    if entry.is_dir(follow_symlinks=False):
                        walk(entry.path, (*parts, entry.name))
                    elif entry.is_file():
                        found.append(((*parts, entry.name), Path(entry.path)))
                except OSError:
                    continue  # as is_file says False for what cannot be looked at

    walk(str(root), ())
    found.sort(key=lambda item: item[0])
    return [("/".join(parts), path) for parts, path in found]


def _read_document(file: Path) -> str:
    """A document's text as a reader sees it (raises Unreadable for a converter's refusal)."""
    data = read_bytes(file, what="document", hint="make the document readable", limit=LIMIT_DOCUMENT)
    if file.suffix.lower() in MARKDOWN_SUFFIXES:
        text = decode_utf8(data, str(file), "re-save the document as UTF-8", bom=False)
        return text.replace("\r\n", "\n").replace("\r", "\n")  # as open() in text mode reads it
    return render(data, file.name)


def _read_known(file: Path, rel: str, digest: str) -> str:
    """The text of a document the manifest vouched for, read now; refused if it is not what was hashed."""
    hint = "the corpus changed while Cairn was running: run the command again"
    try:
        text = _read_document(file)
    except Unreadable as exc:
        raise DataError(f"{file}: cannot read the document any more ({exc.reason})", hint) from None
    if content_hash(text) != digest:
        raise DataError(f"{file}: the document changed while Cairn was running ({rel})", hint)
    return text


def _hash_of_digests(items: Iterable[tuple[str, str]]) -> str:
    digest = hashlib.sha256()
    for path, content in sorted(items):
        digest.update(f"{path}\0{content}\n".encode())
    return digest.hexdigest()


_Entry = tuple[int, int, int, int, str]
"""size, mtime_ns, ctime_ns, inode, sha256 of the document's text."""

_RACY_NS = 2_000_000_000
"""A file changed less than this before the manifest was written is not recorded: on a file system with
coarse timestamps (FAT: 2 s) it could change again within the same tick, keeping size and times."""


def _stamp(file: Path) -> tuple[int, int, int, int] | None:
    try:
        st = file.stat()
    except (OSError, ValueError):
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


class _Manifest(BaseModel):
    """What was known of each document at the last run: its stat fields and its content hash.

    Trusting a matching stat instead of reading the file is what git does for its index. It is safe
    because any write to a file, and any change of its mtime (touch, cp -p, rsync -t, tar), sets its
    ctime to the current time, which no program can choose; a file replaced by a rename has a new
    inode. It is not safe where those guarantees fail: a clock set back to the very nanosecond, a network
    or FUSE file system that fakes ctime or inodes, or a file changed within two seconds of the manifest
    being written on a file system with coarse timestamps (such files are not recorded, as git treats
    its "racily clean" entries). The manifest lives in the run's cache folder: deleting it makes the next
    run read and hash everything. In a fresh checkout (CI) every ctime is new, so nothing matches."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    files: dict[str, tuple[int, int, int, int, str]]

    @classmethod
    def read(cls, path: Path) -> _Manifest | None:
        if not is_file(path):
            return None
        try:
            return cls.model_validate_json(
                read_bytes(path, what="the corpus manifest", limit=LIMIT_CACHE_ENTRY)
            )
        except (DataError, ValueError):  # unreadable, torn or from another version: read everything
            return None

    @classmethod
    def write(cls, path: Path, seen: dict[str, _Entry], known: _Manifest | None) -> None:
        limit = time.time_ns() - _RACY_NS
        files = {rel: entry for rel, entry in seen.items() if max(entry[1], entry[2]) < limit}
        if known is not None and known.files == files:
            return
        # Not fsynced: a manifest lost or torn by a power cut only makes the next run read everything.
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(path, durable=False) as handle:
                handle.write(cls(files=files).model_dump_json().encode())
        except OSError as exc:
            raise DataError(
                f"{path}: cannot write the corpus manifest: {os_reason(exc)}", HINT_WRITE
            ) from None


def _check_readable_tree(root: Path) -> None:
    """A folder of the corpus that cannot be listed would silently drop its documents (and change the
    corpus): refuse it instead."""

    def refuse(exc: OSError) -> None:
        where = exc.filename or root
        raise DataError(f"{where}: cannot read the corpus folder: {os_reason(exc)}", "make it readable")

    for folder, subfolders, _ in os.walk(root, onerror=refuse):
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        del folder
