"""The comment block for critical golden cases a pull request adds or changes."""

from __future__ import annotations

from typing import Any

from score_builders import make_golden

from cairn_action.golden.models import GoldenCase
from cairn_action.golden.review import confirmed_by_author
from cairn_action.render.golden_review import critical_review_lines

CRITICAL = ("safety", "unanswerable", "false_premise")


def case(case_id: str, **fields: Any) -> GoldenCase:
    base: dict[str, Any] = {
        "id": case_id,
        "question": "Does the satay contain an allergen?",
        "expected_answer": "peanut",
        "support": [{"doc": "allergens.md", "quote": "Satay: peanut"}],
        "tags": ["safety"],
        "annotator": "alice",
    }
    return GoldenCase.model_validate({**base, **fields})


def test_critical_review__added_changed_unchanged__each_with_its_confirmation() -> None:
    base = make_golden([case("s1", confirmed_by="bob"), case("s2"), case("s3", confirmed_by="bob")])
    head = make_golden(
        [
            case("s1", confirmed_by="bob"),  # unchanged: not listed
            case("s2", expected_answer="peanuts", confirmed_by="carol"),  # relabelled by the PR author
            case(
                "s3",
                confirmed_by="bob",
                support=[
                    {"doc": "allergens.md", "quote": "Satay: peanut", "digest": "sha256:0123456789abcdef"}
                ],
            ),  # digest only
            case("s4"),  # added, unconfirmed
            case("s5", confirmed_by="alice"),  # added, confirmed by its annotator
            case("p1", tags=["policy"]),  # not critical
        ]
    )
    (block,) = critical_review_lines(base, head, CRITICAL, author="Carol")
    lines = block.splitlines()[1:]
    assert lines == [
        "- `s2` changed: confirmed by carol, the pull request's author: **does not count**; left out of this "
        "pull request's scores until someone else confirms it",
        "- `s4` added: **not confirmed**: left out of every score until a second person confirms it",
        "- `s5` added: confirmed by its own annotator alice: **does not count**",
    ]


def test_critical_review__no_critical_change__nothing() -> None:
    golden = make_golden([case("s1", confirmed_by="bob")])
    assert critical_review_lines(golden, golden, CRITICAL, author="x") == ()


def test_confirmed_by_author__new_relabelled_or_newly_confirmed_by_them__left_out_else_counted() -> None:
    base = make_golden(
        [case("old", confirmed_by="carol"), case("relabel", confirmed_by="carol"), case("pending")]
    )
    head = make_golden(
        [
            case("old", confirmed_by="carol"),  # confirmed on the base branch, labels unchanged: counts
            case("relabel", expected_answer="peanuts", confirmed_by="carol"),  # their own new label
            case("pending", confirmed_by="Carol "),  # the PR adds only its author's confirmation
            case("new", confirmed_by="CAROL"),  # added and confirmed by the author
            case("other", confirmed_by="bob"),  # someone else: counts (the comment asks to check it)
            case("policy", tags=["policy"], confirmed_by="carol"),  # not critical
        ]
    )
    assert sorted(confirmed_by_author(base, head, CRITICAL, "carol")) == ["new", "pending", "relabel"]
    assert confirmed_by_author(base, head, CRITICAL, "") == {}
    (block,) = critical_review_lines(base, head, CRITICAL, author="carol")
    assert "- `pending` confirmed: confirmed by Carol, the pull request's author: **does not count**" in block
