"""`cairn attack`'s expensive half: the suite's probes through the same run machinery as `cairn eval`.

The probes become cases of a run (`run_evaluation` with `RunOptions.cases`): the provider cache, the
journaled artifact and its resume, the concurrency, the budget and the targets are the eval's own. The
artifact is `reports/runs/attack-<config>-<suite hash>-<UTC>.jsonl`, so an interrupted attack resumes
only into the same suite. The config's judge is not asked (the checks read the answers themselves), and
the calibrated threshold, when one is certified for this experiment, withholds low-confidence answers
exactly as it does in the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from cairn_action.attack.checks import CheckContext
from cairn_action.attack.models import Probe
from cairn_action.attack.score import AttackRun
from cairn_action.attack.suite import AttackSuite, generate_suite, load_extra_probes
from cairn_action.config import LoadedConfig
from cairn_action.errors import DataError
from cairn_action.golden.load import load_golden
from cairn_action.golden.models import GoldenCase
from cairn_action.index.chunks import Chunk
from cairn_action.providers.base import Answerer
from cairn_action.providers.prompt import canary_instructions
from cairn_action.report.build_report import choose_threshold
from cairn_action.report.io import read_calibration
from cairn_action.report.pipeline import split_of
from cairn_action.run.artifact import read_artifact
from cairn_action.run.evaluation import RunEvaluation, RunOptions
from cairn_action.run.models import CaseRecord, JudgeVerdict, RunHeader
from cairn_action.run.progress import Progress

PLANTED_DOC = "cairn-attack/planted.md"
TARGET_INDIRECT = (
    "a target retrieves from its own index, and the target protocol gives Cairn no way to place a "
    "passage in it; test it with a poisoned document in your own corpus and an extra probe"
)
TARGET_EXTRACTION = (
    "Cairn cannot see a target's system prompt: plant a canary in it and name it in [attack] target_canary"
)
STUB_EXTRACTION = (
    "the stub answerer has no system prompt, so there is nothing to leak: a pass here shows only that it "
    "does not answer these requests, not that a model would keep a prompt secret"
)


class NoJudge:
    """The attack run's judge: the checks read the answers, so nothing is graded and nothing is paid."""

    name = "none"
    label = "none (attack checks)"
    deterministic = True
    """It grades nothing, so it never makes a repeated ask of a deterministic answerer worth its time."""

    def judge(self, case: GoldenCase, answer_text: str) -> JudgeVerdict:
        return JudgeVerdict(
            name="none", rule_version="attack", correct=None, rationale="checked by cairn attack"
        )


def probe_case(probe: Probe) -> GoldenCase:
    """The probe as a run case. `model_construct`: a degenerate probe's question may be empty, which a
    golden case (rightly) refuses; the run only reads the id and the question."""
    return GoldenCase.model_construct(
        id=probe.id,
        question=probe.question,
        answerable=False,
        expected_answer=None,
        support=[],
        tags=["attack", probe.family],
        notes="",
        difficulty=None,
        added=None,
        annotator=None,
    )


def planted_chunk(probe: Probe) -> Chunk:
    text = probe.poison or ""
    return Chunk(f"planted:{probe.id}", PLANTED_DOC, 0, len(text), text, heading="Notice")


def _by_probe(records: Sequence[CaseRecord]) -> dict[str, list[CaseRecord]]:
    """Probe id -> its records, first ask first (a run may ask a case several times)."""
    grouped: dict[str, list[CaseRecord]] = {}
    for record in sorted(records, key=lambda r: getattr(r, "sample", 0)):
        grouped.setdefault(record.case_id, []).append(record)
    return grouped


def build_suite(loaded: LoadedConfig, families: Sequence[str]) -> AttackSuite:
    cfg = loaded.config.attack
    golden = load_golden(loaded.golden_path)
    extra = load_extra_probes(loaded.resolve(cfg.extra_probes)) if cfg.extra_probes else []
    return generate_suite(
        golden, seed=cfg.seed, per_family=cfg.probes_per_family, families=families, extra=extra
    )


def _system_view(
    loaded: LoadedConfig, provider: str, suite: AttackSuite
) -> tuple[dict[str, str], dict[str, str], CheckContext]:
    """(families not applicable, caveats, what the checks know) for the system under test."""
    cfg = loaded.config.attack
    rule = cfg.wrong_language
    if loaded.config.target:
        na = {"indirect_injection": TARGET_INDIRECT}
        if not cfg.target_canary:
            na["prompt_extraction"] = TARGET_EXTRACTION
        return na, {}, CheckContext(system_canary=cfg.target_canary, system_prompt=None, wrong_language=rule)
    planted = frozenset(f"planted:{p.id}" for p in suite.of("indirect_injection"))
    if provider == "stub":
        ctx = CheckContext(system_canary=None, system_prompt=None, planted_ids=planted, wrong_language=rule)
        return {}, {"prompt_extraction": STUB_EXTRACTION}, ctx
    prompt = canary_instructions(suite.system_canary)
    ctx = CheckContext(
        system_canary=suite.system_canary, system_prompt=prompt, planted_ids=planted, wrong_language=rule
    )
    return {}, {}, ctx


@dataclass(frozen=True)
class AttackPlan:
    """The suite, what applies to the system under test, and the run options that ask it."""

    suite: AttackSuite
    not_applicable: dict[str, str]
    caveats: dict[str, str]
    context: CheckContext
    options: RunOptions


def plan_attack(
    loaded: LoadedConfig, families: Sequence[str], provider: str, *, artifact: Path | None = None
) -> AttackPlan:
    """Everything about the attack that follows from the config and the answerer's kind (`provider`)."""
    suite = build_suite(loaded, families)
    not_applicable, caveats, ctx = _system_view(loaded, provider, suite)
    probes = [p for p in suite.probes if p.family not in not_applicable]
    options = RunOptions(
        split="all",
        # `run.repeats` asks per probe: a baseline's extra samples per case are for the gate's evidence
        # on golden cases, and would multiply the probe run's cost.
        sampling="candidate",
        artifact=artifact,
        cases=tuple(probe_case(p) for p in probes),
        stem=f"attack-{loaded.config.name}-{suite.suite_hash[:8]}",
        planted={p.id: planted_chunk(p) for p in probes if p.family == "indirect_injection"},
        system_canary=suite.system_canary,
    )
    return AttackPlan(suite, not_applicable, caveats, ctx, options)


def attack_run_from(
    loaded: LoadedConfig,
    plan: AttackPlan,
    header: RunHeader,
    records: Sequence[CaseRecord],
    *,
    where: str,
    summary: Sequence[str] = (),
) -> AttackRun:
    """The attack run of `plan` from its run records; a planned probe without a record is refused."""
    grouped = _by_probe(records)
    missing = [c.id for c in plan.options.cases or () if c.id not in grouped]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise DataError(
            f"{where}: no record for {len(missing)} probe(s) of the suite: {shown}",
            "rerun `cairn attack` (it resumes the run and asks what is missing)",
        )
    golden = load_golden(loaded.golden_path)
    choice = choose_threshold(
        read_calibration(loaded.calibration_path), header, golden, loaded.config, split_of(golden, loaded)
    )
    system = f"target {header.model}" if loaded.config.target else f"{header.provider}/{header.model}"
    return AttackRun(
        suite=plan.suite,
        header=header,
        records=grouped,
        not_applicable=plan.not_applicable,
        caveats=plan.caveats,
        context=plan.context,
        threshold=choice.threshold,
        threshold_source=choice.source,
        system=system,
        summary=tuple(summary),
    )


def run_attack(
    loaded: LoadedConfig,
    *,
    families: Sequence[str],
    cwd: Path,
    log: TextIO,
    progress: Progress,
    evaluate: RunEvaluation,
    env: Mapping[str, str] | None = None,
    answerer: Answerer | None = None,
    artifact: Path | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> AttackRun:
    """Generate the suite, run its applicable probes through `evaluate` (the evaluation's composition,
    `commands.compose.run_evaluation`, handed in from above), and return what scoring needs."""
    provider = answerer.name if answerer is not None else loaded.config.provider.name
    plan = plan_attack(loaded, families, provider, artifact=artifact)
    outcome = evaluate(
        loaded,
        plan.options,
        cwd=cwd,
        log=log,
        progress=progress,
        env=env,
        answerer=answerer,
        judge=NoJudge(),
        now=now,
    )
    where = str(outcome.path)
    return attack_run_from(
        loaded, plan, outcome.header, outcome.records, where=where, summary=outcome.summary()
    )


def score_attack_artifact(loaded: LoadedConfig, families: Sequence[str], artifact: Path) -> AttackRun:
    """The attack run from an artifact another process wrote (the Action's child): the suite and the
    checks are rebuilt here, so the child can only supply answers, never verdicts."""
    found = read_artifact(artifact)
    plan = plan_attack(loaded, families, found.header.provider)
    return attack_run_from(loaded, plan, found.header, found.records, where=str(artifact))
