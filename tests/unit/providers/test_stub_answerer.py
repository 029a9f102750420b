"""The stub answerer: typed span extraction, citation, confidence, abstention, cache key, zero cost."""

from __future__ import annotations

import pytest

from cairn_action.index.chunks import Chunk
from cairn_action.providers.answer_types import AnswerType, candidates, question_type
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.stub import PROMPT_VERSION, StubAnswerer
from cairn_action.providers.stub.confidence import Analysis, question_terms
from cairn_action.providers.stub.evidence import evidence_units, matches, units_of
from cairn_action.providers.stub.spans import answer_key
from cairn_action.retrieval.base import Hit

RETURNS = (
    "## Short deliveries\n\n"
    "A short delivery is one where a line was not on the van. If you find a shortfall after the driver has "
    "left, report it within 12 hours of delivery. Short deliveries never attract a restocking fee.\n\n"
    "Claims worth more than £1,000 need the approval of the credit controller, Greta Oyelaran."
)
HOURS = (
    "| Channel | Monday to Friday | Saturday |\n"
    "| --- | --- | --- |\n"
    "| Phone | 06:30 to 19:00 | 08:00 to 12:00 |\n"
    "| Email | 07:00 to 18:00 | 08:00 to 16:00 |"
)
HISTORY = (
    "Halcyon Provisions was founded in 1991 by Mary Holt in Framlingham. It opened its third depot in 2009."
)


def hit(rank: int, doc: str, text: str, heading: str = "") -> Hit:
    chunk = Chunk(
        chunk_id=f"{doc}#0-{len(text)}", doc=doc, start=0, end=len(text), text=text, heading=heading
    )
    return Hit(chunk=chunk, rank=rank, score=10.0 / rank)


HITS = (
    hit(1, "returns.md", RETURNS, "Returns Policy"),
    hit(2, "service.md", HOURS, "Customer Service > Opening hours"),
    hit(3, "history.md", HISTORY, "Company history"),
)


def ask(question: str, hits: tuple[Hit, ...] = HITS) -> AnswerResult:
    return StubAnswerer().answer(AnswerRequest(case_id="c", question=question, hits=hits))


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How long do I have to report a shortfall?", AnswerType.DURATION),
        ("How many depots are there?", AnswerType.COUNT),
        ("How much is the fee?", AnswerType.AMOUNT),
        ("What time does the phone line close on Saturday?", AnswerType.TIME),
        ("On what date did the policy change?", AnswerType.DATE),
        ("In what year was Halcyon founded?", AnswerType.YEAR),
        ("Who founded Halcyon?", AnswerType.PERSON),
        ("Can I return chilled goods?", AnswerType.YES_NO),
        ("Why is there a surcharge?", AnswerType.REASON),
        ("We are new. How many days do we have to pay?", AnswerType.DURATION),
    ],
)
def test_question_type__by_question_words(question: str, kind: AnswerType) -> None:
    assert question_type(question) is kind


def test_stub__duration_question__number_with_unit_cited_with_its_sentence() -> None:
    result = ask("How long do I have to report a shortfall once the driver has left?")
    assert result.answer_text == "within 12 hours"
    assert not result.abstained
    assert result.citations[0].chunk_id == HITS[0].chunk.chunk_id
    quote = result.citations[0].quote
    assert quote.startswith("If you find a shortfall") and quote in RETURNS
    assert result.answer_text in quote


def test_stub__who_question__person_name() -> None:
    assert ask("Who is the credit controller who approves large claims?").answer_text == "Greta Oyelaran"


def test_stub__table_row__cell_of_the_column_the_question_names() -> None:
    result = ask("When is the phone line open on Saturday?")
    assert result.answer_text == "08:00 to 12:00"
    assert result.citations[0].quote == "| Phone | 06:30 to 19:00 | 08:00 to 12:00 |"


def test_stub__year_question__year_not_a_date_elsewhere() -> None:
    assert ask("In what year was Halcyon Provisions founded?").answer_text == "1991"


def test_stub__figure_in_the_question__never_the_answer() -> None:
    result = ask("Who must approve claims worth more than £1,000?")
    assert result.answer_text == "Greta Oyelaran"


def test_stub__yes_no_question__abstains_a_verdict_is_not_a_span() -> None:
    result = ask("Do short deliveries attract a restocking fee?")
    assert result.abstained and result.answer_text is None and result.confidence == 0.0


def test_stub__unsupported_question__abstains() -> None:
    result = ask("What sort code should I use for bank transfers to the warehouse in Leeds?")
    assert result.abstained and result.answer_text is None
    assert result.citations == []
    assert 0.0 <= (result.confidence or 0.0) < 1.0


def test_stub__why_question__abstains() -> None:
    assert ask("Why do short deliveries never attract a restocking fee?").abstained


def test_stub__no_hits__abstains_with_zero_confidence() -> None:
    result = ask("How long do I have to report a shortfall?", hits=())
    assert result.abstained and result.confidence == 0.0


def test_stub__confidence_orders_supported_above_weakly_supported() -> None:
    strong = ask("How long do I have to report a shortfall after the driver has left?")
    weak = ask("How long is the van?")
    assert 0.0 <= weak.confidence < strong.confidence <= 1.0


def test_stub__free_offline_and_deterministic() -> None:
    one = ask("How long do I have to report a shortfall?")
    two = ask("How long do I have to report a shortfall?")
    assert one == two
    assert one.cost_usd == 0.0 and one.usage.total == 0
    assert one.confidence_source == "stub-support-score"


def test_stub__identity() -> None:
    stub = StubAnswerer()
    assert (stub.name, stub.model) == ("stub", "stub-extractive-v1")


def test_request_key__stable_and_covers_question_and_chunk_text() -> None:
    stub = StubAnswerer()
    base = AnswerRequest(case_id="c", question="How long?", hits=HITS)
    assert stub.request_key(base) == stub.request_key(
        AnswerRequest(case_id="other", question="How long?", hits=HITS)
    )
    assert len(stub.request_key(base)) == 64
    changed_text = (hit(1, "returns.md", RETURNS.replace("12", "24")), *HITS[1:])
    variants = [
        AnswerRequest(case_id="c", question="How long is it?", hits=HITS),
        AnswerRequest(case_id="c", question="How long?", hits=HITS[:2]),
        AnswerRequest(case_id="c", question="How long?", hits=changed_text),
    ]
    keys = {stub.request_key(v) for v in variants}
    assert len(keys) == 3 and stub.request_key(base) not in keys
    assert StubAnswerer(min_support=0.2).request_key(base) != stub.request_key(base)


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("Frozen goods must probe at -15°C or colder on arrival.", AnswerType.TEMPERATURE, "-15°C or colder"),
        ("The tub holds 2.27 litres and costs £7.50.", AnswerType.COUNT, "2.27 litres"),
        ("Two missed drops within 6 weeks trigger a call.", AnswerType.COUNT, "within 6 weeks"),
        ("Raise a dispute within 10 days of the invoice date.", AnswerType.DURATION, "within 10 days"),
        ("Orders close at 16:30 on Friday.", AnswerType.TIME, "16:30 on Friday"),
        ("The fee is 15% of the invoice value, at least £7.50.", AnswerType.PERCENT, "15%"),
        ("We stopped accepting cheques on 1 April 2026.", AnswerType.DATE, "1 April 2026"),
        ("Complaints go to Bertil Quayle, the Customer Service Manager.", AnswerType.PERSON, "Bertil Quayle"),
        ("Quote HP-DAI-0212 when ordering.", AnswerType.NAME, "HP-DAI-0212"),
    ],
)
def test_candidates__first_span_of_the_asked_type(sentence: str, kind: AnswerType, expected: str) -> None:
    assert candidates(sentence, kind)[0].text == expected


def test_stub__how_many_x__prefers_the_figure_followed_by_x() -> None:
    hits = (hit(1, "a.md", "Open credit accounts get 3 credit checks and need 2 trade references."),)
    assert ask("How many trade references do I need to open a credit account?", hits).answer_text == "2"


# --- The confidence: each factor on small synthetic evidence -------------------------------------------


def hits_of(*texts: str) -> tuple[Hit, ...]:
    """One chunk per text, ranked in order, each from its own document."""
    return tuple(hit(i, f"doc{i}.md", text) for i, text in enumerate(texts, start=1))


def analysed(question: str, *texts: str) -> Analysis:
    analysis = StubAnswerer().analyse(AnswerRequest(case_id="c", question=question, hits=hits_of(*texts)))
    assert isinstance(analysis, Analysis), analysis
    return analysis


PORTAL = (
    "## Trade Portal\n\nThe Trade Portal keeps your saved baskets for six months after your last order. "
    "Portal passwords expire every 90 days."
)


def test_stub__question_focus_absent__low_confidence() -> None:
    about_cookies = analysed("How long do the Trade Portal's cookies last?", PORTAL)
    about_baskets = analysed("How long does the Trade Portal keep saved baskets?", PORTAL)
    assert about_cookies.best.answer == about_baskets.best.answer == "six months"
    assert about_cookies.factors["focus"] < 1.0 == about_baskets.factors["focus"]
    assert about_cookies.confidence < 0.5 * about_baskets.confidence


def test_stub__rare_question_word_missing__support_below_plain_coverage() -> None:
    analysis = analysed("How long does the Trade Portal keep saved baskets on a Sunday?", PORTAL)
    assert analysis.factors["support"] < analysis.best.coverage


def test_stub__two_sentences_give_different_figures__lower_confidence() -> None:
    chilled = "Claims about goods delivered warm must be made within 4 hours of delivery."
    frozen = "Claims about goods delivered thawed must be made within 10 hours of delivery."
    question = "How long do I have to make a claim after delivery?"
    alone = analysed(question, chilled)
    contested = analysed(question, chilled, frozen)
    assert contested.factors["uniqueness"] < 0.7 < alone.factors["uniqueness"]
    assert contested.confidence < alone.confidence


def test_stub__two_figures_in_the_answer_sentence__lower_confidence() -> None:
    question = "How many days of life does mince have on delivery?"
    one = analysed(question, "Mince is delivered with at least 4 days of life.")
    two = analysed(question, "Fresh meat has at least 6 days of life on delivery, and mince at least 4 days.")
    assert two.factors["uniqueness"] < one.factors["uniqueness"]


def test_stub__table_row_repeats_the_sentence__corroborates() -> None:
    question = "What is the reporting window for a short delivery?"
    sentence = "Report a short delivery within 12 hours of delivery."
    agreeing = "| Case | Window |\n| --- | --- |\n| Short delivery | 12 hours |"
    differing = "| Case | Window |\n| --- | --- |\n| Short delivery | 48 hours |"
    assert (
        analysed(question, sentence, agreeing).factors["uniqueness"]
        > analysed(question, sentence, differing).factors["uniqueness"]
    )


def test_stub__answer_most_of_the_evidence_gives__wins_over_a_slightly_better_unit() -> None:
    question = "What time is the next-day cut-off for most customers?"
    hits = hits_of(
        "The next-day cut-off for large orders from most customers is 13:00.",
        "For most customers the next-day cut-off is 16:30.",
        "| Customers | Next-day cut-off |\n| --- | --- |\n| Most customers | 16:30 |",
    )
    assert (
        StubAnswerer().answer(AnswerRequest(case_id="c", question=question, hits=hits)).answer_text == "16:30"
    )


def test_stub__answer_in_the_next_sentence__competes_but_never_answers() -> None:
    text = (
        "A temperature claim on chilled goods after signing must be made within 4 hours of delivery. "
        "For frozen stock the window is 10 hours."
    )
    question = "After signing for chilled goods, how long do I have to make a temperature claim?"
    analysis = analysed(question, text)
    assert analysis.best.answer == "within 4 hours"
    assert (
        analysis.factors["uniqueness"] < analysed(question, text.split(". ")[0] + ".").factors["uniqueness"]
    )


def test_stub__best_sentence_has_no_figure__next_best_with_one_answers_at_lower_confidence() -> None:
    question = "How many trade references do I need to open a credit account quickly?"
    hits = hits_of(
        "A cash account is quicker to open because it does not need trade references or a credit check.",
        "Credit accounts need 2 trade references from your suppliers.",
    )
    analysis = StubAnswerer().analyse(AnswerRequest(case_id="c", question=question, hits=hits))
    assert isinstance(analysis, Analysis)
    assert analysis.best.answer == "2" and analysis.factors["lead"] < 1.0
    assert StubAnswerer().answer(AnswerRequest(case_id="c", question=question, hits=hits)).answer_text == "2"


def test_stub__question_words_lead_up_to_the_answer__the_later_date_after_the_verb() -> None:
    text = (
        "School accounts are billed each term. School accounts order through the portal. "
        "School accounts are paused from Monday 27 July 2026 and restart on Wednesday 2 September 2026."
    )
    assert analysed("When do school accounts restart?", text).best.answer == "Wednesday 2 September 2026"


def test_stub__evidence_denies_the_premise__low_confidence() -> None:
    question = "Since when has the light mayonnaise contained mustard?"
    denied = analysed(question, "The light mayonnaise has been mustard-free since 10 January 2026.")
    stated = analysed(question, "The light mayonnaise has contained mustard since 10 January 2026.")
    assert denied.factors["premise"] < 1.0 == stated.factors["premise"]
    assert denied.confidence < 0.5 * stated.confidence


def test_stub__negated_limit__states_the_limit_not_a_denial() -> None:
    text = "We never roster a driver for more than 12 hours on duty in a single day."
    analysis = analysed("What is the maximum time on duty a driver is rostered for in a day?", text)
    assert analysis.best.answer == "more than 12 hours" and analysis.factors["premise"] == 1.0


def test_stub__question_year_differs_from_the_evidence__low_confidence() -> None:
    text = "In 2025 we donated 89 tonnes of surplus food to community larders."
    other = analysed("How many tonnes of surplus food were donated in 2024?", text)
    same = analysed("How many tonnes of surplus food were donated in 2025?", text)
    assert other.factors["scope"] < 1.0 == same.factors["scope"]
    assert other.confidence < same.confidence


def test_stub__year_only_in_the_heading_of_an_undated_calendar__other_year() -> None:
    calendar = hit(
        1, "cal.md", "- Framlingham depot: closed for stock-take on Saturday 4 July", "Calendar 2026"
    )
    request = AnswerRequest(
        case_id="c", question="When is the Framlingham stock-take in 2027?", hits=(calendar,)
    )
    analysis = StubAnswerer().analyse(request)
    assert isinstance(analysis, Analysis) and analysis.factors["scope"] < 1.0


def test_stub__table_says_there_is_none__abstains() -> None:
    table = (
        "| Case | Report within | Restocking fee |\n| --- | --- | --- |\n"
        "| Short delivery | 12 hours | No |\n| Unopened goods | 21 days | 15% |"
    )
    question = "How much is the restocking fee on a short delivery?"
    assert analysed(question, table).best.answer == "No"  # not the other row's fee
    assert ask(question, hits=hits_of(table)).abstained


def test_stub__how_many_x_from_a_table_without_x__only_a_guess() -> None:
    table = "| Code | Product | Pack |\n| --- | --- | --- |\n| HP-1 | Greek-Style Yoghurt | 6 x 1 kg |"
    assert analysed("How many calories does the Greek-Style Yoghurt have?", table).factors["type"] == 0.75


def test_stub__lower_retrieval_rank__lower_confidence() -> None:
    text = "Report a shortfall within 12 hours of delivery."
    first = StubAnswerer().answer(
        AnswerRequest("c", "How long do I have to report a shortfall?", (hit(1, "a.md", text),))
    )
    third = StubAnswerer().answer(
        AnswerRequest("c", "How long do I have to report a shortfall?", (hit(3, "a.md", text),))
    )
    assert third.answer_text == first.answer_text and third.confidence < first.confidence


def test_stub__words_that_only_ask__carry_no_weight() -> None:
    assert {"onc", "after", "not"}.isdisjoint(
        question_terms("Once approved, and not after, how soon is it raised?")
    )


def test_stub__untyped_question__any_figure_only_plausible() -> None:
    analysis = analysed(
        "Where is the line for accepting frozen goods?", "Frozen goods are accepted at -15°C or colder."
    )
    assert analysis.best.answer == "-15°C or colder" and analysis.factors["type"] == 0.75


def test_stub__when_question__a_date_fits_surely_a_duration_only_weakly() -> None:
    dated = analysed("When does the depot reopen?", "The depot reopens on 2 September 2026.")
    timed = analysed("When does the depot reopen?", "The depot reopens after about two weeks.")
    assert dated.factors["type"] == 1.0 and timed.factors["type"] == 0.75


def test_stub__measure_question__figure_with_its_unit() -> None:
    text = "Vegan Mayonnaise (HP-DRY-0213) is egg-free and comes in a smaller 2.27 litre tub."
    assert (
        ask("What size tub does the vegan mayonnaise come in?", hits=hits_of(text)).answer_text
        == "2.27 litre"
    )


def test_stub__identifier_question__the_phone_number_the_question_leads_to() -> None:
    text = "On weekdays ring 01938 891772. At any other time, ring the duty officer on 07700 900296."
    result = ask("What number do I ring the duty officer on at any other time?", hits=hits_of(text))
    assert result.answer_text == "07700 900296"


# --- Evidence units, matching and answer identity ------------------------------------------------------


def test_matches__stem_variants_share_a_long_prefix() -> None:
    assert matches("deliv", frozenset({"deliveri"})) and matches("complaint", frozenset({"complain"}))
    assert not matches("cat", frozenset({"catalogu"}))


def test_matches__sets_large_enough_for_the_prefix_index__same_as_trying_every_token() -> None:
    import random

    def tried(token: str, tokens: frozenset[str]) -> bool:  # the definition, one token at a time
        return token in tokens or (
            len(token) >= 5
            and token.isalpha()
            and any(len(t) >= 5 and (t.startswith(token) or token.startswith(t)) for t in tokens)
        )

    rng = random.Random(5)
    stems = ["deliv", "deliveri", "delivered", "complain", "complaint", "refund", "refunds", "day", "12"]
    stems += ["x12ab", "hp-dai-0142", "catalogu", "cat", "manag", "manager", "16:30", "policy", "polic"]
    found = 0
    for _ in range(500):
        tokens = frozenset(rng.sample(stems, rng.randint(9, len(stems))))  # above the loop's limit of 8
        for token in [*stems, "deliveries", "complaints", "managerial", "poli"]:
            assert matches(token, tokens) == tried(token, tokens), (token, tokens)
            found += tried(token, tokens) and token not in tokens
    assert found  # prefix matches were among the cases


def test_proposals__another_support__only_coverage_and_score_change() -> None:
    from dataclasses import replace

    from cairn_action.providers.stub.evidence import term_weights
    from cairn_action.providers.stub.spans import proposals

    units = evidence_units([(h.rank, h.chunk) for h in HITS])
    for question, kind in [
        ("How long do I have to report a shortfall?", AnswerType.DURATION),
        ("What time does the phone line close on Saturday?", AnswerType.TIME),
        ("Who founded Halcyon?", AnswerType.PERSON),
        ("What is a short delivery?", AnswerType.PHRASE),
    ]:
        weights = term_weights(question_terms(question), units)
        asked = f" {question.lower()} "
        for unit in units:
            low = proposals(unit, 0.2, kind, weights, asked, set(), 0.15)
            high = proposals(unit, 0.7, kind, weights, asked, set(), 0.15)
            assert [replace(p, coverage=0.7, score=0.7 + 0.15 * p.fit) for p in low] == high


def test_term_weights_and_coverage__given_the_units_holdings__the_same_floats_as_without() -> None:
    from cairn_action.providers.stub.evidence import coverage, holdings, term_weights

    units = evidence_units([(h.rank, h.chunk) for h in HITS])
    for question in [
        "How long do I have to report a shortfall?",
        "What time does the phone line close on Saturday?",
        "Who founded Halcyon?",
        "What is a short delivery of chilled goods?",
    ]:
        terms = question_terms(question)
        held = [holdings(sorted(set(terms)), unit) for unit in units]
        weights = term_weights(terms, units)
        assert term_weights(terms, units, held) == weights
        covs = [coverage(weights, unit) for unit in units]
        assert [coverage(weights, u, h) for u, h in zip(units, held, strict=True)] == covs
        assert 0.0 < max(covs) and len(set(covs)) > 1  # the units differ: the check can see a change


def test_units_of__chunk_cut_before_at_another_rank__the_same_units_at_the_new_rank() -> None:
    from cairn_action.providers.stub import evidence

    chunk = HITS[1].chunk  # a table: rows with cells, header and context
    first = units_of(1, chunk)
    again = units_of(4, chunk)
    evidence._CHUNK_UNITS.clear()
    fresh = units_of(4, chunk)
    assert [u.rank for u in first] == [1] * len(first) and again == fresh
    for kept, new in zip(again, fresh, strict=True):
        assert (kept.words, kept.tokens, kept.context_tokens) == (new.words, new.tokens, new.context_tokens)
        assert kept.tokens and kept.context_tokens


def test_evidence_units__sentence_in_two_overlapping_chunks__one_unit_at_the_better_rank() -> None:
    text = "First sentence here. Report it within 12 hours. Last sentence here."
    early = Chunk(chunk_id="a.md#0-47", doc="a.md", start=0, end=47, text=text[:47])
    late = Chunk(chunk_id="a.md#21-67", doc="a.md", start=21, end=67, text=text[21:])
    units = evidence_units([(2, late), (1, early)])
    assert [u.text for u in units].count("Report it within 12 hours.") == 1
    assert next(u.rank for u in units if u.text == "Report it within 12 hours.") == 1


def test_units_of__heading_inside_the_chunk__keeps_the_document_title() -> None:
    text = "## How it started\n\nThe business was founded in 1991."
    chunk = Chunk(
        chunk_id="h.md#0-1", doc="h.md", start=0, end=len(text), text=text, heading="Our Story > Intro"
    )
    assert units_of(1, chunk)[0].context == "Our Story > How it started"


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("within 12 hours", "12 hours of delivery", True),
        ("16:30", "16:30 the previous working day", True),
        ("12 hours", "12 months", False),
        ("within Greta's team", "Greta's team", True),
    ],
)
def test_answer_key__same_figure_and_unit__same_answer(one: str, other: str, same: bool) -> None:
    assert (answer_key(one) == answer_key(other)) is same


def test_request_key__prompt_version_bumped_with_the_new_confidence() -> None:
    assert PROMPT_VERSION == "stub-extractive-2"


def test_matched_by__any_tokens__the_question_tokens_matches_finds_for_each() -> None:
    import random

    from cairn_action.providers.stub.evidence import matched_by, matches

    rng = random.Random(3)
    stems = ["deliv", "deliveri", "complain", "complaint", "refund", "refunds", "day", "days", "12", "x12ab"]
    for _ in range(300):
        question = rng.sample(stems, rng.randint(1, 5))
        tokens = frozenset(rng.sample(stems, rng.randint(0, 6)))
        expected = {x: tuple(q for q in question if matches(q, frozenset((x,)))) for x in tokens}
        assert matched_by(question, tokens) == {x: hits for x, hits in expected.items() if hits}
        for q in question:  # a set matches exactly when one of its tokens does
            assert matches(q, tokens) == any(q in hits for hits in matched_by(question, tokens).values())
