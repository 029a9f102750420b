"""The files a config's evaluation reads, and which of them a pull request changed.

The gate measures the system the pull request ships, and a `python:` target from the pull request can
read a plain golden set and return the expected answers (a sealed one keeps them out of its reach:
golden/sealed.py). A reviewer sees when the exam itself was touched, sealed or not, because the comment
says so. So the comment lists, under the verdict, every file
the pull request changed (from the pull request files API) that the evaluation reads: the config, the
golden set and its version, the calibration, the corpus, and the target's package or module.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Sequence

from cairn_action.config import Config
from cairn_action.golden.sealed import KEY_FILE, RECIPIENTS_FILE
from cairn_action.render.escape import escape_text

MAX_LISTED = 30
WORKFLOWS = ".github/workflows/"
"""A changed workflow can change what runs; listed too, since the job's pass or fail comes from it."""


def _join(folder: str, path: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, path)) if not path.startswith("/") else path
    return joined.removeprefix("./")


def exam_paths(config: Config, config_file: str) -> tuple[list[str], list[str]]:
    """(files, folders) the evaluation reads, from the repository root; `config_file` is the config's
    path from the root (its folder is where the config's relative paths start)."""
    here = posixpath.dirname(config_file)
    golden = _join(here, config.golden.path)
    files = [config_file, golden]
    folders = [_join(here, config.corpus.path)]
    if golden.endswith(".jsonl"):
        folder = posixpath.dirname(golden)
        # A sealed set's key and recipients too (golden/sealed.py): anyone can reseal to the public keys.
        files += [posixpath.join(folder, name) for name in ("golden.version", KEY_FILE, RECIPIENTS_FILE)]
    else:
        folders.append(golden)
    stem = posixpath.splitext(posixpath.basename(config_file))[0] or config.name
    files.append(_join(here, config.calibration.path or f"{stem}.calibration.json"))
    target = (config.target or "").strip()
    if target.startswith("python:"):
        module = target.removeprefix("python:").split(":", 1)[0]
        top = module.split(".", 1)[0]
        if top:
            files.append(_join(here, f"{top}.py"))
            folders.append(_join(here, top))
    return files, folders


def touched(changed: Iterable[str], files: Sequence[str], folders: Sequence[str]) -> list[str]:
    """The changed paths the evaluation reads (or the workflows), in the order GitHub listed them."""
    prefixes = [f.rstrip("/") + "/" for f in folders if f not in ("", ".")]
    found = []
    for path in changed:
        if path in files or path.startswith((*prefixes, WORKFLOWS)):
            found.append(path)
    return list(dict.fromkeys(found))


def touched_block(paths: Sequence[str]) -> tuple[str, ...]:
    """The comment's lines for them (escaped), or none."""
    if not paths:
        return ()
    shown = ", ".join(escape_text(p, limit=120) for p in paths[:MAX_LISTED])
    more = f" and {len(paths) - MAX_LISTED} more" if len(paths) > MAX_LISTED else ""
    return (
        f"**This pull request changes files the evaluation reads:** {shown}{more}. The gate measures "
        "the system as this pull request ships it, exam included: review these changes like code.",
    )
