"""A judge you have measured: the configured judge's verdicts against human verdicts on recorded answers.

`cairn judge check LABELS` reads labels (JSONL or CSV: case id, answer, human verdict), judges each answer
with the config's judge, and reports, with "correct" as the positive class:
- TPR (the judge calls right what a human calls right) and TNR (wrong what a human calls wrong), each with a
  95 % Wilson interval (the closed form of `scipy.stats.binomtest(...).proportion_ci(method="wilson")`,
  Newcombe 1998; computed here with `math` because importing scipy.stats cost every report ~0.9 s);
- raw agreement and Cohen's kappa (agreement beyond what the two raters' own rates of "correct" give by
  chance; golden/agreement.py's `cohen_kappa`).
The result is written beside the config (`<config stem>.judge-check.json`), recorded in every report's
notes, and shown in the comment; `[judge] min_kappa` makes the gate refuse a judge without one, or below it.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist

from pydantic import BaseModel, ConfigDict, Field

from cairn_action.errors import CairnError, DataError
from cairn_action.files import LIMIT_CONFIG, read_text

LABELS_LIMIT = 20 * LIMIT_CONFIG
_TRUE = {"true", "1", "yes", "y", "correct", "right", "pass"}
_FALSE = {"false", "0", "no", "n", "incorrect", "wrong", "fail"}


class JudgeCheck(BaseModel):
    """What `cairn judge check` measured (persisted beside the config and in every report's notes)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: str
    """The judge measured, as a report's `notes.judge` names it (`lexical-2`, `llm:<model>`...)."""
    labels: str
    """The labels file's name, as given."""
    labels_sha256: str
    n: int
    true_positive: int
    false_negative: int
    true_negative: int
    false_positive: int
    tpr: float | None
    tpr_low: float | None
    tpr_high: float | None
    tnr: float | None
    tnr_low: float | None
    tnr_high: float | None
    agreement: float
    kappa: float | None
    """None when one rater gave one label throughout (chance agreement is 1)."""
    created_at: str = ""
    draws: int = Field(default=1, ge=1)
    """Each answer's verdict is the majority of up to this many judge draws, as every evaluation grades it
    (run/graded.py JUDGE_DRAWS): the check measures the judging the gate relies on, not one draw of it. 1: a
    deterministic judge, or a check written before the draws were recorded (one draw)."""

    def summary(self) -> str:
        """`judge: lexical-2, kappa 0.82 on 60 labels`, as the comment shows it (with the draws when an
        answer's verdict was a majority of several)."""
        kappa = "kappa undefined (one label throughout)" if self.kappa is None else f"kappa {self.kappa:.2f}"
        draws = f" (each a majority of up to {self.draws} judge draws)" if self.draws > 1 else ""
        return f"judge: {self.judge}, {kappa} on {self.n} labels{draws}"


@dataclass(frozen=True)
class Label:
    case_id: str
    answer: str
    human: bool
    line: int


def _verdict(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise DataError(
        f"{where}: human verdict {str(value)[:40]!r} is neither right nor wrong",
        "write true/false, correct/incorrect, yes/no or 1/0",
    )


def _field(row: dict[str, object], names: tuple[str, ...], where: str) -> object:
    for name in names:
        if name in row and row[name] not in (None, ""):
            return row[name]
    raise DataError(
        f"{where}: no {names[0]} field", "each label needs case_id, answer and human (the verdict)"
    )


def _label(row: dict[str, object], where: str, line: int) -> Label:
    return Label(
        case_id=str(_field(row, ("case_id", "id", "case"), where)),
        answer=str(_field(row, ("answer", "answer_text"), where)),
        human=_verdict(_field(row, ("human", "verdict", "human_verdict", "correct"), where), where),
        line=line,
    )


def read_labels(path: Path) -> tuple[list[Label], str]:
    """The labels of a JSONL or CSV file (by its suffix), and the file's sha256; errors name file:line."""
    text = read_text(path, what="labels", limit=LABELS_LIMIT)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    labels: list[Label] = []
    if path.suffix.lower() == ".csv":
        for number, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            labels.append(_label(dict(row), f"{path}:{number}", number))
    else:
        for number, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: not JSON ({exc.msg})", "one JSON object a line") from None
            if not isinstance(row, dict):
                raise DataError(f"{path}:{number}: not a JSON object", "one JSON object a line")
            labels.append(_label(row, f"{path}:{number}", number))
    if not labels:
        raise DataError(f"{path}:1: no labels", "one label a line: case_id, answer, human")
    return labels, digest


# The two-sided 95 % normal quantile, as scipy's `ndtri(0.975)` (equal to it within 1 ulp).
_Z95 = NormalDist().inv_cdf(0.975)


def _wilson(k: int, n: int) -> tuple[float | None, float | None, float | None]:
    """k / n and its Wilson 95 % interval, as scipy's `_binom_wilson_conf_int` without continuity correction.

    The bounds are pinned to 0 and 1 at k = 0 and k = n as scipy does (the formula gives them up to rounding).
    """
    if n == 0:
        return None, None, None
    p = k / n
    denom = 2 * (n + _Z95**2)
    center = (2 * n * p + _Z95**2) / denom
    delta = _Z95 / denom * math.sqrt(4 * n * p * (1 - p) + _Z95**2)
    low = 0.0 if k == 0 else center - delta
    high = 1.0 if k == n else center + delta
    return p, low, high


def measure(
    human: list[bool],
    judge: list[bool],
    *,
    judge_name: str,
    labels: str,
    sha256: str,
    created_at: str = "",
    draws: int = 1,
) -> JudgeCheck:
    """TPR, TNR (Wilson 95 %), raw agreement and Cohen's kappa of `judge` against `human`; `draws`: the judge
    draws each verdict was the majority of."""
    from cairn_action.golden.agreement import cohen_kappa  # for a measurement, not every report's import

    pairs = list(zip(human, judge, strict=True))
    tp = sum(1 for h, j in pairs if h and j)
    fn = sum(1 for h, j in pairs if h and not j)
    tn = sum(1 for h, j in pairs if not h and not j)
    fp = sum(1 for h, j in pairs if not h and j)
    tpr, tpr_low, tpr_high = _wilson(tp, tp + fn)
    tnr, tnr_low, tnr_high = _wilson(tn, tn + fp)
    return JudgeCheck(
        judge=judge_name,
        labels=labels,
        labels_sha256=sha256,
        n=len(pairs),
        true_positive=tp,
        false_negative=fn,
        true_negative=tn,
        false_positive=fp,
        tpr=tpr,
        tpr_low=tpr_low,
        tpr_high=tpr_high,
        tnr=tnr,
        tnr_low=tnr_low,
        tnr_high=tnr_high,
        agreement=(tp + tn) / len(pairs) if pairs else 0.0,
        kappa=cohen_kappa(list(human), list(judge)),
        created_at=created_at,
        draws=draws,
    )


SHOWN_DISAGREEMENTS = 10
"""Labels the judge disagrees with, listed by `file:line` so the rubric (or the label) can be fixed; the
rest are counted."""
_ANSWER_SHOWN = 80


def disagreements(
    source: str, labels: Sequence[Label], verdicts: list[bool], rationales: list[str]
) -> list[str]:
    """`labels.jsonl:6: com-003: a human says wrong, the judge right: 'Not 15%' (its rationale)`."""
    word = {True: "right", False: "wrong"}
    lines = []
    for label, said, why in zip(labels, verdicts, rationales, strict=True):
        if said == label.human:
            continue
        flat = " ".join(label.answer.split())
        shown = flat if len(flat) <= _ANSWER_SHOWN else flat[: _ANSWER_SHOWN - 1] + "…"
        said_why = "".join(ch for ch in " ".join(why.split()) if ch.isprintable())[:_ANSWER_SHOWN]
        because = f" ({said_why})" if said_why else ""  # a model's words: no control characters
        lines.append(
            f"{source}:{label.line}: {label.case_id}: a human says {word[label.human]}, the judge "
            f"{word[said]}: {shown!r}{because}"
        )
    if not lines:
        return []
    more = len(lines) - SHOWN_DISAGREEMENTS
    head = [f"the judge disagrees with {len(lines)} label(s):"]
    return head + lines[:SHOWN_DISAGREEMENTS] + ([f"... and {more} more"] if more > 0 else [])


def check_path(config_source: Path | None, base_dir: Path) -> Path:
    """Where the judge check is written: beside the config (`cairn.toml` -> `cairn.judge-check.json`)."""
    if config_source is None:
        return base_dir / "cairn.judge-check.json"
    return config_source.with_name(f"{config_source.stem}.judge-check.json")


def read_check(path: Path) -> JudgeCheck | None:
    """The judge check beside the config; None when there is none or it is unreadable ("not validated")."""
    if not path.is_file():
        return None
    try:
        return JudgeCheck.model_validate_json(read_text(path, what="the judge check", limit=LIMIT_CONFIG))
    except (CairnError, ValueError):
        return None
