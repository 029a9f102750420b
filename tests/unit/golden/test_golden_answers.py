"""Richer expectations per case: answer variants scored as SQuAD scores several gold answers, and
deterministic checks that count in the verdict; document-level support; the balance section."""

from __future__ import annotations

from typing import Any

from score_builders import make_record

from cairn_action.golden.answer_checks import failed_checks
from cairn_action.golden.balance import balance_lines, size_claims
from cairn_action.golden.models import GoldenCase, ResolvedSupport
from cairn_action.golden.passage import digest, passage_span, section_span, slug
from cairn_action.index.chunks import Chunk
from cairn_action.index.evidence import evidence_ranks
from cairn_action.report.models import PerCase
from cairn_action.report.why import Setting, wrong_reason
from cairn_action.run.judge import LexicalJudge
from cairn_action.score.outcome import score_case
from cairn_action.squad import exact_match, metric_max_over_ground_truths, token_f1


def case(**fields: Any) -> GoldenCase:
    base: dict[str, Any] = {
        "id": "c1",
        "question": "Who is the head of state?",
        "expected_answer": "King Charles III",
        "support": [{"doc": "policy.md", "quote": "King Charles III"}],
    }
    return GoldenCase.model_validate({**base, **fields})


def test_score_case__variant_matches__exact_match_and_f1_take_the_best_gold_as_squad() -> None:
    golden = case(answer_variants=["Charles III"])
    outcome = score_case(make_record("c1", answer="Charles III"), golden, threshold=None)
    golds = ["King Charles III", "Charles III"]
    assert outcome.exact_match is True
    assert outcome.exact_match == metric_max_over_ground_truths(exact_match, "Charles III", golds)
    assert outcome.token_f1 == 1.0 == metric_max_over_ground_truths(token_f1, "Charles III", golds)
    without = score_case(make_record("c1", answer="Charles III"), case(), threshold=None)
    assert (
        without.exact_match is False
        and without.token_f1 == token_f1("Charles III", "King Charles III") == 0.8
    )


def test_lexical_judge__variant__right_only_through_the_variant() -> None:
    judge = LexicalJudge()
    with_variant = case(expected_answer="14 days", answer_variants=["two weeks"])
    assert judge.judge(with_variant, "You have two weeks.").correct is True
    assert judge.judge(case(expected_answer="14 days"), "You have two weeks.").correct is False
    # A wrong number is still wrong, whatever the variants.
    assert judge.judge(with_variant, "21 days").correct is False


def test_failed_checks__allergen_safety_case__contain_not_contain_cite() -> None:
    golden = case(
        checks={
            "must_contain": ["peanut"],
            "must_not_contain": ["safe to eat"],
            "must_cite": ["allergens.md"],
        }
    )
    assert failed_checks(golden, "It contains Peanut.", ["menus/allergens.md"]) == []
    assert failed_checks(golden, "It contains peanuts; safe to eat", []) == [
        "must contain 'peanut'",
        "must not contain 'safe to eat'",
        "must cite allergens.md",
    ]


def test_score_case__failed_check__wrong_whatever_the_judge_and_reason_names_it() -> None:
    golden = case(checks={"must_contain": ["Charles"]}, expected_answer="the King")
    record = make_record("c1", answer="the King", correct=True)
    outcome = score_case(record, golden, threshold=None)
    assert outcome.correct is False and outcome.failed_checks == ("must contain 'Charles'",)
    passing = score_case(make_record("c1", answer="King Charles", correct=True), golden, threshold=None)
    assert passing.correct is True and passing.failed_checks == ()

    # The report row's reason, as the pull-request comment and `cairn show` give it.
    row = PerCase(
        case_id="c1",
        answerable=True,
        status="answered",
        correct=False,
        support_located=True,
        retrieved_support_rank=1,
        failed_checks=["must contain 'Charles'"],
    )
    setting = Setting(top_k=5, depth=20, threshold=None, judge="lexical")
    assert wrong_reason(row, setting) == "failed check: must contain 'Charles'"


def test_evidence__document_level_support__any_overlapping_chunk_completes() -> None:
    span = ResolvedSupport(doc_path="d.md", start=0, end=1000, any_chunk=True)
    chunks = [Chunk("x", "other.md", 0, 50, ""), Chunk("y", "d.md", 400, 500, "")]
    assert evidence_ranks([span], chunks) == (2, 2)
    quote = ResolvedSupport(doc_path="d.md", start=0, end=1000)
    assert evidence_ranks([quote], chunks) == (None, 2)


def test_passage__section_by_slug_or_text__until_next_heading_of_same_level() -> None:
    text = "# Policy\n\n## Section 4\nRefunds in 30 days.\n### Detail\nx\n## Section 5\nOther.\n"
    start, end = section_span(text, "section-4") or (0, 0)
    assert text[start:end] == "## Section 4\nRefunds in 30 days.\n### Detail\nx\n"
    assert section_span(text, "Section 4") == (start, end)
    assert section_span(text, "section-9") is None
    assert (
        slug("Who is eligible for Sourcegraph\u2019s paid leave?")
        == "who-is-eligible-for-sourcegraphs-paid-leave"
    )


def test_passage__digest__ignores_wrapping_and_emphasis_not_words() -> None:
    a = "Intro.\n\nRefunds within **30 days** of delivery.\nNo fee.\n\nNext."
    b = "Intro.\n\nRefunds within 30 days\nof delivery. No fee.\n\nNext."
    c = "Intro.\n\nRefunds within 30 days of delivery.\nA fee.\n\nNext."
    spans = [passage_span(t, t.index("Refunds"), t.index("Refunds") + 7) for t in (a, b, c)]
    digests = [digest(t[s:e]) for t, (s, e) in zip((a, b, c), spans, strict=True)]
    assert digests[0] == digests[1] != digests[2]


def test_balance__guide_table__claims_by_size() -> None:
    cases = [case(id=f"c{i}", tags=["policy"], difficulty="easy") for i in range(60)]
    claims = size_claims(cases)
    assert claims[0].startswith("supports a paired regression claim: only for large")
    assert claims[2] == "supports a per-tag claim for: policy"
    lines = balance_lines(cases)
    assert any("easy:medium:hard = 10.0:0.0:0.0" in line for line in lines)


def test_passage__curation_section_ids__prefix_then_numbered_second_level() -> None:
    text = "# Refunds policy\n\n## Section 4: Refunds\nWithin 30 days.\n## Exchanges\nSame day.\n"
    start, end = section_span(text, "section-4") or (0, 0)
    assert text[start:end] == "## Section 4: Refunds\nWithin 30 days.\n"  # slug section-4-refunds
    start, end = section_span(text, "section-2") or (0, 0)
    assert text[start:end] == "## Exchanges\nSame day.\n"  # the second `##` heading
    assert section_span(text, "section-3") is None
