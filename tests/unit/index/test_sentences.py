"""A chunk's sentences, the finer units dense retrieval embeds beside the chunk."""

from __future__ import annotations

from cairn_action.index.sentences import MIN_CHARS, sentences


def test_sentences__lines_and_sentence_ends__split_in_order() -> None:
    text = (
        "Please file an expense report within 60 days. Late reports need approval!\n"
        "- Receipts over $25 must be itemised\n"
        "| Item | Monthly limit |\n"
        "Is a Windows laptop allowed? No, we only support Mac computers."
    )
    assert sentences(text) == [
        "Please file an expense report within 60 days.",
        "Late reports need approval!",
        "- Receipts over $25 must be itemised",
        "| Item | Monthly limit |",
        "Is a Windows laptop allowed?",
        "No, we only support Mac computers.",
    ]


def test_sentences__abbreviations_and_decimals__not_split() -> None:
    # a split needs whitespace and a capital, digit, quote or markdown mark after the stop
    assert sentences("Use e.g. the fleet of 2.5 agents per team for CI.") == [
        "Use e.g. the fleet of 2.5 agents per team for CI."
    ]


def test_sentences__fragments_shorter_than_min_chars__joined_to_the_next() -> None:
    assert sentences("**Q:**\n**A:** No, departures are confidential.") == [
        "**Q:** **A:** No, departures are confidential."
    ]
    assert sentences("Intro line that is long enough.\nok") == ["Intro line that is long enough. ok"]
    assert sentences("tiny") == ["tiny"] and len("tiny") < MIN_CHARS
    assert sentences("  \n\n ") == []
