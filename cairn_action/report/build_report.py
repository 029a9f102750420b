"""Run records + golden set + config + calibration + split -> Report. Pure: the caller passes the clock.

Before scoring it checks that the pieces belong together (the run was made on this golden set with
this config, and covers every case of the requested split) and says precisely what does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cairn_action.config import Config, config_hash, experiment_settings
from cairn_action.errors import DataError
from cairn_action.golden.models import GoldenCase, GoldenSet
from cairn_action.golden.split import GoldenSplit, SplitName
from cairn_action.report.models import (
    AbstentionMetrics,
    AnswerMetrics,
    BudgetCheck,
    CitedChunk,
    Environment,
    Notes,
    OperationalMetrics,
    PerCase,
    Report,
    RetrievalMetrics,
    TagStats,
)
from cairn_action.report.samples import Evidence, evidence, extra_samples_note, first_samples
from cairn_action.run.models import BUDGET_ERROR_PREFIX, CaseRecord, RunHeader
from cairn_action.score.calibration.committed import CalibrationFile, system_hash
from cairn_action.score.outcome import CaseOutcome
from cairn_action.score.scorecard import Scorecard, score_records

UNCALIBRATED = "uncalibrated (model abstain flag)"
PROMOTION_ALL = (
    "split all: never a promotion decision, because the threshold was fitted on part of these cases"
)
PROMOTION_ALL_UNCALIBRATED = (
    "split all: never a promotion decision: pull requests are gated on the eval split, and a threshold "
    "fitted later would be fitted on part of these cases"
)
PROMOTION_CALIBRATION = "split calibration: the cases the threshold was fitted on; in-sample, not evidence"
_SHOWN_IDS = 5


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS])
    return shown + (f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else "")


def check_run_matches(header: RunHeader, golden: GoldenSet, config: Config, *, where: str) -> None:
    """Refuse a run made on another golden set or with another config than the ones given."""
    if header.golden_version == golden.version and header.golden_hash != golden.content_hash:
        raise DataError(
            f"{where}: {golden.path} changed since the run (version {golden.version} both times, hash "
            f"{header.golden_hash[:12]} then, {golden.content_hash[:12]} now)",
            "bump golden.version whenever the set changes, then run `cairn eval` again",
        )
    if header.golden_version != golden.version:
        raise DataError(
            f"{where}: the run used golden set version {header.golden_version} "
            f"(hash {header.golden_hash[:12]}), but {golden.path} is version {golden.version} "
            f"(hash {golden.content_hash[:12]})",
            "score a run with the golden set it was made on, or run `cairn eval` again",
        )
    expected = config_hash(config, header.embedding_model)
    if header.config_hash != expected:
        raise DataError(
            f"{where}: the run was made with config hash {header.config_hash} ({header.config_name}), "
            f"but config '{config.name}' hashes to {expected}",
            "pass the --config the run was made with, or run `cairn eval` again",
        )


def check_records_match(
    header: RunHeader, records: Sequence[CaseRecord], golden: GoldenSet, *, where: str
) -> None:
    """Refuse an artifact whose header and records do not add up: a count that differs from the header's
    n_cases, or a record whose answerable flag contradicts its golden case (an edited or forged file)."""
    first = sum(1 for r in records if r.sample == 0)  # later samples of a case are not more cases
    if header.n_cases is not None and header.n_cases != first:
        raise DataError(
            f"{where}: the header says n_cases {header.n_cases}, but the artifact holds {first} case(s)",
            "an unfinished run resumes with `cairn eval` (same command); an edited artifact cannot be scored",
        )
    cases = golden.by_id()
    for record in records:
        case = cases.get(record.case_id)
        if case is not None and case.answerable != record.answerable:
            raise DataError(
                f"{where}: case {record.case_id} is recorded answerable={str(record.answerable).lower()}, "
                f"but {golden.path} says answerable={str(case.answerable).lower()}",
                "score a run with the golden set it was made on, or run `cairn eval` again",
            )


def select_records(
    records: Sequence[CaseRecord], golden: GoldenSet, split: GoldenSplit, which: SplitName, *, where: str
) -> list[CaseRecord]:
    """The records of slice `which`, checked: none foreign to the golden set, none of the slice missing."""
    cases = golden.by_id()
    foreign = [r.case_id for r in records if r.case_id not in cases]
    if foreign:
        raise DataError(
            f"{where}: {len(foreign)} record(s) for cases not in {golden.path}: {_ids(foreign)}",
            "score a run with the golden set it was made on",
        )
    wanted = split.ids(which)
    present = {r.case_id for r in records if r.sample == 0}
    missing = [c.id for c in golden.cases if c.id in wanted and c.id not in present]
    if missing:
        raise DataError(
            f"{where}: the run has no record for {len(missing)} case(s) of split {which}: {_ids(missing)}",
            "merge every shard (`cairn score A.jsonl B.jsonl ...`), or run the split you score "
            f"(`cairn eval --split {which}`)",
        )
    return [r for r in records if r.case_id in wanted]


@dataclass(frozen=True, kw_only=True)
class ThresholdChoice:
    threshold: float | None
    source: str
    calibrated: bool
    note: dict[str, object] | None


def choose_threshold(
    calibration: CalibrationFile | None,
    header: RunHeader,
    golden: GoldenSet,
    config: Config,
    split: GoldenSplit,
) -> ThresholdChoice:
    """The committed calibration's threshold when it was certified for exactly this experiment."""
    if calibration is None:
        return ThresholdChoice(threshold=None, source=UNCALIBRATED, calibrated=False, note=None)
    note = calibration.summary()
    cal = config.calibration
    mismatches = [
        name
        for name, ours, theirs in (
            ("system (chunking, retrieval, provider or judge)", system_hash(config), calibration.system_hash),
            ("corpus", header.corpus_hash, calibration.corpus_hash),
            ("golden set", golden.content_hash, calibration.golden_hash),
            ("alpha", cal.alpha, calibration.alpha),
            ("delta", cal.delta, calibration.delta),
            ("split", split.summary().calibration_ids_hash, calibration.split.calibration_ids_hash),
        )
        if ours != theirs
    ]
    if mismatches:
        why = f"calibration is stale: fitted for another {', '.join(mismatches)}; run `cairn calibrate`"
        return ThresholdChoice(
            threshold=None,
            source=f"{UNCALIBRATED}; {why}",
            calibrated=False,
            note={**note, "applied": False, "why_not": why},
        )
    if calibration.status != "certified" or calibration.threshold is None:
        why = f"calibration not achievable at alpha={calibration.alpha:g}, delta={calibration.delta:g}"
        return ThresholdChoice(
            threshold=None,
            source=f"{UNCALIBRATED}; {why}",
            calibrated=False,
            note={**note, "applied": False, "why_not": calibration.reason},
        )
    source = (
        f"calibrated (threshold {calibration.threshold:g} certified at alpha={calibration.alpha:g}, "
        f"delta={calibration.delta:g} on {calibration.n_calibration} calibration cases)"
    )
    return ThresholdChoice(
        threshold=calibration.threshold, source=source, calibrated=True, note={**note, "applied": True}
    )


def per_case_row(outcome: CaseOutcome, record: CaseRecord, case: GoldenCase, samples: Evidence) -> PerCase:
    ranks = {c.chunk_id: c for c in record.retrieved}
    cited = [
        CitedChunk(
            chunk_id=c.chunk_id,
            doc=ranks[c.chunk_id].doc if c.chunk_id in ranks else "",
            rank=ranks[c.chunk_id].rank if c.chunk_id in ranks else None,
        )
        for c in record.citations
    ]
    return PerCase(
        case_id=outcome.case_id,
        answerable=outcome.answerable,
        status=outcome.status,
        confidence=outcome.confidence,
        correct=outcome.correct,
        token_f1=outcome.token_f1,
        judge_score=outcome.judge_score,
        citation_validity=outcome.citation_validity,
        retrieved_support_rank=outcome.retrieved_support_rank,
        latency_ms=outcome.latency_ms,
        cost_usd=outcome.cost_usd,
        answer_text=record.answer_text,
        exact_match=outcome.exact_match,
        question=case.question,
        expected_answer=case.expected_answer,
        tags=list(case.tags),
        difficulty=case.difficulty,
        support_located=outcome.support_located,
        cited=cited,
        error=record.error,
        abstained_by_threshold=outcome.abstained_by_threshold,
        failed_checks=list(outcome.failed_checks),
        changed_documents=list(record.changed_documents),
        n_claims=outcome.n_claims,
        n_claims_verified=outcome.n_claims_verified,
        tokens=outcome.tokens,
        prefix_checks=outcome.prefix_checks,
        prefix_matches=outcome.prefix_matches,
        n_samples=samples.n_samples,
        n_right=samples.n_right,
        agreement=samples.agreement,
        judge_agreement=samples.judge_agreement,
        samples=samples.samples,
        context_size=None if record.context_ids is None else len(record.context_ids),
        support_in_context=record.support_in_context,
    )


NO_PASSAGES = (
    "the system returned no passages for any of the {n} cases: likely causes: it reads none of the corpus "
    "(another folder, or only some suffixes: an example reading *.md finds nothing in .txt or .html files), "
    "its index is empty, or its reply has no `passages`"
)
NO_PASSAGES_BUILTIN = (
    "retrieval returned no chunks for any of the {n} cases: likely causes: an empty index or a filter that "
    "drops every chunk"
)
NO_ANSWERS = (
    "the system answered none of the {n} cases: likely causes: its model is not reachable or configured "
    "(URL, key, settings the evaluation does not pass on), it abstains on everything, or its reply has no "
    "`answer`"
)


def nothing_returned(records: Sequence[CaseRecord], *, target: bool) -> list[str]:
    """A warning for each thing the system returned for no case (errored and stale cases aside)."""
    replied = [r for r in records if r.status in ("answered", "abstained")]
    if not replied:
        return []
    n = len(replied)
    found = []
    if not any(r.retrieved for r in replied):
        found.append((NO_PASSAGES if target else NO_PASSAGES_BUILTIN).format(n=n))
    if not any(r.answer_text for r in replied):
        found.append(NO_ANSWERS.format(n=n))
    return found


def _notes(
    card: Scorecard,
    header: RunHeader,
    records: Sequence[CaseRecord],
    config: Config,
    choice: ThresholdChoice,
    split: GoldenSplit,
    which: SplitName,
    golden: GoldenSet,
    later: dict[str, list[CaseRecord]],
    spent: float | None,
) -> Notes:
    limit = config.budget.max_cost_usd
    # The guard refuses a call once spent >= limit; the cases it refused are errors that say so.
    skipped = sum(
        1 for r in records if r.status == "error" and (r.error or "").startswith(BUDGET_ERROR_PREFIX)
    )
    models = {header.model} | {c.model for r in records for c in r.calls if c.model}
    rubrics = sorted({r.judge.rule_version for r in records if r.judge is not None and r.judge.rule_version})
    # Without a calibration no threshold was fitted on any of these cases: do not say one was.
    everything = PROMOTION_ALL if choice.calibrated else PROMOTION_ALL_UNCALIBRATED
    promotion = {"all": everything, "calibration": PROMOTION_CALIBRATION}.get(which, "")
    return Notes(
        threshold_source=choice.source,
        calibrated=choice.calibrated,
        calibration=choice.note,
        environment=Environment.model_validate(header.environment.model_dump()),
        judge=header.judge,
        rubric_version=", ".join(rubrics),
        provider=header.provider,
        models_seen=sorted(m for m in models if m),
        retrieval_mode=header.retrieval_mode,
        retrieval_depth=header.depth,
        top_k=header.top_k,
        reranker=header.reranker,
        query_rewriting=header.query_rewriting,
        budget=BudgetCheck(
            max_cost_usd=limit,
            spent_usd=spent,
            exceeded=skipped > 0 or (limit is not None and spent is not None and spent >= limit),
            cases_skipped=skipped,
        ),
        golden_hash=golden.content_hash,
        counts=card.counts,
        split_detail=split.summary(),
        promotion=promotion,
        deterministic=header.deterministic,
        extra_samples=extra_samples_note(later),
        gate_policy=config.gate.model_dump(mode="json"),
        extra={"embedding_model": header.embedding_model} if header.embedding_model else {},
        config=experiment_settings(config, header.embedding_model),
        nothing_returned=nothing_returned(records, target=header.retrieval_mode == "target"),
        sealed_to=list(golden.recipients),
    )


def paid_totals(
    first_cost: float | None, first_tokens: int, rows: Sequence[PerCase]
) -> tuple[float | None, int]:
    """(cost, tokens) of every call the run paid for on the scored cases: the first samples' totals plus
    each later sample's (repeats, baseline samples, confirmation re-asks; see report/samples.py).
    Counting only first samples hid about half the tokens of a run whose critical cases were asked again."""
    later = [s for row in rows if row.status != "stale" for s in row.samples]
    costs = [first_cost, *(s.cost_usd for s in later)]
    cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
    return cost, first_tokens + sum(s.tokens for s in later)


def build_report(
    *,
    header: RunHeader,
    records: Sequence[CaseRecord],
    golden: GoldenSet,
    config: Config,
    split: GoldenSplit,
    which: SplitName,
    calibration: CalibrationFile | None,
    created_at: str,
    cairn_version: str,
    where: str = "run",
) -> Report:
    """Score the records of slice `which` and assemble the report. `where` names the run in messages."""
    check_run_matches(header, golden, config, where=where)
    chosen, later = first_samples(select_records(records, golden, split, which, where=where))
    choice = choose_threshold(calibration, header, golden, config, split)
    cases = golden.by_id()
    card = score_records(chosen, cases, alpha=config.calibration.alpha, threshold=choice.threshold)
    by_id = {r.case_id: r for r in chosen}

    def row(o: CaseOutcome) -> PerCase:
        case, record = cases[o.case_id], by_id[o.case_id]
        found = evidence(o, record, later.get(o.case_id, []), case, threshold=choice.threshold)
        return per_case_row(o, record, case, found)

    r, a, ab, op = card.retrieval, card.answer, card.abstention, card.operational
    rows = [row(o) for o in card.outcomes]
    paid_cost, paid_tokens = paid_totals(op.cost_usd_total, op.tokens_total, rows)
    return Report(
        cairn_version=cairn_version,
        config_name=config.name,
        config_hash=header.config_hash,
        target_hash=header.target_hash,
        corpus_hash=header.corpus_hash,
        golden_version=golden.version,
        split=which,
        created_at=created_at,
        n_cases=card.n_scored,
        retrieval=RetrievalMetrics(
            recall_at_k=r.recall_at_k, ndcg_at_10=r.ndcg_at_10, mrr=r.mrr, n_with_support=r.n_with_support
        ),
        answer=AnswerMetrics(
            exact_match=a.exact_match,
            token_f1=a.token_f1,
            judge_score=a.judge_score,
            citation_validity=a.citation_validity,
            faithfulness=a.faithfulness,
        ),
        abstention=AbstentionMetrics(
            alpha=ab.alpha,
            threshold=ab.threshold,
            answer_rate=ab.answer_rate,
            error_rate_answered=ab.error_rate_answered,
            guarantee_met=ab.guarantee_met,
            unanswerable_abstained_rate=ab.unanswerable_abstained_rate,
            answerable_answered_rate=ab.answerable_answered_rate,
        ),
        operational=OperationalMetrics(
            cost_usd_total=paid_cost,
            cost_per_question_usd=op.cost_per_question_usd,
            latency_p50_ms=op.latency_p50_ms,
            latency_p95_ms=op.latency_p95_ms,
            tokens_total=paid_tokens,
            cache_hit_rate=op.cache_hit_rate,
        ),
        per_case=rows,
        notes=_notes(card, header, chosen, config, choice, split, which, golden, later, paid_cost),
        by_tag={
            k: TagStats(
                n=g.n, answer_rate=g.answer_rate, correct_rate=g.correct_rate, recall_at_5=g.recall_at_5
            )
            for k, g in card.by_tag.items()
        },
    )
