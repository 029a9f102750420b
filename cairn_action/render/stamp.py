"""The release notes' accuracy section: rendered from a `Stamp` alone, and put into the notes idempotently.

The section lives between its config's two markers. Writing it again replaces the old one where it
stands; the first time it is appended after a blank line. Whatever the author wrote outside the markers
is kept byte for byte, in its order. Every string that came from outside (tags, logins, reasons, labels,
paths) goes through `escape_text`; the hidden data line is encoded by `report.stamp.encode_stamp`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jinja2 import Environment, PackageLoader, StrictUndefined
from tabulate import tabulate

from cairn_action.errors import CairnError
from cairn_action.render.escape import escape_text
from cairn_action.report.stamp import (
    STAMP_METRICS,
    Stamp,
    encode_stamp,
    section_end,
    section_pattern,
    section_start,
)
from cairn_action.score.metrics import get_metric

MAX_RELEASE_BODY = 125_000
"""GitHub refuses (or silently cuts) a release body over 125,000 characters
(docs/action/github-facts.md#releases)."""
SEPARATOR = "\n\n"
DEFAULT_PREFIX = "cairn-override"
NONE = "—"
_OVERRIDE_ROWS = (200, 50, 10, 0)
_SAFE_URL = re.compile(r"^https?://[A-Za-z0-9.:-]+(/[A-Za-z0-9._~%/+@=-]*)?$")
_VERDICT = {
    "stamped": "✅ **Accuracy stamp**",
    "published_over_regression": "⚠️ **Published over a regression**",
    "refused": "⛔ **Release refused**",
}


@dataclass(frozen=True, kw_only=True)
class StampView:
    start: str
    end: str
    title: str
    verdict: str
    reasons: tuple[str, ...]
    publication: str
    comparability: str
    measured: str
    figures: str
    tags_heading: str
    tags: str
    overrides_heading: str
    overrides: str
    overrides_omitted: str
    notes: tuple[str, ...]
    data: str


def _text(value: str | None, limit: int = 120) -> str:
    return escape_text(value, limit=limit, empty=NONE)


def _link(text: str, url: str) -> str:
    """`[text](url)` for a URL we built, or the text alone when the URL is not plainly safe."""
    return f"[{text}]({url})" if _SAFE_URL.match(url) else text


def _previous_name(stamp: Stamp) -> str:
    prev = stamp.previous
    return _link(_text(prev.release_tag, 60), prev.url) if prev is not None else ""


def _verdict(stamp: Stamp, override_prefix: str) -> str:
    head = _VERDICT[stamp.status]
    prev = stamp.previous
    if stamp.status == "refused":
        line = f"{override_prefix.replace('`', '')}: <reason>"
        return (
            f"{head}: this release was put back to draft. Fix what is below and publish it again, or "
            f"publish it with a line `{line}` in the notes (write access or above); the release will keep "
            "the reason."
        )
    if stamp.status == "published_over_regression":
        return f"{head}: published although the release gate refused it, for the reason below."
    if prev is None:
        return f"{head}: the first stamped release; there is no earlier stamp to compare with."
    if not prev.comparable:
        return f"{head}: measured, but not comparable with {_previous_name(stamp)} (see below)."
    return f"{head}: no critical tag's recall fell since {_previous_name(stamp)}."


def _publication(stamp: Stamp) -> str:
    p = stamp.published_over
    if p is None:
        return ""
    return (
        f"Published over the gate by {_text(p.actor, 64)} (role {_text(p.role, 32)}, via {_text(p.via, 40)}, "
        f"{_text(p.at, 40)}). Reason: {_text(p.reason, 500)}"
    )


def _comparability(stamp: Stamp) -> str:
    if not stamp.not_comparable:
        return ""
    why = "; ".join(_text(r, 200) for r in stamp.not_comparable)
    return (
        f"> [!WARNING]\n> **Not comparable with {_previous_name(stamp)}**: {why}. The two releases measured "
        "different things, so no changes are shown and nothing was refused on these numbers."
    )


def _measured(stamp: Stamp) -> str:
    if not stamp.evaluated:
        return ""
    report = _link("report", stamp.report_url) if stamp.report_url else _text(stamp.report_path)
    return (
        f"Measured on golden set **{_text(stamp.golden_version, 40)}** "
        f"(`{_text(stamp.golden_hash[:12], 12)}`), corpus `{_text(stamp.corpus_hash[:12], 12)}`, "
        f"split {_text(stamp.split, 20)}, {stamp.n_cases} cases, config `{_text(stamp.config_hash, 20)}` · "
        f"{report}"
    )


def _comparable_previous(stamp: Stamp) -> str:
    prev = stamp.previous
    return _text(prev.release_tag, 60) if prev is not None and prev.comparable else ""


def _guarantee(stamp: Stamp) -> str:
    if stamp.alpha is None:
        return ""
    if not stamp.threshold_source.startswith("calibrated"):
        return " (uncalibrated: no guarantee)"
    held = {True: "met", False: "**not met**", None: "nothing answered"}[stamp.guarantee_met]
    return f" (guarantee ≤ {stamp.alpha * 100:.1f}%: {held})"


def _figures(stamp: Stamp) -> str:
    prev_name = _comparable_previous(stamp)
    headers = ["figure", "this release"] + ([prev_name, "change"] if prev_name else [])
    rows = []
    for name in STAMP_METRICS:
        spec = get_metric(name)
        value = stamp.figures.get(name)
        cell = spec.format(value) + (_guarantee(stamp) if name == "error_rate_answered" else "")
        row = [spec.label, cell]
        if prev_name and stamp.previous is not None:
            before = stamp.previous.figures.get(name)
            delta = None if value is None or before is None else value - before
            row += [spec.format(before), spec.format_delta(delta)]
        rows.append(row)
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def _share(value: float | None) -> str:
    return get_metric("recall_at_5").format(value)


def _tags(stamp: Stamp) -> tuple[str, str]:
    if not stamp.critical:
        return "", ""
    prev_name = _comparable_previous(stamp)
    headers = ["critical tag", "cases", "recall", *([prev_name, "change"] if prev_name else []), "recall@5"]
    rows = []
    for t in stamp.critical:
        mark = "🔴 " if t.fell else ""
        row = [f"{mark}{_text(t.tag, 40)}", str(t.n), _share(t.recall)]
        if prev_name:
            delta = None if t.recall is None or t.previous is None else t.recall - t.previous
            row += [_share(t.previous), get_metric("recall_at_5").format_delta(delta)]
        rows.append([*row, _share(t.recall_at_5)])
    heading = (
        "**Critical tags**: recall is the share of the tag's cases handled right (answered correctly, or "
        "declined when there is no answer); a case left unanswered counts as missed."
    )
    return heading, tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def _overrides(stamp: Stamp, rows_limit: int) -> tuple[str, str, str]:
    since = f"since {_previous_name(stamp)}" if stamp.previous is not None else "before this release"
    if not stamp.overrides:
        return f"No pull request overrode the gate {since}.", "", ""
    heading = f"**Overrides merged {since}** ({len(stamp.overrides)}): every one, with who and why."
    rows = [
        [
            f"#{o.pr}" if o.pr is not None else NONE,
            _text(o.actor, 64) + (" (self-override)" if o.self_override else ""),
            _text(o.label, 64),
            _text(o.reason, 300),
            _text(", ".join(o.overrode), 200),
            _text(o.at, 40),
        ]
        for o in stamp.overrides[:rows_limit]
    ]
    left = len(stamp.overrides) - len(rows)
    omitted = f"_{left} more, cut for length; the hidden stamp data lists them all._" if left else ""
    headers = ["PR", "by", "label", "reason", "overrode", "at"]
    table = tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True) if rows else ""
    return heading, table, omitted


def build_stamp_view(
    stamp: Stamp, *, override_rows: int = _OVERRIDE_ROWS[0], override_prefix: str = DEFAULT_PREFIX
) -> StampView:
    tags_heading, tags = _tags(stamp)
    overrides_heading, overrides, omitted = _overrides(stamp, override_rows)
    return StampView(
        start=section_start(stamp.config_name),
        end=section_end(stamp.config_name),
        title=f"Accuracy (Cairn): {_text(stamp.config_name, 64)}",
        verdict=_verdict(stamp, override_prefix),
        reasons=tuple(_text(r, 400) for r in stamp.reasons),
        publication=_publication(stamp),
        comparability=_comparability(stamp),
        measured=_measured(stamp),
        figures=_figures(stamp) if stamp.evaluated else "",
        tags_heading=tags_heading,
        tags=tags,
        overrides_heading=overrides_heading,
        overrides=overrides,
        overrides_omitted=omitted,
        notes=tuple(_text(n, 400) for n in stamp.notes),
        data=encode_stamp(stamp),
    )


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("cairn_action.render", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # markdown, not HTML: the view has escaped every untrusted string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render_stamp(
    stamp: Stamp, *, limit: int = MAX_RELEASE_BODY, override_prefix: str = DEFAULT_PREFIX
) -> str:
    """The section, markers included, at most `limit` characters (the override table shrinks first)."""
    template = _environment().get_template("stamp.md.j2")
    section = ""
    for rows in _OVERRIDE_ROWS:
        view = build_stamp_view(stamp, override_rows=rows, override_prefix=override_prefix)
        section = template.render(view=view)
        if len(section) <= limit:
            return section
    raise CairnError(
        f"the accuracy section for {stamp.release_tag} needs {len(section)} characters, and the release "
        f"notes leave room for {max(limit, 0)} (GitHub holds {MAX_RELEASE_BODY})",
        "shorten the release notes",
    )


# ----- putting the section into the notes -----


def author_notes(notes: str | None) -> str:
    """The notes with every Cairn section cut out: what people wrote (where an override line counts)."""
    return section_pattern().sub("", notes or "")


def apply_stamp(notes: str | None, section: str, config_name: str) -> str:
    """`notes` with `section` in place of this config's old section, or appended after a blank line.

    The author's text is never changed or reordered. Duplicated sections of the config (a copied note)
    are removed with the blank line before them, so exactly one section is left.
    """
    text = notes or ""
    matches = list(section_pattern(config_name).finditer(text))
    if not matches:
        return f"{text}{SEPARATOR}{section}" if text else section
    out, cursor = [], 0
    for i, match in enumerate(matches):
        start = match.start()
        if i > 0 and text[cursor:start].endswith(SEPARATOR):
            start -= len(SEPARATOR)  # the blank line a duplicate was appended after
        out.append(text[cursor : max(start, cursor)])
        if i == 0:
            out.append(section)
        cursor = match.end()
    out.append(text[cursor:])
    return "".join(out)


def stamp_notes(notes: str | None, stamp: Stamp, *, override_prefix: str = DEFAULT_PREFIX) -> str:
    """The release notes carrying `stamp`'s section, within GitHub's limit."""
    text = notes or ""
    old = list(section_pattern(stamp.config_name).finditer(text))
    outside = len(text) - sum(len(m.group(0)) for m in old)
    room = MAX_RELEASE_BODY - outside - (0 if old else len(SEPARATOR))
    section = render_stamp(stamp, limit=room, override_prefix=override_prefix)
    return apply_stamp(text, section, stamp.config_name)
