"""`cairn judge check LABELS`: the configured judge measured against human verdicts (score/judge_check.py)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from cairn_action.errors import DataError, ExitCode, InfrastructureError

if TYPE_CHECKING:
    from cairn_action.run.graded import Judged
    from cairn_action.score.judge_check import Label


def cmd_judge_check(args: argparse.Namespace) -> int:
    from cairn_action.commands.common import load_config_args, utc_now
    from cairn_action.golden.load import load_golden
    from cairn_action.providers.build_providers import build_llm_judge
    from cairn_action.providers.services import ProviderServices
    from cairn_action.report.io import write_text_atomic
    from cairn_action.run.cache import ResultCache
    from cairn_action.run.graded import draws_for, judge_answer
    from cairn_action.run.judge import LexicalJudge
    from cairn_action.score.judge_check import check_path, disagreements, measure, read_labels

    cwd = Path.cwd()
    loaded = load_config_args(args, cwd)
    labels, digest = read_labels(args.labels)
    cases = load_golden(loaded.golden_path).by_id()
    for label in labels:
        case = cases.get(label.case_id)
        if case is None:
            raise DataError(
                f"{args.labels}:{label.line}: case {label.case_id} is not in {loaded.golden_path}",
                "label answers to cases of the config's golden set (`cairn show CASE` lists a recorded one)",
            )
        if not case.answerable:
            raise DataError(
                f"{args.labels}:{label.line}: case {label.case_id} is unanswerable: the judge grades answers "
                "to answerable cases only",
                "leave unanswerable cases out of the labels (abstaining is scored without the judge)",
            )
    config = loaded.config
    services = ProviderServices.from_config(config, env=os.environ, warn=print)
    judge: object
    if config.judge.name == "lexical":
        judge = LexicalJudge(config.judge.f1_threshold)
    else:
        judge = build_llm_judge(config.judge, config.provider, os.environ, services)
    name = str(getattr(judge, "label", config.judge.name))
    # Graded as an evaluation grades every sample (run/evaluation.py): a judge that is not deterministic by
    # the majority of up to JUDGE_DRAWS draws (run/graded.py draws_for). A check of one draw would measure a
    # judge the gate never uses.
    draws = draws_for(judge)
    cache = ResultCache(loaded.cache_dir)

    def grade(label: Label) -> Judged:
        case = cases[label.case_id]
        return judge_answer(judge, cache, case, label.answer, time.perf_counter, sample=0, draws=draws)  # type: ignore[arg-type]

    # Graded [run] max_concurrency at a time, as an evaluation asks its cases: 200 labels at 2 to 3 draws
    # each are hundreds of calls to the judge's model. The lexical judge is local: one thread.
    workers = 1 if isinstance(judge, LexicalJudge) else max(1, min(config.run.max_concurrency, len(labels)))
    if workers > 1:
        print(f"grading {len(labels)} labels with {name}, {workers} at a time", file=sys.stderr)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        graded = list(pool.map(grade, labels))
    for label, judged in zip(labels, graded, strict=True):
        if judged.error is not None or judged.verdict is None:
            raise InfrastructureError(
                f"{args.labels}:{label.line}: the judge could not grade this answer: {judged.error}",
                "check the judge's provider settings and key, then run it again (graded answers are cached)",
            )
    verdicts = [judged.verdict.correct is True for judged in graded if judged.verdict is not None]
    rationales = [judged.verdict.rationale for judged in graded if judged.verdict is not None]
    check = measure(
        [label.human for label in labels],
        verdicts,
        judge_name=name,
        labels=str(args.labels),
        sha256=digest,
        created_at=utc_now(),
        draws=draws,
    )
    path = check_path(loaded.source, loaded.base_dir)
    write_text_atomic(path, check.model_dump_json(indent=2) + "\n")
    for line in _lines(check):
        print(line)
    for line in disagreements(str(args.labels), labels, verdicts, rationales):
        print(line)
    print(f"judge check written: {path} (recorded in every report's notes; [judge] min_kappa gates on it)")
    return ExitCode.PASS


def _lines(check: object) -> list[str]:
    from cairn_action.score.judge_check import JudgeCheck

    assert isinstance(check, JudgeCheck)

    def share(value: float | None, low: float | None, high: float | None, k: int, n: int) -> str:
        if value is None or low is None or high is None:
            return f"undefined (no labels of that kind, {k} of {n})"
        return f"{value:.1%} ({k} of {n}; 95% Wilson {low:.1%} to {high:.1%})"

    kappa = "undefined (one label throughout)" if check.kappa is None else f"{check.kappa:.2f}"
    positives = check.true_positive + check.false_negative
    negatives = check.true_negative + check.false_positive
    graded = f", each answer's verdict the majority of up to {check.draws} draws" if check.draws > 1 else ""
    return [
        f"{check.n} labels, judge {check.judge}{graded}",
        "TPR (right when a human says right): "
        + share(check.tpr, check.tpr_low, check.tpr_high, check.true_positive, positives),
        "TNR (wrong when a human says wrong): "
        + share(check.tnr, check.tnr_low, check.tnr_high, check.true_negative, negatives),
        f"raw agreement {check.agreement:.1%}, Cohen's kappa {kappa}",
    ]
