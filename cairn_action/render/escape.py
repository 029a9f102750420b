"""Make untrusted text (answers, questions, case ids, document names, override reasons) inert in markdown.

What comes out is one line of plain text that GitHub renders as the words that went in, and nothing
more: no @mention or #reference that notifies anyone, no link, no raw HTML, no emphasis, no code span,
and nothing that can end a table cell or a `<details>` block. It is safe in a table cell, a list item or
a paragraph, but never at the start of a line (callers always put something before it).
"""

from __future__ import annotations

import re
import unicodedata

ZWJ = "\u200d"
"""Zero-width joiner: invisible, and enough to stop GitHub reading `@name` as a mention
(docs/action/github-facts.md#comments)."""
ELLIPSIS = "…"
DEFAULT_LIMIT = 300

# The ASCII punctuation that can open or close inline markdown (emphasis, code, links: `(` and `!` only
# matter next to a `[`, which is escaped), `|` for tables and `$` for GitHub's math. `<`, `>`, `&` and
# `"` become entities instead.
_BACKSLASHED = frozenset("\\`*_[]|~$")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
# Autolinks: a zero-width joiner inside every `://` and after every `www` breaks recognition (whatever the
# scheme) without a visible change; `mailto:` and `xmpp:` links need an @, which gets one too.
_SCHEME_SEPARATOR = re.compile(r"://")
_WWW = re.compile(r"(?i)(www)(\.)")
_TRIGGERS = frozenset("@#")
# GitHub reads `@name` as a mention only after the start or a non-word character (its mention filter:
# `(?:^|\W)@name`), and `x@y.z` as an e-mail link only with a dot after the @. So an @ between a letter or
# digit and a dot-free word (`recall@5`, `nDCG@10`) is neither, and keeps no joiner: Ctrl-F finds it.
# A sentence's closing dot is not a domain's: `recall@10.` is no address either.
_INERT_AT = re.compile(r"(?<=[A-Za-z0-9])@(?=[A-Za-z0-9-]+(?:\.(?![A-Za-z0-9_-])|(?![A-Za-z0-9._+-])))")


def _clean(text: str, limit: int) -> str:
    """One line of at most `limit` characters: controls, line breaks and odd spaces become single spaces,
    invisible format characters (bidi overrides, joiners the text brought) go, lone surrogates become
    U+FFFD, and an ellipsis ends a line that was cut. Stops reading once the limit is passed, so a
    megabyte of answer costs no more than a line of it."""
    out: list[str] = []
    pending_space = False
    for ch in text:
        category = unicodedata.category(ch)
        if category == "Cf":
            continue
        if category in ("Cc", "Zl", "Zp", "Zs"):
            pending_space = bool(out)
            continue
        if pending_space:
            out.append(" ")
            pending_space = False
        out.append("\ufffd" if category == "Cs" else ch)
        if len(out) > limit:
            return "".join(out[: limit - 1]).rstrip() + ELLIPSIS if limit > 0 else ""
    return "".join(out)


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, ending in an ellipsis when something was cut."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    return text[: limit - 1] + ELLIPSIS


def escape_text(text: str | None, *, limit: int = DEFAULT_LIMIT, empty: str = "") -> str:
    """`text` as inert markdown on one line, cut to `limit` characters before escaping.

    The escaped form can be up to six times longer than the cut text (`"` becomes `&quot;`), so the
    caller's size budget is `6 * limit` per field at worst.
    """
    if text is None:
        return empty
    cleaned = _clean(text, limit)
    if not cleaned:
        return empty
    cleaned = _SCHEME_SEPARATOR.sub(":" + ZWJ + "//", cleaned)
    cleaned = _WWW.sub(lambda m: m.group(1) + ZWJ + m.group(2), cleaned)
    inert = {m.start() for m in _INERT_AT.finditer(cleaned)}
    out = []
    for i, ch in enumerate(cleaned):
        if i in inert:
            out.append(ch)
        elif ch in _ENTITIES:
            out.append(_ENTITIES[ch])
        elif ch in _BACKSLASHED:
            out.append("\\" + ch)
        elif ch in _TRIGGERS:
            out.append(ch + ZWJ)
        else:
            out.append(ch)
    return "".join(out)


def safe_token(text: str, *, limit: int = 64) -> str:
    """Only `[A-Za-z0-9._-]`, for places markdown escaping cannot reach: an HTML comment (the sticky
    marker), a code span, a mermaid chart."""
    return re.sub(r"[^A-Za-z0-9._-]", "", text)[:limit] or "unnamed"
