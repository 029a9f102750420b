"""`cairn corpus generate`: write the Halcyon Provisions sample corpus from a seed and check its digest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cairn_action.errors import DataError
from cairn_action.files import check_output_dir, os_errors_as_data_errors, write_text
from cairn_action.index.corpus import DOCUMENT_SUFFIXES, corpus_hash_of, load_corpus

DEFAULT_SEED = 7

# The corpus_hash of the generated corpus per seed. A change to any document template shows up as a
# one-line change here; the shipped golden set is labelled against seed 7, so review such a change
# with `cairn golden check` before updating the digest.
PINNED_DIGESTS: dict[int, str] = {
    7: "0cee8669d03cbfd15b832d289aa2aa0f50b766f487b0fbdf44a1ba3fcabdec6b",
}


@dataclass(frozen=True)
class GeneratedCorpus:
    root: Path
    seed: int
    files: dict[str, str]  # relative path -> text
    corpus_hash: str
    pinned: str | None  # the digest pinned for this seed, if any

    @property
    def words(self) -> int:
        return sum(len(text.split()) for text in self.files.values())


def render_corpus(seed: int) -> dict[str, str]:
    """Every sample document for `seed`, as {relative path: markdown}."""
    # Imported here: every run on the sample asks `ensure_sample_corpus` whether the corpus is intact,
    # and only a missing or edited one is rendered again (issue 27, the offline floor).
    import importlib
    import pkgutil

    from cairn_action.sample import documents
    from cairn_action.sample.draw import Draw
    from cairn_action.sample.facts import facts_for

    draw = Draw(seed)
    facts = facts_for(draw)
    files: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(documents.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{documents.__name__}.{info.name}")
        text = module.render(draw, facts)
        if not text.endswith("\n"):
            text += "\n"
        if module.PATH in files:
            raise RuntimeError(f"two sample documents claim {module.PATH}")
        files[module.PATH] = text
    return files


def generate_corpus(
    out: Path,
    seed: int = DEFAULT_SEED,
    *,
    prune: bool = False,
    pinned_digests: Mapping[int, str] = PINNED_DIGESTS,
) -> GeneratedCorpus:
    """Write the corpus under `out` and check it against the pinned digest for `seed`.

    Documents in `out` that the generator does not write would change the corpus hash: with `prune`
    (for Cairn's own data/sample) they are deleted, otherwise the call is refused before anything is
    written, so pointing --out at a folder of real documents never loses one.
    Raises DataError when a pinned digest exists and differs (the generator changed), after writing,
    so the differing files can be inspected.
    """
    files = render_corpus(seed)
    if out.exists() and not out.is_dir():
        raise DataError(f"{out}: exists and is not a folder", "choose another --out")
    with os_errors_as_data_errors("write the sample corpus there", "choose a folder you can read and write"):
        check_output_dir(out, what="the sample corpus folder")
        _write_corpus(out, files, prune=prune)
    digest = corpus_hash_of(files)
    pinned = pinned_digests.get(seed) or None
    result = GeneratedCorpus(root=out, seed=seed, files=files, corpus_hash=digest, pinned=pinned)
    if pinned is not None and pinned != digest:
        raise DataError(
            f"{out}: the generated corpus for seed {seed} has digest {digest}, but {pinned} is pinned",
            "the generator changed: if that was intended, update PINNED_DIGESTS in "
            "cairn_action/sample/generate.py and run `cairn golden check`",
        )
    return result


def _write_corpus(out: Path, files: Mapping[str, str], *, prune: bool) -> None:
    """Write the documents, refusing (or with `prune`, deleting) documents the sample does not have."""
    foreign = sorted(
        p
        for p in (out.rglob("*") if out.is_dir() else [])
        if p.is_file()
        and p.suffix.lower() in DOCUMENT_SUFFIXES  # only documents change the corpus hash
        and not any(part.startswith(".") for part in p.relative_to(out).parts)
        and p.relative_to(out).as_posix() not in files
    )
    if foreign and not prune:
        shown = ", ".join(p.relative_to(out).as_posix() for p in foreign[:5])
        more = f" and {len(foreign) - 5} more" if len(foreign) > 5 else ""
        raise DataError(
            f"{out}: holds files the sample corpus does not have ({shown}{more}); nothing was written",
            "choose an empty or new folder for --out (the sample is generated, never edited)",
        )
    for path in foreign:
        path.unlink()
    for rel, text in files.items():
        # Not durable: the sample is generated again, identical, whenever it is missing.
        write_text(out / rel, text, what="the sample corpus", durable=False)


def ensure_sample_corpus(path: Path, seed: int = DEFAULT_SEED) -> str | None:
    """Make `path` hold the sample corpus for `seed`; a line saying what was done, or None if nothing was.

    For configs whose corpus is the generated sample (never committed, never a user's documents): a
    missing folder is generated, and one whose digest differs from the pinned one (edited by hand, or
    written by an older generator) is regenerated, so reports made on "the sample" always measured the
    same documents.
    """
    if path.is_dir() and any(p.is_file() for p in path.rglob("*.md")):
        pinned = PINNED_DIGESTS.get(seed) or None
        if pinned is None or load_corpus(path).corpus_hash == pinned:
            return None
        generate_corpus(path, seed, prune=True)
        return f"regenerated the sample corpus (seed {seed}) in {path}: it differed from the generator"
    generate_corpus(path, seed, prune=True)
    return f"generated the sample corpus (seed {seed}) in {path}"
