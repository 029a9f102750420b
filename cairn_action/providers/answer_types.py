"""What kind of answer a question asks for, and the spans of a sentence that could be that answer.

The stub answerer's extraction rules, kept apart from its sentence selection. Everything is regular
expressions over English business text: figures with their units, money, percentages, clock times,
dates, durations, product codes, capitalised names. No knowledge of any particular corpus.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import cache


class AnswerType(Enum):
    YES_NO = "yes_no"
    DURATION = "duration"
    COUNT = "count"
    AMOUNT = "amount"  # money or a percentage
    PERCENT = "percent"
    TIME = "time"
    DATE = "date"
    WHEN = "when"  # a date, else a time, else a duration
    PERSON = "person"
    NAME = "name"
    YEAR = "year"
    TEMPERATURE = "temperature"
    MEASURE = "measure"  # a size, weight or volume: a figure with its unit
    IDENTIFIER = "identifier"  # a phone, account or registration number, a code
    PHRASE = "phrase"  # anything salient: a figure if the sentence has one, else a short phrase
    REASON = "reason"  # why / explain: no short span answers it, so the stub declines


@dataclass(frozen=True)
class Span:
    """A candidate answer: `text[start:end]` of the sentence it was found in."""

    start: int
    end: int
    text: str
    kind: str


_AUX = r"(?:can|could|do|does|did|is|are|was|were|will|would|should|shall|may|must|has|have|had|am)"
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_WEEKDAY = r"(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)"
_NUMBER_WORDS = tuple(
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty".split()
)
_NUMBER_WORD = f"(?:{'|'.join(_NUMBER_WORDS)})"
_QUALIFIERS = (
    "at least|at most|up to|within|more than|less than|fewer than|no more than|no later than|"
    "over|under|after|before|about|around|only|every|each"
).split("|")
_QUALIFIER = rf"(?:(?:{'|'.join(_QUALIFIERS)})\s+)?"


def _letters(words: tuple[str, ...] | list[str], at: int) -> str:
    """The character class of the words' letters at position `at` (patterns that use it ignore case)."""
    return f"[{''.join(sorted({w[at] for w in words}))}]"


# Where a match can start. A pattern that opens with the optional `_QUALIFIER` is otherwise tried at every
# position of the sentence, entering each qualifier there (their literals ignore case, so the regex engine
# cannot pass over a letter that starts none of them): a lookahead that holds at the start of every match
# (a qualifier's first two letters, or what may follow the qualifier) lets it pass over the rest at once.
# It only rejects positions where the pattern cannot match, so the matches are the same
# (`test_starts__sample_corpus_and_edge_cases__same_matches_as_without_them`).
_QUALIFIER_START = _letters(_QUALIFIERS, 0) + _letters(_QUALIFIERS, 1)
_WORDS = (*_QUALIFIERS, *_NUMBER_WORDS)
_STARTS: dict[str, str] = {
    # A figure and the space or hyphen before its unit, or a qualifier or number word.
    "duration": rf"(?=\d[\d.\s-]|{_letters(_WORDS, 0)}{_letters(_WORDS, 1)})",
    "money": rf"(?=[£$€]|{_QUALIFIER_START})",
    "percent": rf"(?=\d|{_QUALIFIER_START})",
    "measure": rf"(?=\d|{_QUALIFIER_START})",
    "number": rf"(?=\d|{_QUALIFIER_START})",
    "temperature": rf"(?=[-\u2212\d]|{_QUALIFIER_START})",
    "time": r"(?=[\dmn])",  # a clock figure, midday, midnight, noon (after the pattern's leading \b)
    "date": r"(?=[\dADFJMNOSTW])",  # a figure, a weekday or a month (case sensitive)
}
_TIME_UNIT = (
    r"(?:(?:working|business|calendar|clear|full)\s+)?(?:minutes?|hours?|days?|weeks?|months?|years?)"
)

_MEASURE = r"(?:kg|g|mg|litres?|liters?|l|ml|cl|cm|mm|km|tonnes?|lb|oz|miles?)"
_CAPITALISED = r"[A-Z][a-z'\u2019]+"
_MERIDIEM = r"(?:[ap]m\b|[ap]\.m\.)"
# "16:30", "4.30 pm"; a dotted figure without am/pm only when it reads as a 24-hour time and is not a
# quantity ("2.27 litre", "12.25%").
_CLOCK = (
    rf"(?:\d{{1,2}}:\d{{2}}(?:\s?{_MERIDIEM})?|\d{{1,2}}\.\d{{2}}\s?{_MERIDIEM}"
    rf"|(?:[01]\d|2[0-3])\.[0-5]\d(?![\d%°])(?!\s?(?:per\b|{_MEASURE}\b)))"
)
_DAY = (
    rf"(?:{_WEEKDAY},?\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:\s+\d{{4}})?"
    rf"|{_WEEKDAY}(?:\s+\d{{1,2}}(?:st|nd|rd|th)?(?:\s+{_MONTH})?)?"
)

# Compiled on first use, not at import (see `_pattern`).
_PATTERNS: dict[str, Callable[[], re.Pattern[str]]] = {
    "money": lambda: re.compile(
        _STARTS["money"]
        + _QUALIFIER
        + r"[£$€]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|m|bn|k)\b)?"
        + r"(?:\s+(?:a|per)\s+(?:month|year|week|case|delivery))?",
        re.IGNORECASE,
    ),
    "percent": lambda: re.compile(
        _STARTS["percent"] + _QUALIFIER + r"\d+(?:\.\d+)?\s?(?:%|per\s?cent\b)", re.IGNORECASE
    ),
    # A clock time, or a range of them, with the day it falls on when the sentence names one.
    "time": lambda: re.compile(
        r"\b" + _STARTS["time"] + rf"(?:{_CLOCK}(?:\s?(?:to|-|\u2013|until)\s?{_CLOCK})?"
        rf"|\d{{1,2}}\s?{_MERIDIEM}|midday|midnight|noon)"
        rf"(?:\s+on\s+(?:{_DAY}|(?-i:{_CAPITALISED}\s+{_CAPITALISED})\b))?",
        re.IGNORECASE,
    ),
    "date": lambda: re.compile(
        _STARTS["date"] + rf"(?:(?:{_WEEKDAY},?\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}(?:\s+\d{{4}})?"
        rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|{_MONTH}\s+\d{{4}})"
    ),
    "year": lambda: re.compile(r"\b(?:19|20)\d{2}\b"),
    "weekday": lambda: re.compile(rf"\b{_WEEKDAY}s?\b"),
    "duration": lambda: re.compile(
        _STARTS["duration"] + _QUALIFIER + rf"(?:\d+(?:\.\d+)?|{_NUMBER_WORD})(?:\s|-){_TIME_UNIT}\b",
        re.IGNORECASE,
    ),
    "measure": lambda: re.compile(
        _STARTS["measure"]
        + _QUALIFIER
        + rf"(?<![\w.])\d[\d,]*(?:\.\d+)?(?:\s?x\s?\d[\d,]*(?:\.\d+)?)?\s?{_MEASURE}\b",
        re.IGNORECASE,
    ),
    "phone": lambda: re.compile(r"(?<![\w£$€.,])(?:\+44\s?|0)\d{2,4}(?:[\s-]?\d{3,4}){1,2}\b"),
    "code": lambda: re.compile(r"\b[A-Z]{2,}(?:-[A-Z0-9]+)+\b"),
    "temperature": lambda: re.compile(
        _STARTS["temperature"]
        + _QUALIFIER
        + r"[-\u2212]?\d+(?:\.\d+)?\s?°\s?[CF]\b"
        + r"(?:\s+or\s+(?:colder|warmer|below|above|less|more))?",
        re.IGNORECASE,
    ),
    # A bare figure, with its unit of measure if it has one; not a figure that starts a duration, nor a
    # year ("in 2025" counts nothing).
    "number": lambda: re.compile(
        _STARTS["number"]
        + _QUALIFIER
        + r"(?<![\w:.\-\u2212])(?!(?:19|20)\d\d\b)\d[\d,]*(?:\.\d+)?(?![\w:%°])"
        rf"(?!\s+{_TIME_UNIT}\b)(?:\s?{_MEASURE}\b)?",
        re.IGNORECASE,
    ),
    "name": lambda: re.compile(
        rf"\b{_CAPITALISED}(?:[ -](?:{_CAPITALISED}|of|and|de|van))*[ -]{_CAPITALISED}\b"
    ),
    "proper": lambda: re.compile(r"\b[A-Z][A-Za-z'\u2019]+(?:\s+[A-Z][A-Za-z'\u2019]+)*\b"),
}


@cache
def _pattern(kind: str) -> re.Pattern[str]:
    """The compiled pattern of a kind. Compiling all of them took ~50 ms of every start of `cairn`, including
    the warm runs whose answers all come from the cache and never look for a span."""
    return _PATTERNS[kind]()


# What every match of a kind holds, so that a sentence without it need not be searched for the kind: a
# pattern with a leading `_QUALIFIER` is tried at every position of the sentence, the hint only finds
# itself (and is compiled with the pattern's flags, so it means the same letters). The name kinds
# ("weekday", "code", "name", "proper") have none.
_HINTS: dict[str, tuple[str, int]] = {
    "money": (r"[£$€]", 0),
    "percent": (r"%|cent", re.IGNORECASE),  # "%" or "per cent"
    "temperature": (r"°", 0),
    "duration": (r"minute|hour|day|week|month|year", re.IGNORECASE),  # its `_TIME_UNIT`: "two weeks"
    "time": (r"\d|midday|midnight|noon", re.IGNORECASE),
    **{kind: (r"\d", 0) for kind in ("date", "year", "measure", "phone", "number")},
}


@cache
def _hint(kind: str) -> re.Pattern[str] | None:
    hint = _HINTS.get(kind)
    return re.compile(*hint) if hint else None


# Kinds searched for each answer type, best first.
KINDS: dict[AnswerType, tuple[str, ...]] = {
    AnswerType.DURATION: ("duration", "time", "date"),
    AnswerType.COUNT: ("number", "duration"),
    AnswerType.AMOUNT: ("money", "percent"),
    AnswerType.PERCENT: ("percent",),
    AnswerType.TIME: ("time",),
    AnswerType.DATE: ("date", "year", "weekday"),
    AnswerType.YEAR: ("year",),
    AnswerType.TEMPERATURE: ("temperature",),
    AnswerType.MEASURE: ("measure",),
    AnswerType.IDENTIFIER: ("phone", "code"),
    AnswerType.WHEN: ("date", "time", "duration", "weekday", "year"),
    AnswerType.PERSON: ("name",),
    AnswerType.NAME: ("code", "name", "proper"),
    AnswerType.PHRASE: ("money", "percent", "temperature", "duration", "date", "time", "code", "number"),
    AnswerType.YES_NO: (),
    AnswerType.REASON: (),
}
# Types whose kinds are ranked: the best kind present wins, then the span nearest the question's words.
RANKED_KINDS = frozenset({AnswerType.WHEN, AnswerType.DATE, AnswerType.DURATION, AnswerType.NAME})

# Words that start a capitalised run but are not names (sentence starts, titles of roles and things).
_NOT_NAMES = frozenset(
    """
    The A An This That These Those Our Your We You It If When Where Which Who What How Each Every All Any
    Please Orders Order Customer Customers Service Manager Director Controller Officer Team Office
    Department Policy Ltd Limited Plc Company Account Accounts Portal Document Guide Stage Phone Email
    """.split()
)

_QUESTION_RULES: tuple[tuple[str, AnswerType], ...] = (
    (r"^\s*why\b|\bexplain\b|\bwhat is the reason\b", AnswerType.REASON),
    (r"\b(?:what|which|in what|in which) year\b", AnswerType.YEAR),
    (r"\bhow (?:cold|warm|hot)\b|\bwhat temperature\b|\bdegrees\b", AnswerType.TEMPERATURE),
    (
        r"\bwhat percent(?:age)?\b|\bwhat (?:\w+\s)?(?:rate|discount|surcharge|percentage)\b",
        AnswerType.PERCENT,
    ),
    (r"\bhow many (?:\w+\s)?(?:minutes|hours|days|weeks|months|years)\b", AnswerType.DURATION),
    (
        r"\bhow (?:long|soon|quickly|fast|late|early|far in advance|far ahead)\b|\bhow much time\b"
        r"|\bby when\b",
        AnswerType.DURATION,
    ),
    (r"\bdeadline\b|\bwindow\b|\bpayment terms\b|\bnotice\b", AnswerType.DURATION),
    (
        r"\b(?:what|which) (?:phone |telephone )?number\b|\bnumber (?:do|should|can|must) (?:i|we)\b"
        r"|\b(?:phone|telephone|mobile|fax|registration|account|reference|vat|company) (?:number|code)\b"
        r"|\bsort code\b",
        AnswerType.IDENTIFIER,
    ),
    (r"\bhow many\b|\bwhat quantity\b", AnswerType.COUNT),
    (
        r"\bwhat (?:size|weight|volume|capacity)\b|\bhow (?:big|heavy|large)\b|\bweigh\b",
        AnswerType.MEASURE,
    ),
    (
        r"\bhow much\b"
        r"|\b(?:price|cost|(?:sur)?charge|fee|spend|value|limit|balance|amount|deposit|pay)\b",
        AnswerType.AMOUNT,
    ),
    (r"\bwhat time\b|\b(?:cut-?off|open|close|closes|opens)\b", AnswerType.TIME),
    (r"\bwhat (?:date|day)\b|\bwhich (?:date|day)\b|\bsince when\b", AnswerType.DATE),
    (r"^\s*when\b|\bwhen (?:is|was|does|did|do|will|can|must|should)\b", AnswerType.WHEN),
    (r"\bwho(?:m|se)?\b", AnswerType.PERSON),
    (r"\bwhich\b|\bwhat is the name\b|\bwhat (?:\w+\s)?(?:code|sku|name)\b", AnswerType.NAME),
)


@cache
def _question_rules() -> tuple[tuple[re.Pattern[str], AnswerType], ...]:
    """`_QUESTION_RULES` compiled, on first use (not at import, as `_pattern`)."""
    return tuple((re.compile(pattern, re.IGNORECASE), kind) for pattern, kind in _QUESTION_RULES)


_NOT_YES_NO = (
    AnswerType.DURATION,
    AnswerType.COUNT,
    AnswerType.REASON,
)  # "is there...how many" asks a figure
_YES_NO = re.compile(rf"^\s*(?:{_AUX}|is there|are there)\b", re.IGNORECASE)
_WH_TAIL = re.compile(
    r",\s*(?:and|or|but)?\s*(?:if (?:not|so),?\s*)?(?=(?:what|which|when|who|whom|whose|how|where|since)\b)",
    re.IGNORECASE,
)


def question_type(question: str) -> AnswerType:
    """The answer type a question asks for (first matching rule of the last clause that asks)."""
    clauses = [c for c in re.split(r"(?<=[.?!:])\s+", question.strip()) if c]
    asking = next((c for c in reversed(clauses) if c.rstrip().endswith("?")), clauses[-1] if clauses else "")
    # "Is it rejected, and which code...?": the wh-question after a yes/no one asks for the span.
    tail = _WH_TAIL.search(asking) if _YES_NO.match(asking) else None
    asking = asking[tail.end() :] if tail else asking
    for pattern, kind in _question_rules():
        if pattern.search(asking):
            if _YES_NO.match(asking) and kind not in _NOT_YES_NO:
                return AnswerType.YES_NO
            return kind
    return AnswerType.YES_NO if _YES_NO.match(asking) else AnswerType.PHRASE


_MATCHES: dict[tuple[str, str], tuple[tuple[int, int, str], ...]] = {}
_MATCHES_LIMIT = 50_000


def _matches(kind: str, sentence: str) -> tuple[tuple[int, int, str], ...]:
    """Start, end and stripped text of each match of a kind's pattern in `sentence`, kept per sentence:
    the same retrieved sentence is searched again for every question it is retrieved for, and most
    patterns are tried at every position (about 50 us a sentence each)."""
    found = _MATCHES.get((kind, sentence))
    if found is None:
        if len(_MATCHES) >= _MATCHES_LIMIT:
            _MATCHES.clear()
        hint = _hint(kind)
        if hint is not None and hint.search(sentence) is None:
            found = ()  # a match would hold the hint (`_HINTS`): no need to try every position
        else:
            found = tuple((m.start(), m.end(), m.group().strip()) for m in _pattern(kind).finditer(sentence))
        _MATCHES[kind, sentence] = found
    return found


def candidates(sentence: str, answer_type: AnswerType) -> list[Span]:
    """Spans of `sentence` that could answer a question of `answer_type`, in order of the type's kinds."""
    found: list[Span] = []
    taken: list[tuple[int, int]] = []
    for kind in KINDS[answer_type]:
        for start, end, text in _matches(kind, sentence):
            if kind == "name" and text.split()[0] in _NOT_NAMES:
                words = text.split()
                while words and words[0] in _NOT_NAMES:
                    start = sentence.index(words[1], start) if len(words) > 1 else end
                    words = words[1:]
                if len(words) < 2:
                    continue
                text = " ".join(words)
            if kind == "proper" and (start == 0 or text in _NOT_NAMES):
                continue
            if any(start < t_end and end > t_start for t_start, t_end in taken):
                continue  # a span already claimed by a better kind ("3 working days" is not a number)
            taken.append((start, end))
            found.append(Span(start, end, text, kind))
    return found


_ASKING_PHRASE = re.compile(
    r"\b(?:(?:in|on|at)\s+)?(?:what|which)\s+(?:year|time|date|day)\b|\bsince when\b", re.IGNORECASE
)


def content_question(question: str) -> str:
    """The question without the phrase that only names the answer's type ("in what year", "what time")."""
    return _ASKING_PHRASE.sub(" ", question)


_COUNTED = re.compile(r"\bhow many\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.IGNORECASE)


def counted_noun(question: str) -> str:
    """The words after "how many" (what is being counted), or ""."""
    match = _COUNTED.search(question)
    return match.group(1) if match else ""
