"""The comment's list of critical golden cases a pull request adds or changes, and who confirmed each.

The release gate spec: "A label on a safety field needs a second person to confirm it." A pull request that
adds or relabels a critical case (any `[gate] critical_tags`) says so under the verdict, with the
confirmation each case carries. A confirmation by the case's own annotator, or by the pull request's own
author, does not count (the Action leaves the latter out of the pull request's scores); the author can write
any name in `confirmed_by`, so the reviewer is told to check it.
Every name and id is untrusted text from the pull request, escaped (no @mention, no markup).
"""

from __future__ import annotations

from collections.abc import Sequence

from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.review import confirmed_by_author, review_fields_changed
from cairn_action.render.escape import escape_text

MAX_LISTED = 20


def _all(golden: GoldenSet) -> dict[str, GoldenCase]:
    return {c.id: c for c in (*golden.cases, *golden.inactive)}


def _confirmation(case: GoldenCase, author: str, left_out: bool) -> str:
    who = case.confirmed_by
    if who is None:
        return "**not confirmed**: left out of every score until a second person confirms it"
    shown = escape_text(who, limit=60)
    if case.annotator is not None and who == case.annotator:
        return f"confirmed by its own annotator {shown}: **does not count**"
    if left_out:
        return (
            f"confirmed by {shown}, the pull request's author: **does not count**; left out of this pull "
            "request's scores until someone else confirms it"
        )
    return f"confirmed by {shown} (check that this person did)"


def critical_review_lines(
    base: GoldenSet | None,
    head: GoldenSet,
    critical_tags: Sequence[str],
    author: str,
) -> tuple[str, ...]:
    """The comment's block (empty when the pull request adds, relabels or confirms no critical case)."""
    before = _all(base) if base is not None else {}
    left_out = confirmed_by_author(base, head, critical_tags, author)
    rows = []
    for case in (*head.cases, *head.inactive):
        if not any(tag in critical_tags for tag in case.tags):
            continue
        old = before.get(case.id)
        relabelled, reconfirmed = review_fields_changed(old, case)
        if not (relabelled or reconfirmed):
            continue
        what = "added" if old is None else ("changed" if relabelled else "confirmed")
        shown = _confirmation(case, author, case.id in left_out)
        rows.append(f"- `{escape_text(case.id, limit=60)}` {what}: {shown}")
    if not rows:
        return ()
    more = [f"- and {len(rows) - MAX_LISTED} more"] if len(rows) > MAX_LISTED else []
    return (
        "**This pull request adds or changes critical golden cases** (a safety label needs a second "
        "person's confirmation):\n" + "\n".join([*rows[:MAX_LISTED], *more]),
    )
