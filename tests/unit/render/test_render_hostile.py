"""Hostile text anywhere a report carries text cannot ping anyone, inject HTML, break the layout or push
the comment past GitHub's limit. Hypothesis builds the reports; the invariants are checked on the
markdown as GitHub-flavoured markdown parses it."""

from __future__ import annotations

import re

import pytest
from gate_fixtures import report
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from cairn_action.gate import run_gate
from cairn_action.gate.models import GateResult, Override
from cairn_action.render.markdown import MAX_COMMENT_CHARS, render_comment
from cairn_action.render.trend import build_trend
from cairn_action.report.models import CitedChunk, PerCase, Report

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
MENTION = re.compile(r"(?:^|[^A-Za-z0-9_])@[A-Za-z0-9]", re.MULTILINE)
EMAIL = re.compile(r"[A-Za-z0-9._+-]@[A-Za-z0-9_-]+\.[A-Za-z0-9_-]")
FRAGMENTS = [
    "@octocat",
    "@org/team",
    "#1",
    "</details>",
    "<details>",
    "<summary>",
    "<!--",
    "-->",
    "<!-- cairn:gate config=x -->",
    "|",
    "||",
    "\\|",
    "\\",
    "`",
    "```",
    "~~~",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[a](https://evil.example)",
    "![i](http://e.x/i.png)",
    "https://evil.example",
    "www.evil.example",
    "**",
    "_",
    "\n",
    "\r\n",
    "\n\n# heading\n",
    "\n---\n",
    "\n| a | b |\n|---|---|\n",
    "&lt;",
    "&#64;",
    "$x$",
    "\u202e",
    "\u200d",
    "\u2028",
    "\x00",
    ":tada:",
    "> quote",
    "- item",
    "1. item",
    "<br>",
    "\t",
    "   ",
]
HUGE = "@everyone </details> | `x` <b>" * 4000  # over 100,000 characters
# Hypothesis prints failing inputs; a short stand-in keeps that readable and is expanded in the test.
HUGE_TOKEN = "<<HUGE>>"

hostile = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=12).map("".join),
    st.just(HUGE_TOKEN),
)


def _expand(text: str) -> str:
    return text.replace(HUGE_TOKEN, HUGE)


def _cases(texts: list[str], *, after: bool) -> list[PerCase]:
    rows = []
    for i, text in enumerate(texts):
        answerable = i % 3 != 2
        right_before = i % 2 == 0
        right = right_before != after if i % 4 != 3 else right_before
        rows.append(
            PerCase(
                case_id=f"{text[:50]}-{i}",
                answerable=answerable,
                status="answered" if (answerable or not right) else "abstained",
                correct=right if answerable else False,
                answer_text=text + ("" if after else " before"),
                confidence=0.5,
                token_f1=1.0 if right else 0.0,
                question=text,
                expected_answer=text if answerable else None,
                tags=[text[:30], "safety"] if i % 2 else ["unanswerable"],
                support_located=answerable,
                retrieved_support_rank=(1 if after else 7) if answerable else None,
                cited=[CitedChunk(chunk_id=text[:20], doc=text, rank=1)],
            )
        )
    return rows


def _reports(texts: list[str], name: str) -> tuple[Report, Report]:
    base = report("baseline")
    baseline = base.model_copy(
        update={"per_case": _cases(texts, after=False), "config_name": name, "cairn_version": name}
    )
    candidate = base.model_copy(
        update={
            "per_case": _cases(texts, after=True),
            "config_name": name,
            "created_at": name,
            "golden_version": base.golden_version,
        }
    )
    return baseline, candidate


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def _check(body: str, result: GateResult) -> None:
    assert len(body) <= MAX_COMMENT_CHARS
    lines = body.splitlines()
    assert re.fullmatch(r"<!-- cairn:gate config=[A-Za-z0-9._-]+ -->", lines[0])
    # Only the marker opens or closes a comment (the chart's own arrow `0 --> 1` aside).
    closers = [line for line in lines if "-->" in line]
    assert body.count("<!--") == 1
    assert closers[0] == lines[0] and all(line.startswith("    y-axis ") for line in closers[1:])
    # No mention (GitHub's filter: an @ after the start or a non-word character) and no e-mail autolink
    # (a dot after the @): each such @ is followed by the zero-width joiner.
    assert not MENTION.search(body), MENTION.search(body)
    assert not EMAIL.search(body), EMAIL.search(body)
    visible = "\n".join(lines[1:])  # the marker is an HTML comment: never rendered
    assert "://" not in visible and "www." not in visible.lower()
    tokens = MD.parse(body)
    html = [t.content.strip() for t in tokens if t.type == "html_block"]
    html += [
        c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "html_inline"
    ]
    allowed = ("<!-- cairn:gate", "<details>", "</details>", "<br>", "<sub>", "</sub>")
    assert all(h.startswith(allowed) for h in html), html
    assert sum(h.startswith("<details>") for h in html) == html.count("</details>") == body.count("<summary>")
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    assert not [
        c
        for c in inline
        if c.type in ("link_open", "image", "s_open", "em_open", "strong_open") and c.type != "strong_open"
    ]
    assert {c.content for c in inline if c.type == "code_inline"} <= {"cairn gate --json", "all"}
    fences = [t for t in tokens if t.type == "fence"]
    assert all(t.info == "mermaid" and re.fullmatch(r'[\w\s"\[\],.:>-]*', t.content) for t in fences)
    # Tables: every row has as many cells as its header, in the source and to the parser.
    header = None
    for line in lines:
        if line.startswith("|"):
            header = header if header is not None else _unescaped_pipes(line)
            assert _unescaped_pipes(line) == header, line
        else:
            header = None
    table_opens = sum(t.type == "table_open" for t in tokens)
    assert table_opens == sum(1 for line in lines if re.fullmatch(r"\|(-+\|)+", line))
    # The verdict is the second line and says what the decision is.
    assert lines[1].startswith("### ") and result.decision.status.split("_")[0][:4] in lines[1].lower()


@pytest.mark.slow  # 100 generated reports rendered and parsed: about 10 s
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
@given(texts=st.lists(hostile, min_size=1, max_size=6), name=hostile, reason=hostile)
def test_render__hostile_report_text__comment_keeps_its_invariants(
    texts: list[str], name: str, reason: str
) -> None:
    texts, name, reason = [_expand(t) for t in texts], _expand(name), _expand(reason)
    baseline, candidate = _reports(texts, name)
    override = Override(actor=name or "x", label="cairn-override", reason=reason or "x", at=name or "x")
    result = run_gate(baseline, candidate, override=override)
    body = render_comment(result, trend=build_trend([baseline], candidate))
    _check(body, result)
    # The marker cannot be forged and the verdict cannot be hidden: what was decided is what is shown.
    assert body.count("<!-- cairn:gate") == 1
