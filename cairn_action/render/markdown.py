"""Render the gate's result as the pull-request comment (and job summary): jinja2 for layout only.

GitHub refuses a comment over 65,536 characters, so the comment is rendered with a shrinking budget
(fewer rows per table, shorter fields) until it fits; each cut table says how many rows it left out.
"""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, StrictUndefined

from cairn_action.gate.models import GateResult
from cairn_action.render.comment_view import CommentView, build_view
from cairn_action.render.tables import Budget
from cairn_action.render.trend import Trend, trend_view

MAX_COMMENT_CHARS = 65_536
"""GitHub's limit on an issue comment's body, in characters (docs/action/github-facts.md#comments)."""
_BUDGETS = (
    Budget(rows=25, critical=10, reasons=20, field=200),
    Budget(rows=10, critical=5, reasons=10, field=120),
    Budget(rows=5, critical=3, reasons=5, field=80),
    Budget(rows=2, critical=1, reasons=3, field=60),
    Budget(rows=0, critical=0, reasons=3, field=40),
)


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("cairn_action.render", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # markdown, not HTML: the view model has escaped every untrusted string
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_view(view: CommentView) -> str:
    return _environment().get_template("comment.md.j2").render(view=view)


def render_comment(
    result: GateResult,
    *,
    trend: Trend | None = None,
    limit: int = MAX_COMMENT_CHARS,
    preface: tuple[str, ...] = (),
) -> str:
    """The comment's markdown, at most `limit` characters; `preface`: escaped lines under the verdict."""
    chart = trend_view(trend) if trend else None
    body = ""
    for budget in _BUDGETS:
        body = render_view(build_view(result, trend=chart, budget=budget, preface=preface))
        if len(body) <= limit:
            return body
    # The last budget bounds every field and list; reaching here means a new unbounded field.
    raise RuntimeError(f"the comment is {len(body)} characters even at the smallest budget")
