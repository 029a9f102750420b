"""`cairn calibrate`'s pure part: calibration-slice records -> the committed CalibrationFile."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cairn_action.config import Config, config_hash
from cairn_action.golden.models import GoldenCase
from cairn_action.golden.split import SplitSummary
from cairn_action.run.models import CaseRecord
from cairn_action.score.calibration.committed import CalibrationFile, steps_of, system_hash
from cairn_action.score.calibration.threshold import Procedure, advise, fit_split, fit_threshold
from cairn_action.score.outcome import calibration_inputs


def calibrate(
    records: Sequence[CaseRecord],
    cases: Mapping[str, GoldenCase],
    *,
    config: Config,
    corpus_hash: str,
    golden_version: str,
    golden_hash: str,
    split: SplitSummary,
    created_at: str,
    cairn_version: str,
    source_runs: Sequence[str] = (),
    procedure: Procedure = "fixed-sequence",
) -> CalibrationFile:
    """Fit the threshold on the calibration slice's `records` for the config's alpha and delta;
    `procedure` `split`: fixed sequence and Bonferroni at delta / 2 each (`fit_split`; its reason says so)."""
    confidences, wrong = calibration_inputs(records, dict(cases))
    alpha, delta = config.calibration.alpha, config.calibration.delta
    fit = (fit_split if procedure == "split" else fit_threshold)(confidences, wrong, alpha=alpha, delta=delta)
    return CalibrationFile(
        cairn_version=cairn_version,
        created_at=created_at,
        config_name=config.name,
        config_hash=config_hash(config),
        system_hash=system_hash(config),
        corpus_hash=corpus_hash,
        golden_version=golden_version,
        golden_hash=golden_hash,
        alpha=alpha,
        delta=delta,
        status=fit.status,
        threshold=fit.threshold,
        k_min=fit.k_min,
        start=fit.start,
        start_rule=fit.start_rule,
        n_calibration=fit.n,
        n_with_confidence=fit.n_with_confidence,
        answered=fit.answered,
        errors=fit.errors,
        upper_bound=fit.upper_bound,
        coverage=fit.coverage,
        reason=fit.reason,
        advice=advise(fit, confidences, wrong, fraction=config.calibration.fraction)
        if procedure == "fixed-sequence" or fit.status == "certified"
        else [
            "the advice is worked out for fixed-sequence testing at the full delta: calibrate with "
            "--procedure fixed-sequence to see what would make this slice achievable"
        ],
        path=steps_of(fit),
        split=split,
        source_runs=list(source_runs),
    )
