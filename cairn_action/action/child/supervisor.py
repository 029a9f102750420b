"""The evaluation behind every mode: the run in a child process, the scoring and the gate in this one.

The run executes the system under test, which may be the pull request's own code (`target =
"python:..."` imports it). In the Action's process that code could replace the gate's functions and
read the token. So the run is `python -I -m cairn_action eval --run-only` in a child: as another user
when this process is root, with a minimal environment, writing its artifact and response cache into a
fresh scratch folder outside the workspace (sandbox.py says why each matters). This process reads the
artifact, judges every answer with the trusted config's judge (judging.py), decides which changed cases
need more samples and has the child ask them, scores and gates, importing nothing from the workspace.
The judged artifact is written to `cairn-results/<config>/run.jsonl`, for upload only: nothing reads it
back.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from cairn_action import __version__
from cairn_action.action.child.sandbox import Identity, Scratch, child_environment
from cairn_action.action.judging import JUDGE_CACHE, TrustedJudge, judge_records
from cairn_action.action.runtime import AttackRun, Evaluate
from cairn_action.action.trust import Grants, Trusted, check_key_names, check_routes
from cairn_action.config import SAMPLE_CORPUS_DIR, Config, LoadedConfig
from cairn_action.errors import CairnError, DataError, ExitCode, InfrastructureError, InternalError
from cairn_action.files import write_text
from cairn_action.gh.workflow import Workflow
from cairn_action.golden.sealed import sealed_files
from cairn_action.report.io import read_report
from cairn_action.report.models import Report
from cairn_action.report.pipeline import LoadedRun, report_from_run
from cairn_action.run.artifact import read_artifact, write_artifact
from cairn_action.run.graded import JUDGE_DRAWS
from cairn_action.run.models import CaseRecord

EVAL_SPLIT = "eval"
"""The split `cairn eval` measures by default, so the Action's reports compare with hand-made ones."""


def sample_corpus(loaded: LoadedConfig, workdir: Path, scratch: Scratch) -> Path | None:
    """The generated sample corpus, written by this process into the scratch folder (the child cannot
    write the checkout, and a pull request's `data/sample` is not the sample)."""
    if loaded.corpus_dir.resolve() != (workdir / SAMPLE_CORPUS_DIR).resolve():
        return None
    from cairn_action.sample.generate import ensure_sample_corpus

    path = scratch.root / "sample"
    ensure_sample_corpus(path)
    for folder in [path, *(p for p in path.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    return path


def _raise_for(code: int, last: str, what: str) -> None:
    if code == ExitCode.PASS:
        return
    message = f"{what} failed (exit {code}): {last[:300]}"
    if code == ExitCode.USAGE:
        raise CairnError(message, "see the evaluation's log above")
    if code == ExitCode.INTERNAL:  # a bug, not an outage: the step fails as an internal error
        raise InternalError(message)
    raise InfrastructureError(message, "see the evaluation's log above, and re-run the job")


def run_child(
    argv: list[str], *, workdir: Path, env: Mapping[str, str], identity: Identity, workflow: Workflow
) -> tuple[int, str]:
    """`python -I -m cairn_action ARGV...` as `identity`, with exactly `env`; (exit code, last line)."""
    user = {"user": identity.uid, "group": identity.gid, "extra_groups": []} if identity.isolated else {}
    last = ""
    with workflow.untrusted():  # the log names the pull request's documents and cases
        with subprocess.Popen(
            [sys.executable, "-I", "-m", "cairn_action", *argv],
            cwd=workdir,
            env=dict(env),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            **user,  # type: ignore[arg-type]
        ) as child:
            assert child.stdout is not None
            for line in child.stdout:
                workflow.write_raw(line)
                last = line.strip() or last
            code = child.wait()
        workflow.stream.flush()
    return code, last


def _keep(artifact: Path, results_dir: Path, name: str) -> None:
    """A copy for the upload (paid work included); nothing reads it back."""
    if artifact.is_file():
        (results_dir / name).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(artifact, results_dir / name / artifact.name)


def sandboxed(
    argv: list[str],
    loaded: LoadedConfig,
    artifact: Path,
    *,
    env: Mapping[str, str],
    workdir: Path,
    scratch: Scratch,
    workflow: Workflow,
    results_dir: Path,
    grants: Grants,
) -> None:
    """Run `cairn ARGV --config <loaded's file>` in the isolated child (its environment and user from
    `scratch`, its variables the workflow's `grants`), then keep a copy of its `artifact` for the upload
    whatever happened; a failure raises with the exit code's meaning."""
    what = "the attack run" if artifact.name.startswith("attack") else "the evaluation"
    if loaded.source is not None:
        argv = [*argv, "--config", str(loaded.source)]
    try:
        code, last = run_child(
            argv,
            workdir=workdir,
            env=child_environment(env, grants.variables, scratch),
            identity=scratch.identity,
            workflow=workflow,
        )
    finally:
        _keep(artifact, results_dir, loaded.config.name)
    _raise_for(code, last, f"{what} of {loaded.config.name}")


def attack_runner(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path, Scratch], AttackRun]:
    """`cairn attack` for the Action (`attack: true`): the probes are asked in the same isolated child
    as the evaluation (`attack --run-only`, its artifact in the scratch folder), and checked and scored
    here from its artifact, so the pull request's code supplies answers, never verdicts. The report goes
    to `cairn-results/<config>/`."""

    def bind(workdir: Path, results_dir: Path, scratch: Scratch, grants: Grants) -> AttackRun:
        def attack(loaded: LoadedConfig) -> Path:
            from cairn_action.attack.execute import score_attack_artifact
            from cairn_action.attack.io import write_attack_report
            from cairn_action.attack.score import build_attack_report

            name = loaded.config.name
            if sealed_files(loaded.golden_path) is not None:
                # The probes are built from the golden set's answers in the child, which never holds them.
                raise DataError(
                    f"input 'attack': {loaded.golden_path} is sealed, and the attack probes are built from "
                    "its answers in the evaluation, which never holds the key",
                    "run `cairn attack` where the key is, and leave `attack` off for a sealed set",
                )
            # The same grant rule as the evaluation's. Its endpoint rule needs the base's config: PR mode
            # evaluates each config (this module's evaluator calls trust.py's check_routes) before it runs
            # the probes.
            check_key_names(loaded, list(grants.variables))
            artifact = scratch.artifact(name, "attack-run.jsonl")
            argv = ["attack", "--run-only", "--no-progress", "--artifact", str(artifact)]
            argv += ["--cache-dir", str(scratch.cache)]
            sandboxed(
                argv,
                loaded,
                artifact,
                env=env,
                workdir=workdir,
                scratch=scratch,
                workflow=workflow,
                results_dir=results_dir,
                grants=grants,
            )
            families = list(loaded.config.attack.families)
            run = score_attack_artifact(loaded, families, artifact)
            report = build_attack_report(
                run,
                config=loaded.config.attack,
                families=families,
                created_at=now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                cairn_version=__version__,
            )
            return write_attack_report(report, results_dir / name)[0]

        return attack

    return bind


_INTERFERES = "check that the target does not interfere with cairn's own process"


def _first_few(items: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def _provisional(loaded: LoadedConfig, run: LoadedRun, created: str) -> Report:
    """The report of the first pass alone (sample 0 of each case): what the confirmation plan reads."""
    from dataclasses import replace

    from cairn_action.report.pipeline import score_run

    first = replace(run, records=tuple(r for r in run.records if r.sample == 0))
    return score_run(loaded, first, which=EVAL_SPLIT, created_at=created, cairn_version=__version__)


def _samples(run: LoadedRun) -> dict[str, int]:
    found: dict[str, set[int]] = {}
    for record in run.records:
        found.setdefault(record.case_id, set()).add(record.sample)
    return {case: len(s) for case, s in found.items()}


def _shortfall(loaded: LoadedConfig, run: LoadedRun, baseline: Report, created: str) -> dict[str, int]:
    """Case id -> total asks still wanted: the baseline policy's re-asks of every case whose verdict (the
    trusted judge's) differs from the baseline's, where the artifact holds fewer."""
    from cairn_action.gate import policy_of
    from cairn_action.gate.confirm import unconfirmed

    extra = policy_of(baseline, source="the baseline").confirm_samples
    short = unconfirmed(baseline, _provisional(loaded, run, created), extra=extra, samples=_samples(run))
    return {case: 1 + extra for case in short}


def _flaky_round(loaded: LoadedConfig, run: LoadedRun, baseline: Report, created: str) -> dict[str, int]:
    """Case id -> total asks wanted for each confirmed case whose samples (the trusted judge's verdicts)
    still disagree and still differ from the baseline's: gate/confirm.py's flaky_plan."""
    from cairn_action import __version__
    from cairn_action.gate import policy_of
    from cairn_action.gate.confirm import confirmation_plan, flaky_plan
    from cairn_action.report.pipeline import score_run

    extra = policy_of(baseline, source="the baseline").confirm_samples
    planned = confirmation_plan(baseline, _provisional(loaded, run, created), extra=extra, asked={})
    scored = score_run(loaded, run, which=EVAL_SPLIT, created_at=created, cairn_version=__version__)
    have = _samples(run)
    more = flaky_plan(baseline, scored, planned, extra=extra)
    return {case: n for case, n in more.items() if have.get(case, 0) < n}


def _check_confirmed(loaded: LoadedConfig, run: LoadedRun, baseline: Report, created: str) -> None:
    """Refuse (exit 3, incomplete) a run whose changed cases lack the re-asks the baseline's policy
    requires. The plan is this process's (from the trusted judge's verdicts); the child, which runs the
    pull request's code, was asked for them and may not have made them."""
    short = _shortfall(loaded, run, baseline, created)
    if short:
        have = _samples(run)
        cases = [f"{case} ({have.get(case, 0)} of {n})" for case, n in sorted(short.items())]
        raise InfrastructureError(
            f"incomplete: the evaluation of {loaded.config.name} did not re-ask {len(short)} case(s) whose "
            f"verdict differs from the baseline's as often as its policy requires: {_first_few(cases)}",
            "a gate on one sample of a changed case would be a coin toss; rerun the job, and if it "
            "recurs " + _INTERFERES,
        )


def answerer_is_deterministic(loaded: LoadedConfig) -> bool:
    """Known here, not taken from the child's header (the child runs the pull request's code): only the
    built-in stub answers the same way every time."""
    return loaded.config.target is None and loaded.config.provider.name == "stub"


def leave_out(records: Sequence[CaseRecord], reasons: Mapping[str, str]) -> list[CaseRecord]:
    """Each record of a case in `reasons` as the run records a stale case (status and why), keeping only
    what its calls cost: the answer is not evidence, but the money was spent."""
    return [
        CaseRecord(
            case_id=r.case_id,
            sample=r.sample,
            golden_line=r.golden_line,
            answerable=r.answerable,
            status="stale",
            error=reasons[r.case_id],
            calls=r.calls,
            usage=r.usage,
            cost_usd=r.cost_usd,
            latency_ms=r.latency_ms,
        )
        if r.case_id in reasons
        else r
        for r in records
    ]


def judge_run(
    loaded: LoadedConfig,
    artifact: Path,
    judge: TrustedJudge,
    *,
    env: Mapping[str, str],
    cache_dir: Path,
    workflow: Workflow,
    left_out: Mapping[str, str],
    corpus_dir: Path | None = None,
    draws: int = JUDGE_DRAWS,
) -> LoadedRun:
    """The artifact's records with every answer judged here by `judge`, and a header that says so (the
    judge's label; `deterministic` known here, never taken from the artifact); the `left_out` cases'
    records made stale first (never judged, never scored). A sealed set's run gets its support located
    here first (run/sealed.py), in `corpus_dir` (default: the config's corpus)."""
    from cairn_action.golden.load import load_golden

    found = read_artifact(artifact)
    golden = load_golden(loaded.golden_path)  # a sealed set opens with this process's key, never the child's
    records = list(found.records)
    if found.header.sealed:  # the child held only the questions: support and staleness are found here
        from cairn_action.index.corpus import load_corpus
        from cairn_action.run.sealed import locate_sealed

        corpus = load_corpus(corpus_dir or loaded.corpus_dir)
        records = locate_sealed(records, golden, corpus, loaded.config.gate.critical_tags)
    records, label = judge_records(
        judge,
        leave_out(records, left_out),
        golden.by_id(),
        env=env,
        cache_dir=cache_dir,
        warn=lambda message: workflow.warning(message, title="Cairn: judge"),
        draws=draws,
    )
    deterministic = answerer_is_deterministic(loaded) and judge.deterministic
    header = found.header.model_copy(update={"judge": label, "deterministic": deterministic})
    where = f"run of {loaded.config.name}"
    return LoadedRun(header=header, records=tuple(records), where=where, sources=(str(artifact),))


def finish(
    loaded: LoadedConfig,
    run: LoadedRun,
    base: Report | None,
    *,
    created: str,
    reports_dir: Path,
    results_dir: Path,
) -> Report:
    """The judged run checked (the baseline policy's re-asks present; not every case failed), kept for
    the upload as `cairn-results/<config>/run.jsonl`, and scored into the report."""
    name = loaded.config.name
    if base is not None and not run.header.deterministic:
        _check_confirmed(loaded, run, base, created)
    first_pass = [r for r in run.records if r.sample == 0]
    failed = [r for r in first_pass if r.status == "error"]
    if first_pass and len(failed) == len(first_pass):
        raise InfrastructureError(
            f"every case of {name} failed; the run artifact lists why",
            "check the provider's settings and its API key secret (the `env` input)",
        )
    if not run.header.sealed:  # a sealed run's verdicts and answerability are the key's: not uploaded
        write_artifact(results_dir / name / "run.jsonl", run.header, run.records)
    written = report_from_run(
        loaded, run, which=EVAL_SPLIT, reports_dir=reports_dir, created_at=created, cairn_version=__version__
    )
    return written.report


def evaluator(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path, Scratch, Grants], Evaluate]:
    """`cairn eval` for the Action: the run goes to the scratch folder (copied to
    `cairn-results/<config>/run.jsonl` for upload), every answer is judged here by the trusted config's
    judge (action/judging.py), and the report is built without touching `reports/` (each mode decides what
    to write)."""

    def bind(workdir: Path, results_dir: Path, scratch: Scratch, grants: Grants) -> Evaluate:
        def child_run(loaded: LoadedConfig, argv: list[str], artifact: Path) -> None:
            sandboxed(
                argv,
                loaded,
                artifact,
                env=env,
                workdir=workdir,
                scratch=scratch,
                workflow=workflow,
                results_dir=results_dir,
                grants=grants,
            )

        def judged(
            loaded: LoadedConfig,
            artifact: Path,
            judge: TrustedJudge,
            trusted: Trusted,
            corpus: Path | None,
            draws: int = JUDGE_DRAWS,
        ) -> LoadedRun:
            cache_dir = scratch.root / JUDGE_CACHE
            return judge_run(
                loaded,
                artifact,
                judge,
                env=env,
                cache_dir=cache_dir,
                workflow=workflow,
                left_out=trusted.left_out,
                corpus_dir=corpus,
                draws=draws,
            )

        def evaluate(loaded: LoadedConfig, baseline: Path | None = None, *, trusted: Trusted) -> Report:
            name = loaded.config.name
            check_key_names(loaded, list(grants.variables))
            check_routes(loaded, trusted.config, grants.allowed_endpoints, trusted_where=trusted.where)
            judge = TrustedJudge(config=trusted.config or Config(), where=trusted.where)
            artifact = scratch.artifact(name)
            mode = "deterministic" if judge.deterministic else "sampled"
            # A sealed set's split needs its key, which the child never holds: it runs every case, and
            # this process scores the eval split and plans every re-ask (golden/sealed.py).
            sealed = sealed_files(loaded.golden_path) is not None
            split = "all" if sealed else EVAL_SPLIT
            argv = ["eval", "--run-only", "--no-progress", "--split", split, "--artifact", str(artifact)]
            argv += ["--cache-dir", str(scratch.cache), "--judged-by-caller", mode]
            corpus = sample_corpus(loaded, workdir, scratch)
            if corpus is not None:
                argv += ["--corpus", str(corpus)]
            base, first = None, argv
            if baseline is not None:
                base = read_report(baseline)
            if (
                baseline is not None and not sealed
            ):  # the base's copy, where the evaluation's user can read it
                copy = scratch.run / f"{name}.baseline.json"
                shutil.copyfile(baseline, copy)
                copy.chmod(0o644)
                first = [*argv, "--baseline", str(copy)]
            child_run(loaded, first, artifact)
            # Every sample, on every side, is judged by a majority of draws (run/graded.py).
            run = judged(loaded, artifact, judge, trusted, corpus)
            created = now().strftime("%Y-%m-%dT%H:%M:%SZ")
            if base is not None and not run.header.deterministic:
                # The child chose its re-asks from placeholder verdicts; the trusted judge's may differ,
                # so this process plans them and has the child make what is missing.
                wanted = _shortfall(loaded, run, base, created)
                plan = scratch.run / f"{name}.confirm-plan.json"
                if wanted:
                    write_text(plan, json.dumps(wanted), what="the confirmation plan", durable=False)
                    plan.chmod(0o644)
                    child_run(loaded, [*argv, "--confirm-plan", str(plan)], artifact)
                    run = judged(loaded, artifact, judge, trusted, corpus)
                # Known-flaky changed cases (samples split, still differing) get more samples (issue 23).
                more = _flaky_round(loaded, run, base, created)
                if more:
                    write_text(plan, json.dumps(more), what="the confirmation plan", durable=False)
                    plan.chmod(0o644)
                    child_run(loaded, [*argv, "--confirm-plan", str(plan)], artifact)
                    run = judged(loaded, artifact, judge, trusted, corpus)
            return finish(
                loaded,
                run,
                base,
                created=created,
                reports_dir=scratch.root / name / "reports",
                results_dir=results_dir,
            )

        return evaluate

    return bind
