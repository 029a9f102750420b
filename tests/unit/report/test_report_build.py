"""Building a report from the committed run fixture: hand-checked numbers, and every aggregate recomputed."""

from __future__ import annotations

from pathlib import Path

import pytest
from report_recompute import assert_aggregates_recompute

from cairn_action.config import CalibrationConfig, Config, config_hash
from cairn_action.errors import DataError
from cairn_action.golden.load import load_golden
from cairn_action.golden.split import GoldenSplit, split_golden
from cairn_action.report.build_report import (
    PROMOTION_ALL,
    PROMOTION_ALL_UNCALIBRATED,
    UNCALIBRATED,
    build_report,
)
from cairn_action.run.artifact import read_artifact
from cairn_action.score.calibration.committed import CalibrationFile
from cairn_action.score.calibration.from_run import calibrate

DATA = Path(__file__).resolve().parents[2] / "data" / "scoring"
CONFIG = Config(name="fixture")
GOLDEN = load_golden(DATA / "golden.jsonl")
RUN = read_artifact(DATA / "run.jsonl")
CREATED = "2026-01-02T03:04:05Z"


def _split(config: Config = CONFIG) -> GoldenSplit:
    return split_golden(GOLDEN, seed=config.calibration.seed, fraction=config.calibration.fraction)


def _build(
    which: str = "all", calibration: CalibrationFile | None = None, config: Config = CONFIG, records=None
):
    return build_report(
        header=RUN.header,
        records=RUN.records if records is None else records,
        golden=GOLDEN,
        config=config,
        split=_split(config),
        which=which,
        calibration=calibration,
        created_at=CREATED,
        cairn_version="0.1.0",
        where="run.jsonl",
    )


def _calibration(threshold: float | None, **changes) -> CalibrationFile:
    cal = calibrate(
        [r for r in RUN.records if r.case_id in _split().ids("calibration")],
        GOLDEN.by_id(),
        config=CONFIG,
        corpus_hash=RUN.header.corpus_hash,
        golden_version=GOLDEN.version,
        golden_hash=GOLDEN.content_hash,
        split=_split().summary(),
        created_at=CREATED,
        cairn_version="0.1.0",
    )
    update = {"threshold": threshold, "status": "certified" if threshold is not None else "not_achievable"}
    return cal.model_copy(update={**update, **changes})


def test_report__uncalibrated_all__hand_checked_numbers() -> None:
    report = _build("all")
    assert report.n_cases == 13 and len(report.per_case) == 14  # the stale case is listed, not scored
    assert report.retrieval.n_with_support == 9
    assert report.retrieval.recall_at_k == pytest.approx({"1": 3 / 9, "3": 5 / 9, "5": 7 / 9, "10": 7 / 9})
    assert report.retrieval.mrr == pytest.approx((1 + 1 / 2 + 1 / 3 + 0 + 1 + 0 + 1 / 4 + 1 + 1 / 5) / 9)
    assert report.answer.exact_match == pytest.approx(4 / 7)
    assert report.answer.token_f1 == pytest.approx(6.1 / 7)
    assert report.answer.judge_score is None
    assert report.answer.citation_validity == pytest.approx(9 / 11)
    assert report.answer.faithfulness == pytest.approx(5 / 7)
    ab = report.abstention
    assert (ab.answer_rate, ab.error_rate_answered) == pytest.approx((9 / 13, 4 / 9))
    assert ab.guarantee_met is False and ab.threshold is None
    assert (ab.unanswerable_abstained_rate, ab.answerable_answered_rate) == pytest.approx((0.5, 7 / 9))
    assert report.notes.threshold_source == UNCALIBRATED and not report.notes.calibrated
    assert report.notes.counts == {
        "answered": 9,
        "abstained": 3,
        "error": 1,
        "stale": 1,
        "abstained_by_threshold": 0,
        "answered_unjudged": 0,
        "never_retrieved": 2,
    }
    assert "never a promotion decision" in report.notes.promotion
    assert_aggregates_recompute(report, GOLDEN)


def test_report__notes_carry_context_and_gate_policy() -> None:
    notes = _build("all").notes
    assert notes.gate_policy == CONFIG.gate.model_dump(mode="json")
    assert notes.environment is not None and notes.environment.os == "linux"
    assert (notes.judge, notes.rubric_version, notes.provider) == ("lexical", "lexical-v1", "stub")
    assert notes.models_seen == ["stub-extractive-v1"]
    assert (notes.retrieval_mode, notes.retrieval_depth, notes.top_k) == ("bm25", 10, 5)
    assert (
        notes.split_detail is not None and notes.split_detail.n_calibration + notes.split_detail.n_eval == 14
    )
    assert notes.golden_hash == GOLDEN.content_hash


def test_report__per_case_explains_the_row() -> None:
    rows = {r.case_id: r for r in _build("all").per_case}
    assert rows["ret-009"].status == "stale" and rows["ret-009"].error.startswith("stale")
    assert rows["ret-004"].retrieved_support_rank is None  # ranked 12: beyond the depth
    assert [(c.chunk_id, c.rank) for c in rows["ret-001"].cited] == [("policy.md#1", 1), ("other.md#9", None)]
    assert rows["una-002"].correct is False and rows["ret-003"].token_f1 == pytest.approx(0.8)


def test_report__eval_split__only_eval_cases() -> None:
    report = _build("eval")
    assert {r.case_id for r in report.per_case} == set(_split().eval)
    assert report.notes.promotion == ""
    assert_aggregates_recompute(report, GOLDEN)


def test_report__calibrated_threshold_applied_and_recorded() -> None:
    report = _build("all", calibration=_calibration(0.6))
    ab = report.abstention
    assert ab.threshold == 0.6 and report.notes.calibrated
    assert report.notes.threshold_source.startswith("calibrated (threshold 0.6")
    assert report.notes.counts["abstained_by_threshold"] == 3  # ret-006, una-002, una-004
    assert (ab.answer_rate, ab.error_rate_answered) == pytest.approx((6 / 13, 1 / 6))
    assert ab.unanswerable_abstained_rate == 1.0
    assert report.notes.calibration is not None and report.notes.calibration["applied"] is True
    assert_aggregates_recompute(report, GOLDEN)


def test_report__not_achievable_calibration__model_flag_with_reason() -> None:
    report = _build("all", calibration=_calibration(None))
    assert report.abstention.threshold is None and not report.notes.calibrated
    assert report.notes.threshold_source.startswith(UNCALIBRATED + "; calibration not achievable")


def test_report__stale_calibration__not_applied_and_says_what_changed() -> None:
    report = _build("all", calibration=_calibration(0.6, system_hash="f" * 16, alpha=0.1))
    assert report.abstention.threshold is None
    assert "calibration is stale" in report.notes.threshold_source
    assert "system" in report.notes.threshold_source and "alpha" in report.notes.threshold_source


def test_report__gate_policy_edit_does_not_invalidate_calibration() -> None:
    edited = CONFIG.model_copy(update={"gate": CONFIG.gate.model_copy(update={"max_p_value": 0.01})})
    cal = _calibration(0.6)
    header = RUN.header.model_copy(update={"config_hash": config_hash(edited)})
    report = build_report(
        header=header,
        records=RUN.records,
        golden=GOLDEN,
        config=edited,
        split=_split(),
        which="all",
        calibration=cal,
        created_at=CREATED,
        cairn_version="0.1.0",
    )
    assert report.notes.calibrated
    assert report.notes.gate_policy["max_p_value"] == 0.01


def test_report__run_from_another_config__refused() -> None:
    other = Config(name="fixture", calibration=CalibrationConfig(alpha=0.1))
    with pytest.raises(DataError, match="config hash"):
        _build("all", config=other)


def test_report__missing_case_of_split__refused_with_ids() -> None:
    with pytest.raises(DataError, match=r"no record for 1 case\(s\) of split all: ret-001"):
        _build("all", records=[r for r in RUN.records if r.case_id != "ret-001"])


def test_report__record_for_unknown_case__refused() -> None:
    stray = RUN.records[0].model_copy(update={"case_id": "zzz-999"})
    with pytest.raises(DataError, match="not in"):
        _build("all", records=[*RUN.records, stray])


def test_report__run_of_other_golden_set__refused() -> None:
    header = RUN.header.model_copy(update={"golden_version": "fixture-0"})
    with pytest.raises(DataError, match="golden set version fixture-0"):
        build_report(
            header=header,
            records=RUN.records,
            golden=GOLDEN,
            config=CONFIG,
            split=_split(),
            which="all",
            calibration=None,
            created_at=CREATED,
            cairn_version="0.1.0",
        )


def test_report__budget_check() -> None:
    tight = Config(name="fixture", budget={"max_cost_usd": 0.001})
    header = RUN.header.model_copy(update={"config_hash": config_hash(tight)})
    report = build_report(
        header=header,
        records=RUN.records,
        golden=GOLDEN,
        config=tight,
        split=_split(),
        which="all",
        calibration=None,
        created_at=CREATED,
        cairn_version="0.1.0",
    )
    assert report.notes.budget.exceeded and report.notes.budget.max_cost_usd == 0.001
    assert report.notes.budget.spent_usd == pytest.approx(report.operational.cost_usd_total)


@pytest.mark.parametrize(
    ("section", "field", "value"),
    [
        ("retrieval", "mrr", 0.5),
        ("answer", "token_f1", 0.9),
        ("abstention", "answer_rate", 0.7),
        ("operational", "latency_p95_ms", 1.0),
    ],
)
def test_recompute__detects_a_tampered_aggregate(section: str, field: str, value: float) -> None:
    report = _build("all")
    block = getattr(report, section).model_copy(update={field: value})
    with pytest.raises(AssertionError):
        assert_aggregates_recompute(report.model_copy(update={section: block}), GOLDEN)


def test_report__hybrid_run_with_rewrite_and_rerank__notes_say_so_and_name_the_model() -> None:
    hybrid = CONFIG.model_copy(update={"retrieval": CONFIG.retrieval.model_copy(update={"mode": "hybrid"})})
    model = "all-MiniLM-L6-v2 sha256:" + "ab" * 32
    header = RUN.header.model_copy(
        update={
            "config_hash": config_hash(hybrid, model),
            "retrieval_mode": "hybrid",
            "embedding_model": model,
            "query_rewriting": True,
            "reranker": True,
        }
    )
    args = {
        "records": RUN.records,
        "golden": GOLDEN,
        "split": _split(),
        "which": "all",
        "calibration": None,
        "created_at": CREATED,
        "cairn_version": "0.1.0",
    }
    report = build_report(header=header, config=hybrid, **args)  # type: ignore[arg-type]
    assert (report.notes.retrieval_mode, report.notes.query_rewriting, report.notes.reranker) == (
        "hybrid",
        True,
        True,
    )
    assert report.notes.extra["embedding_model"] == model
    other_file = header.model_copy(update={"embedding_model": "all-MiniLM-L6-v2 sha256:" + "cd" * 32})
    with pytest.raises(DataError, match="config hash"):  # another model file is another experiment
        build_report(header=other_file, config=hybrid, **args)  # type: ignore[arg-type]


def test_report__split_all_without_calibration__promotion_note_claims_no_fitted_threshold() -> None:
    note = _build("all").notes.promotion
    assert note == PROMOTION_ALL_UNCALIBRATED
    assert "the threshold was fitted" not in note  # nothing was fitted: no calibration file


def test_report__split_all_with_calibration__promotion_note_says_the_threshold_was_fitted_on_some() -> None:
    assert _build("all", calibration=_calibration(0.6)).notes.promotion == PROMOTION_ALL
