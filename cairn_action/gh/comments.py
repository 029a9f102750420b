"""One sticky comment per config: found by its hidden marker *and* a bot author, edited, never duplicated.

The bot author matters: anyone can post a comment that starts with the marker, and the Action must not
adopt (or try to edit) it. The workflow token cannot ask `GET /user` who it is, so "ours" means a Bot
account's comment; once this run has created a comment, the author it got is known exactly.

Two runs for the same pull request can race (a push and a label within seconds). Each creates its
comment only after finding none, then lists again: if an older sticky comment exists, the newer one it
created is deleted and the older one edited. Whatever the interleaving, one comment is left.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.gh.gateway import Comment, GitHubGateway

MAX_COMMENT_CHARS = 65_536


@dataclass(frozen=True, kw_only=True)
class Upserted:
    comment: Comment
    created: bool
    deleted: tuple[int, ...] = ()
    """Duplicates removed (a racing run's, or this run's own newer one)."""


def is_sticky(comment: Comment, marker: str, author: str | None = None) -> bool:
    """The comment is a bot's (or exactly `author`'s) and its first line is the marker."""
    first_line = comment.body.split("\n", 1)[0].strip()
    if first_line != marker:
        return False
    return comment.author == author if author else comment.author_is_bot


def _stickies(gateway: GitHubGateway, number: int, marker: str, author: str | None = None) -> list[Comment]:
    return sorted((c for c in gateway.comments(number) if is_sticky(c, marker, author)), key=lambda c: c.id)


def find_sticky(gateway: GitHubGateway, number: int, marker: str) -> Comment | None:
    found = _stickies(gateway, number, marker)
    return found[0] if found else None


def upsert_sticky(gateway: GitHubGateway, number: int, marker: str, body: str) -> Upserted:
    """Edit this config's sticky comment on pull request `number`, or create it; returns what was left."""
    if body.split("\n", 1)[0].strip() != marker:
        raise ValueError("the comment body must start with its marker line")
    if len(body) > MAX_COMMENT_CHARS:
        raise ValueError(f"the comment is {len(body)} characters; GitHub takes at most {MAX_COMMENT_CHARS}")
    existing = _stickies(gateway, number, marker)
    if existing:
        keep = existing[0]
        edited = gateway.edit_comment(number, keep.id, body)
        if edited is not None:
            # Newer copies by the same author: a run that died between creating and cleaning up.
            extra = tuple(c.id for c in existing[1:] if c.author == keep.author)
            for cid in extra:
                gateway.delete_comment(number, cid)
            return Upserted(comment=edited, created=False, deleted=extra)
        # Deleted between listing and editing (by a person, or a racing run): create it again.
    created = gateway.create_comment(number, body)
    after = _stickies(gateway, number, marker, author=created.author)
    oldest = after[0] if after else created
    if oldest.id >= created.id:
        return Upserted(comment=created, created=True)
    # Another run created one first: keep the older, remove ours, and put our content in it.
    gateway.delete_comment(number, created.id)
    edited = gateway.edit_comment(number, oldest.id, body)
    if edited is None:  # the survivor vanished too; recreate rather than leave none
        return Upserted(comment=gateway.create_comment(number, body), created=True, deleted=(created.id,))
    return Upserted(comment=edited, created=False, deleted=(created.id,))
