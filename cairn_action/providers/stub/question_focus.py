"""The focus of a question: the noun phrase it asks about ("Trade Portal's cookies" in "How long do the
Trade Portal's cookies last?", "calories" in "How many calories are there per 100 g...?").

A shallow reading of English questions, no parser: the phrase right after the wh-word ("what restocking
fee", "how many trade references"), after "what is the" ("what is the hourly pay rate for"), or the
subject after the auxiliary of a "how long / when" question ("how long do the Trade Portal's cookies
last"). The phrase ends at a function word, a participle or a new capitalised name, at four words; when
it runs to the end of the question its last word is the verb and is dropped. Words that only name the
answer's type ("what percentage of calls", "how many tonnes of food") leave the phrase, handing the focus
to the "of" complement when nothing else is left. Questions about people ("who...") and phrases made
only of pronouns have no focus. The phrase may keep a verb the reading could not tell from a noun
("school lock"): the stub asks the evidence for all of its words, and a sentence that answers the
question usually has the verb too.
"""

from __future__ import annotations

import re

# Words that end a noun phrase: auxiliaries and common verbs, prepositions, pronouns, determiners,
# conjunctions and relative words.
_STOP = frozenset(
    """
    a an the this that these those my our your their its his her some any each every all no
    i we you they it he she me us them who whom whose which what when where why how whether if
    is are was were be been being am do does did done has have had can could will would shall should
    may might must get gets got need needs take takes make makes go goes come comes give gives keep
    now of for to in on at by with from into onto about after before until during than as per via over under
    and or but so then also only just still ever not never there here
    """.split()
)
# Head words that only say what kind of answer is wanted.
_TYPE_WORDS = frozenset(
    """
    minute minutes hour hours day days week weeks month months year years time times date dates
    number numbers percentage percent proportion share size weight amount cost price deadline
    temperature degrees figure value tonne tonnes kilo kilos kg litre litres
    """.split()
)
_WORD = re.compile(r"[A-Za-z][\w'\u2019-]*")
_OPENERS = (
    re.compile(r"\bhow (?:many|much)\s+(.*)", re.IGNORECASE),
    re.compile(r"\b(?:what|which)\s+(?:is|are|was|were)\s+(?:the\s+|a\s+|an\s+)?(.*)", re.IGNORECASE),
    re.compile(r"\bwhat['\u2019]s\s+(?:the\s+|a\s+|an\s+)?(.*)", re.IGNORECASE),
    re.compile(r"\b(?:what|which)\s+(?!is\b|are\b|was\b|were\b)(.*)", re.IGNORECASE),
    re.compile(
        r"\b(?:how (?:long|often|soon|quickly|fast|late|early|far)|when)\s+"
        r"(?:do|does|did|is|are|was|were|can|could|will|would|should|must|may)\s+(.*)",
        re.IGNORECASE,
    ),
)

_VERB_LAST = (_OPENERS[3], _OPENERS[4])


def _phrase(text: str) -> tuple[list[str], str]:
    """The noun phrase at the start of `text`, and the text after it."""
    words: list[str] = []
    pos = 0
    for match in _WORD.finditer(text):
        if text[pos : match.start()].strip(" "):  # punctuation between words ends the phrase
            break
        word = match.group()
        lower = word.lower()
        if lower in _STOP and not (lower in {"a", "an", "the"} and not words):
            break
        capitalised = word[0].isupper() and not word.isupper()
        if words and (lower.endswith("ed") or (capitalised and words[-1][0].islower())):
            break  # a participle ("racking checked") or a new name starts the rest of the question
        if lower not in {"a", "an", "the"}:
            words.append(word)
        pos = match.end()
        if len(words) == 4:
            break
    return words, text[pos:]


def focus_phrase(question: str) -> str:
    """The words the question is about, or "" when it has no focus (see the module docstring)."""
    asking = question.strip().rsplit(":", 1)[-1]
    if re.match(r"\s*who", asking, re.IGNORECASE):
        return ""
    for opener in _OPENERS:
        match = opener.search(asking)
        if not match:
            continue
        words, rest = _phrase(match.group(1))
        if opener in _VERB_LAST and len(words) > 1 and not rest.strip(" ?.!"):
            words = words[:-1]  # "how long do the cookies last?": the last word is the verb
        kept = [w for w in words if w.lower() not in _TYPE_WORDS]
        if not kept and words:
            tail = re.match(r"\s*of\s+(.*)", rest, re.IGNORECASE)
            kept = _phrase(tail.group(1))[0] if tail else []
        return " ".join(kept)
    return ""
