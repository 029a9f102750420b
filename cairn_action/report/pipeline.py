"""From a finished run to files: the report (`cairn eval`, `cairn score`) and the calibration
(`cairn calibrate`). Reads the golden set and the committed calibration, writes the outputs; the caller
passes the clock's reading and where the run came from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cairn_action.config import Config, LoadedConfig
from cairn_action.errors import DataError
from cairn_action.files import is_dir
from cairn_action.golden.load import load_golden
from cairn_action.golden.models import GoldenSet
from cairn_action.golden.split import GoldenSplit, SplitName, split_golden
from cairn_action.index.corpus import load_corpus
from cairn_action.report.build_report import (
    build_report,
    check_records_match,
    check_run_matches,
    select_records,
)
from cairn_action.report.io import (
    read_calibration,
    report_paths,
    report_text,
    write_calibration,
    write_report,
    write_text_atomic,
)
from cairn_action.report.models import Report
from cairn_action.run.models import LoadedRun
from cairn_action.score.calibration.committed import CalibrationFile
from cairn_action.score.calibration.from_run import calibrate
from cairn_action.score.calibration.threshold import Procedure
from cairn_action.score.judge_check import JudgeCheck, check_path, read_check


def check_corpus_matches(loaded: LoadedConfig, run: LoadedRun, corpus_hash: str | None = None) -> None:
    """Refuse a run whose header names another corpus than the config's, when that corpus is here to be
    hashed: the report would carry the header's corpus_hash, and the gate trusts it. `corpus_hash`: the
    hash of the config's corpus as the caller has just read it (`cairn eval` in this process: reading
    and hashing it again was half of a warm eval on ten handbooks); None reads it here."""
    if corpus_hash is None:
        if not is_dir(loaded.corpus_dir):
            return  # scoring on a machine without the documents: the golden set and config are checked
        corpus_hash = load_corpus(loaded.corpus_dir).corpus_hash
    if corpus_hash != run.header.corpus_hash:
        raise DataError(
            f"{run.where}: the run's corpus_hash {run.header.corpus_hash[:16]} is not that of "
            f"{loaded.corpus_dir} ({corpus_hash[:16]})",
            "score a run with the corpus it was made on (--corpus DIR), or run `cairn eval` again",
        )


def split_of(golden: GoldenSet, loaded: LoadedConfig) -> GoldenSplit:
    calibration = loaded.config.calibration
    return split_golden(golden, seed=calibration.seed, fraction=calibration.fraction)


@dataclass(frozen=True)
class WrittenReport:
    report: Report
    kept: Path
    latest: Path | None
    """reports/latest/<config>.json, the baseline; only an eval-split report becomes it."""


def score_run(
    loaded: LoadedConfig,
    run: LoadedRun,
    *,
    which: SplitName,
    created_at: str,
    cairn_version: str,
    corpus_hash: str | None = None,
    golden: GoldenSet | None = None,
) -> Report:
    """Score `run` over slice `which` with the committed calibration; writes nothing. `corpus_hash`: see
    `check_corpus_matches`. `golden`: the set at `loaded.golden_path` as this process has just read it
    whole (`cairn eval` after its run), instead of reading it again; one without its answers (a sealed
    set's questions) is read again with the key."""
    if golden is None or not golden.answers_held:
        golden = load_golden(loaded.golden_path)
    check_corpus_matches(loaded, run, corpus_hash)
    check_records_match(run.header, run.records, golden, where=run.where)
    report = build_report(
        header=run.header,
        records=run.records,
        golden=golden,
        config=loaded.config,
        split=split_of(golden, loaded),
        which=which,
        calibration=read_calibration(loaded.calibration_path),
        created_at=created_at,
        cairn_version=cairn_version,
        where=run.where,
    )
    return with_judge_check(report, read_check(check_path(loaded.source, loaded.base_dir)), loaded.config)


def with_judge_check(report: Report, check: JudgeCheck | None, config: Config) -> Report:
    """The report with the judge check recorded when it measured the judge that judged this run (a check
    of another judge, or of an older rule version, does not validate this one) and `[judge] min_kappa`."""
    if check is not None and check.judge != report.notes.judge:
        check = None
    notes = report.notes.model_copy(update={"judge_check": check, "judge_min_kappa": config.judge.min_kappa})
    return report.model_copy(update={"notes": notes})


def report_from_run(
    loaded: LoadedConfig,
    run: LoadedRun,
    *,
    which: SplitName,
    reports_dir: Path,
    created_at: str,
    cairn_version: str,
    corpus_hash: str | None = None,
    golden: GoldenSet | None = None,
) -> WrittenReport:
    """Score `run` over slice `which` with the committed calibration, and write both report files."""
    report = score_run(
        loaded,
        run,
        which=which,
        created_at=created_at,
        cairn_version=cairn_version,
        corpus_hash=corpus_hash,
        golden=golden,
    )
    if which != "eval":
        # The baseline a pull request is gated against is an eval-split report: a calibration or `all`
        # report in reports/latest would make the next gate refuse (another split) and split the leaderboard.
        kept, _ = report_paths(reports_dir / which, report)
        write_text_atomic(kept, report_text(report))
        return WrittenReport(report=report, kept=kept, latest=None)
    kept, latest = write_report(report, reports_dir)
    return WrittenReport(report=report, kept=kept, latest=latest)


def calibration_from_run(
    loaded: LoadedConfig,
    run: LoadedRun,
    *,
    created_at: str,
    cairn_version: str,
    procedure: Procedure = "fixed-sequence",
) -> tuple[CalibrationFile, Path]:
    """Fit the threshold on the run's calibration-slice records and write the calibration file."""
    golden = load_golden(loaded.golden_path)
    check_run_matches(run.header, golden, loaded.config, where=run.where)
    check_corpus_matches(loaded, run)
    check_records_match(run.header, run.records, golden, where=run.where)
    split = split_of(golden, loaded)
    # One sample per case: the guarantee is over cases, and a case's repeats are not new cases.
    records = [
        r for r in select_records(run.records, golden, split, "calibration", where=run.where) if r.sample == 0
    ]
    calibration = calibrate(
        records,
        golden.by_id(),
        config=loaded.config,
        corpus_hash=run.header.corpus_hash,
        golden_version=golden.version,
        golden_hash=golden.content_hash,
        split=split.summary(),
        created_at=created_at,
        cairn_version=cairn_version,
        source_runs=[Path(s).name for s in run.sources],
        procedure=procedure,
    )
    path = loaded.calibration_out_path
    write_calibration(calibration, path)
    return calibration, path


def calibration_lines(calibration: CalibrationFile) -> list[str]:
    """What `cairn calibrate` prints: the verdict, the tested path, and advice when not achievable."""
    head = (
        f"calibration slice: {calibration.n_calibration} cases ({calibration.n_with_confidence} answered "
        f"by the model with a confidence); alpha {calibration.alpha:g}, delta {calibration.delta:g}, "
        f"k_min {calibration.k_min}"
    )
    lines = [head]
    for step in calibration.path:
        verdict = "accept" if step.accepted else "stop"
        lines.append(
            f"  threshold {step.threshold:g}: {step.errors} wrong of {step.answered}, "
            f"p = {step.p_value:.4f}, bound {step.upper_bound:.3f} -> {verdict}"
        )
    if calibration.status == "certified":
        lines.append(f"certified: threshold {calibration.threshold:g}; {calibration.reason}")
    else:
        lines.append(f"not achievable: {calibration.reason}")
        lines += [f"  to make it achievable: {a}" for a in calibration.advice]
        lines.append("  `cairn eval` will use the model's own abstain flag and report no guarantee")
    return lines
