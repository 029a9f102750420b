"""The LLM judge (`[judge] name = "llm"`): a versioned rubric grades an answer against the expected one.

It has the lexical judge's shape (`judge(case, answer_text) -> JudgeVerdict`) and the same rules where no
model is needed: no answer is not judged (`correct=None`), an answer to an unanswerable or false-premise
case is wrong by definition (score 0), a case without an expected answer is not judged. Otherwise the
model grades the answer from 0 to 1 and decides `correct` under `RUBRIC` (when it omits `correct`, a
score of 0.5 or more counts as correct).

The run calls `request_key` and `grade` so the judge's calls go through Cairn's cache and onto the run
record with their tokens and cost like any answer call; `judge` is the plain protocol method. An
unusable reply is a `JudgeResult` with `error` and the raw text, never an exception.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.golden.models import GoldenCase
from cairn_action.providers.chat import ChatBackend, ChatPrompt, MalformedReply
from cairn_action.providers.llm_answerer import PARSE_ATTEMPTS, until_usable
from cairn_action.providers.prompt import extract_json_object, parse_probability, prefix_hash
from cairn_action.run.models import JudgeVerdict, Usage

RUBRIC_VERSION = "llm-rubric-1"
CORRECT_AT = 0.5

RUBRIC = """\
You grade one answer to a question about an organisation's documents against the reference answer that \
a person confirmed. Grade the substance, not the wording.

- 1.0: the candidate states the reference's key fact (a paraphrase, another format of the same value, \
or harmless extra detail is fine).
- 0.5: partly right: some of the reference's facts but not all, or the right fact next to a wrong one.
- 0.0: wrong: it contradicts the reference, misses its key fact, or gives a different number, date or \
name, however close.
Use values in between when they fit better. correct is true when the candidate gives the reference's \
key fact and does not contradict it.

Reply with exactly one JSON object and nothing else:
{"score": <0 to 1>, "correct": <true or false>, "rationale": "<one short sentence>"}
"""


class JudgeResult(BaseModel):
    """One graded answer, as cached and recorded."""

    model_config = ConfigDict(extra="forbid")

    verdict: JudgeVerdict
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = 0.0
    prompt_prefix_hash: str | None = None
    raw_output: str | None = None
    error: str | None = None
    """Set when the reply could not be read: the verdict then has `correct=None`."""


class GradeParseError(ValueError):
    pass


def parse_grade(text: str) -> tuple[float, bool, str]:
    """(score, correct, rationale) from a reply under the rubric; raises GradeParseError."""
    data = extract_json_object(text, ("score", "correct"))
    if data is None:
        raise GradeParseError("no JSON object in the reply")
    score = parse_probability(data.get("score"))
    if score is None:
        raise GradeParseError(f"'score' is not a number from 0 to 1: {str(data.get('score'))[:40]!r}")
    correct = data.get("correct")
    if isinstance(correct, str) and correct.strip().lower() in ("true", "false"):
        correct = correct.strip().lower() == "true"
    if not isinstance(correct, bool):
        correct = score >= CORRECT_AT
    rationale = data.get("rationale")
    return score, correct, str(rationale).strip()[:500] if rationale is not None else ""


def grading_prompt(case: GoldenCase, answer_text: str) -> ChatPrompt:
    user = (
        f"Question: {case.question.strip()}\n"
        f"Reference answer: {(case.expected_answer or '').strip()}\n"
        + "".join(f"Also acceptable: {v.strip()}\n" for v in case.answer_variants)
        + f"Candidate answer: {answer_text.strip()}"
    )
    return ChatPrompt(system=RUBRIC, user=user)


class LLMJudge:
    """Grades answers with a chat model under `RUBRIC`."""

    name = "llm"
    rule_version = RUBRIC_VERSION

    def __init__(
        self,
        backend: ChatBackend,
        *,
        attempts: int = PARSE_ATTEMPTS,
        on_unusable: Callable[[bool], None] | None = None,
    ) -> None:
        """As `LLMAnswerer`: an unusable grade is asked for again, up to `attempts` calls in all."""
        self.backend = backend
        self.provider = backend.name
        self.model = backend.model
        self.attempts = max(1, attempts)
        self._on_unusable = on_unusable

    @property
    def label(self) -> str:
        """What the report's notes say about the judge: kind, model and rubric version."""
        return f"llm ({self.provider} {self.model}, rubric {RUBRIC_VERSION})"

    def _verdict(self, correct: bool | None, score: float | None, rationale: str) -> JudgeVerdict:
        return JudgeVerdict(
            name=self.name, rule_version=self.rule_version, correct=correct, score=score, rationale=rationale
        )

    def decided_without_model(self, case: GoldenCase, answer_text: str | None) -> JudgeVerdict | None:
        """The verdict when the rules decide it (no call is made), else None."""
        if answer_text is None:
            return self._verdict(None, None, "no answer to judge")
        if not case.answerable:
            kind = "false premise" if case.is_false_premise else "unanswerable"
            return self._verdict(False, 0.0, f"answered an {kind} case")
        if case.expected_answer is None:
            return self._verdict(None, None, "the case has no expected answer")
        return None

    def request_key(self, case: GoldenCase, answer_text: str) -> str:
        prompt = grading_prompt(case, answer_text)
        payload = {
            **self.backend.identity(),
            "rubric": RUBRIC_VERSION,
            "system": prompt.system,
            "user": prompt.user,
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=True).encode()).hexdigest()

    def grade(self, case: GoldenCase, answer_text: str | None) -> JudgeResult:
        """The graded result (one model call unless the rules decide). Raises InfrastructureError."""
        decided = self.decided_without_model(case, answer_text)
        if decided is not None or answer_text is None:
            return JudgeResult(verdict=decided or self._verdict(None, None, "no answer to judge"))
        prompt = grading_prompt(case, answer_text)
        return until_usable(lambda: self._grade_once(prompt), self.attempts, self._on_unusable)

    def _grade_once(self, prompt: ChatPrompt) -> JudgeResult:
        prefix = prefix_hash(RUBRIC_VERSION, prompt.system)
        try:
            completion = self.backend.complete(prompt)
        except MalformedReply as exc:
            return JudgeResult(
                verdict=self._verdict(None, None, "the judge's reply was unusable"),
                usage=exc.usage,
                cost_usd=exc.cost_usd,
                prompt_prefix_hash=prefix,
                raw_output=exc.raw,
                error=f"judge {self.provider}: unusable reply: {exc.reason}",
            )
        spent = {"usage": completion.usage, "cost_usd": completion.cost_usd, "prompt_prefix_hash": prefix}
        try:
            score, correct, rationale = parse_grade(completion.text)
        except GradeParseError as exc:
            return JudgeResult(
                verdict=self._verdict(None, None, "the judge's reply was unparsable"),
                raw_output=completion.text,
                error=f"judge {self.provider}: unparsable grade: {exc}",
                **spent,
            )
        return JudgeResult(verdict=self._verdict(correct, score, rationale), **spent)

    def judge(self, case: GoldenCase, answer_text: str | None) -> JudgeVerdict:
        """The `Judge` protocol: the verdict alone (tokens and cost are on `grade`'s result)."""
        return self.grade(case, answer_text).verdict
