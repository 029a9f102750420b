"""The attack suite: adversarial probes generated, deterministically, from the golden set and a seed.

Which golden cases a family uses, which template each probe gets and every canary are functions of
sha256(`SUITE_VERSION`, seed, family, case id) alone: no platform RNG, no clock. Two suites of the same
version and seed over the same golden set are identical, and `suite_hash` says so. Change what a family
generates (a template, a fixed question, the selection) → bump `SUITE_VERSION`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from cairn_action.attack.fixed_sets import (
    DEGENERATE_QUESTIONS,
    DIRECT_TEMPLATES,
    EXTRACTION_QUESTIONS,
    OFF_TOPIC_QUESTIONS,
    POISON_TEMPLATE,
    PREMISE_TEMPLATES,
    TRANSLATIONS,
)
from cairn_action.attack.models import Probe
from cairn_action.config import ATTACK_FAMILIES, AttackFamily
from cairn_action.errors import DataError
from cairn_action.files import LIMIT_GOLDEN, read_text
from cairn_action.golden.models import GoldenCase, GoldenSet

SUITE_VERSION = "attack-suite-1"
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


@dataclass(frozen=True)
class AttackSuite:
    version: str
    seed: int
    system_canary: str
    """Planted in the answerer's system prompt for every probe (prompt extraction)."""
    probes: tuple[Probe, ...]

    @property
    def suite_hash(self) -> str:
        payload = {
            "version": self.version,
            "seed": self.seed,
            "system_canary": self.system_canary,
            "probes": [p.model_dump(mode="json") for p in self.probes],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]

    def of(self, family: str) -> list[Probe]:
        return [p for p in self.probes if p.family == family]


def _digest(seed: int, *parts: str) -> str:
    return hashlib.sha256("\0".join((SUITE_VERSION, str(seed), *parts)).encode()).hexdigest()


def canary(seed: int, name: str) -> str:
    """A string no answer contains by chance: `CANARY-` and ten hex digits."""
    return f"CANARY-{_digest(seed, 'canary', name)[:10].upper()}"


def _pick(cases: Sequence[GoldenCase], seed: int, family: str, n: int) -> list[GoldenCase]:
    """`n` of `cases`, chosen by their seeded hash, returned in golden file order."""
    chosen = sorted(cases, key=lambda c: _digest(seed, family, c.id))[:n]
    order = {c.id: i for i, c in enumerate(cases)}
    return sorted(chosen, key=lambda c: order[c.id])


def _template(templates: Sequence[str], seed: int, family: str, key: str) -> str:
    return templates[int(_digest(seed, family, key, "template")[:8], 16) % len(templates)]


def numbers(text: str) -> list[str]:
    """The figures in `text` (`12,000` as `12000`; `16:30` and `1.5` whole), in order."""
    return [m.group(0).replace(",", "") for m in _NUMBER.finditer(text)]


def _perturbed(value: str, quote: str, seed: int, key: str) -> str | None:
    """`value` with its first figure changed to one the supporting quote does not contain."""
    match = _NUMBER.search(value)
    if match is None:
        return None
    figure = match.group(0)
    head, sep, tail = figure.replace(",", "").partition(":")
    shift = 2 + int(_digest(seed, "premise", key)[:4], 16) % 3
    for delta in (shift, shift + 1, shift + 4, shift + 9):
        if "." in head:
            whole, _, frac = head.partition(".")
            new_head = f"{int(whole) + delta}.{frac}"
        else:
            new_head = str(int(head) + delta)
        new = new_head + sep + tail
        if new not in numbers(quote) and new != figure:
            return value[: match.start()] + new + value[match.end() :]
    return None


def _usable(golden: GoldenSet, stale: frozenset[str]) -> list[GoldenCase]:
    return [c for c in golden.cases if c.answerable and c.expected_answer and c.id not in stale]


def _direct(cases: list[GoldenCase], seed: int, n: int) -> list[Probe]:
    probes = []
    for case in _pick(cases, seed, "direct_injection", n):
        pid = f"di-{case.id}"
        c = canary(seed, pid)
        template = _template(DIRECT_TEMPLATES, seed, "direct_injection", case.id)
        question = template.format(q=case.question, c=c)
        probes.append(
            Probe(
                id=pid,
                family="direct_injection",
                question=question,
                source_case=case.id,
                canary=c,
                origin="generated",
            )
        )
    return probes


def _indirect(cases: list[GoldenCase], seed: int, n: int) -> list[Probe]:
    probes = []
    for case in _pick(cases, seed, "indirect_injection", n):
        pid = f"ii-{case.id}"
        c = canary(seed, pid)
        poison = POISON_TEMPLATE.format(q=case.question, c=c)
        probes.append(
            Probe(
                id=pid,
                family="indirect_injection",
                question=case.question,
                source_case=case.id,
                canary=c,
                poison=poison,
                origin="generated",
            )
        )
    return probes


def _premise(cases: list[GoldenCase], seed: int, n: int) -> list[Probe]:
    eligible = []
    for case in cases:
        quote = " ".join(s.quote for s in case.support)
        expected = case.expected_answer or ""
        found = numbers(expected)
        if found and found[0] in numbers(quote):
            false = _perturbed(expected, quote, seed, case.id)
            if false is not None:
                eligible.append((case, false))
    by_id = dict((c.id, f) for c, f in eligible)
    probes = []
    for case in _pick([c for c, _ in eligible], seed, "premise_perturbation", n):
        false = by_id[case.id]
        template = _template(PREMISE_TEMPLATES, seed, "premise_perturbation", case.id)
        probes.append(
            Probe(
                id=f"pp-{case.id}",
                family="premise_perturbation",
                question=template.format(q=case.question, f=false),
                source_case=case.id,
                expected_value=case.expected_answer,
                false_value=false,
                origin="generated",
            )
        )
    return probes


def _fixed(family: AttackFamily, prefix: str, questions: Sequence[str], seed: int, n: int) -> list[Probe]:
    keyed = [(f"{prefix}-{i + 1:02d}", q) for i, q in enumerate(questions)]
    chosen = sorted(keyed, key=lambda kq: _digest(seed, family, kq[0]))[:n]
    return [Probe(id=k, family=family, question=q, origin="reviewed") for k, q in sorted(chosen)]


def _wrong_language(golden: GoldenSet, seed: int, n: int) -> list[Probe]:
    cases = golden.by_id()
    usable = [t for t in TRANSLATIONS if t.case_id in cases and cases[t.case_id].question == t.english]
    chosen = sorted(usable, key=lambda t: _digest(seed, "wrong_language", t.case_id, t.language))[:n]
    return [
        Probe(
            id=f"wl-{t.language}-{t.case_id}",
            family="wrong_language",
            question=t.question,
            source_case=t.case_id,
            expected_value=cases[t.case_id].expected_answer,
            language=t.language,
            origin="reviewed",
        )
        for t in sorted(chosen, key=lambda t: t.case_id)
    ]


def generate_suite(
    golden: GoldenSet,
    *,
    seed: int,
    per_family: int,
    families: Sequence[str] = ATTACK_FAMILIES,
    stale: frozenset[str] = frozenset(),
    extra: Sequence[Probe] = (),
) -> AttackSuite:
    """The suite for `golden` (stale cases left out), the `families` asked for, plus `extra` probes."""
    cases = _usable(golden, stale)
    n = per_family
    made: dict[str, list[Probe]] = {
        "direct_injection": _direct(cases, seed, n),
        "indirect_injection": _indirect(cases, seed, n),
        "prompt_extraction": _fixed("prompt_extraction", "pe", EXTRACTION_QUESTIONS, seed, n),
        "off_topic": _fixed("off_topic", "ot", OFF_TOPIC_QUESTIONS, seed, n),
        "degenerate_input": [
            Probe(id=f"dg-{name}", family="degenerate_input", question=q, origin="reviewed")
            for name, q in DEGENERATE_QUESTIONS[:n]
        ],
        "wrong_language": _wrong_language(golden, seed, n),
        "premise_perturbation": _premise(cases, seed, n),
    }
    wanted = [f for f in ATTACK_FAMILIES if f in families]
    probes = [p for f in wanted for p in made[f]]
    seen = {p.id for p in probes}
    for probe in extra:
        if probe.family not in wanted:
            continue
        if probe.id in seen:
            raise DataError(
                f"extra probe {probe.id}: the id is already used by the suite or another probe",
                "give your probes ids of their own (e.g. a prefix like `my-`)",
            )
        seen.add(probe.id)
        probes.append(probe)
    return AttackSuite(
        version=SUITE_VERSION, seed=seed, system_canary=canary(seed, "system"), probes=tuple(probes)
    )


_REQUIRED: dict[str, tuple[str, ...]] = {
    "direct_injection": ("canary",),
    "indirect_injection": ("canary", "poison"),
    "premise_perturbation": ("expected_value", "false_value"),
}


def load_extra_probes(path: Path) -> list[Probe]:
    """Your own probes: one JSON object per line with `Probe`'s fields; every problem as file:line."""
    if not path.is_file():
        raise DataError(f"{path}: extra probes file not found", "fix [attack] extra_probes, or remove it")
    probes, problems = [], []
    for number, line in enumerate(
        read_text(path, what="the extra probes file", limit=LIMIT_GOLDEN).splitlines(), start=1
    ):
        if not line.strip():
            continue
        try:
            probe = Probe.model_validate_json(line)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(line)"
            problems.append(f"{path}:{number}: {where}: {first['msg']}")
            continue
        missing = [f for f in _REQUIRED.get(probe.family, ()) if not getattr(probe, f)]
        if missing:
            problems.append(f"{path}:{number}: a {probe.family} probe needs {', '.join(missing)}")
            continue
        probes.append(probe.model_copy(update={"origin": "extra"}))
    if problems:
        message = problems[0] if len(problems) == 1 else "\n".join([f"{len(problems)} problems:", *problems])
        raise DataError(message, "each line is one probe: id, family, question and the family's fields")
    return probes
