"""The evaluation behind every mode: the run in a child process, the scoring and the gate in this one.

The run executes the system under test, which may be the pull request's own code (`target =
"python:..."` imports it). In the Action's process that code could replace the gate's functions and
read the token. So the run is `python -I -m cairn_action eval --run-only` in a child: as another user
when this process is root, with a minimal environment, writing its artifact and response cache into a
fresh scratch folder outside the workspace (sandbox.py says why each matters). This process reads the
artifact, scores it and gates, importing nothing from the workspace. The artifact is copied into
`cairn-results/<config>/run.jsonl` afterwards, for upload only: nothing reads it back.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from cairn_action import __version__
from cairn_action.config import SAMPLE_CORPUS_DIR, LoadedConfig
from cairn_action.errors import CairnError, DataError, ExitCode, InfrastructureError, InternalError
from cairn_action.gh.runtime import AttackRun, Evaluate
from cairn_action.gh.sandbox import Identity, Scratch, child_environment
from cairn_action.gh.workflow import Workflow
from cairn_action.report.models import Report
from cairn_action.report.pipeline import LoadedRun, report_from_run
from cairn_action.run.artifact import read_artifact
from cairn_action.run.models import CaseRecord

EVAL_SPLIT = "eval"
"""The split `cairn eval` measures by default, so the Action's reports compare with hand-made ones."""


def _sample_corpus(loaded: LoadedConfig, workdir: Path, scratch: Scratch) -> Path | None:
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
) -> None:
    """Run `cairn ARGV --config <loaded's file>` in the isolated child (its environment and user from
    `scratch`), then keep a copy of its `artifact` for the upload whatever happened; a failure raises
    with the exit code's meaning."""
    what = "the attack run" if artifact.name.startswith("attack") else "the evaluation"
    if loaded.source is not None:
        argv = [*argv, "--config", str(loaded.source)]
    try:
        code, last = run_child(
            argv,
            workdir=workdir,
            env=child_environment(env, loaded, scratch),
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

    def bind(workdir: Path, results_dir: Path, scratch: Scratch) -> AttackRun:
        def attack(loaded: LoadedConfig) -> Path:
            from cairn_action.attack.execute import score_attack_artifact
            from cairn_action.attack.io import write_attack_report
            from cairn_action.attack.score import build_attack_report

            name = loaded.config.name
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


def _check_lexical_verdicts(loaded: LoadedConfig, records: Sequence[CaseRecord]) -> None:
    """Refuse (exit 2) a run whose recorded lexical verdicts are not the lexical judge's.

    The verdicts are written by the evaluation child, which runs the pull request's code: a target that
    replaced the judge there would have every answer counted right. The lexical judge is pure, so this
    process, which holds the token, judges every recorded answer again and compares."""
    from cairn_action.golden.load import load_golden
    from cairn_action.run.judge import LexicalJudge

    cases = {c.id: c for c in load_golden(loaded.golden_path).cases}
    judge = LexicalJudge(loaded.config.judge.f1_threshold)
    forged = []
    for record in records:
        case = cases.get(record.case_id)
        if case is None or record.answer_text is None or record.status != "answered":
            continue
        recorded = None if record.judge is None else (record.judge.name, record.judge.correct)
        if recorded != ("lexical", judge.judge(case, record.answer_text).correct):
            forged.append(f"{record.case_id} (sample {record.sample})")
    if forged:
        raise DataError(
            f"the evaluation of {loaded.config.name} recorded {len(forged)} verdict(s) that are not the "
            f"lexical judge's: {_first_few(forged)}",
            "the judge runs in the evaluation, beside the target's code: " + _INTERFERES,
        )


_INTERFERES = "check that the target does not interfere with cairn's own process"


def _first_few(items: Sequence[str], shown: int = 5) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def _check_confirmed(loaded: LoadedConfig, run: LoadedRun, baseline: Path, created: str) -> None:
    """Refuse (exit 3, incomplete) a run whose changed cases lack the re-asks the baseline's policy
    requires. The child decides what to re-ask, and it runs the pull request's code; this process,
    which holds the token, recomputes the plan from the first pass and counts what the artifact holds."""
    from dataclasses import replace

    from cairn_action.gate import policy_of
    from cairn_action.gate.confirm import unconfirmed
    from cairn_action.report.io import read_report
    from cairn_action.report.pipeline import score_run

    base = read_report(baseline)
    first = replace(run, records=tuple(r for r in run.records if r.sample == 0))
    provisional = score_run(loaded, first, which=EVAL_SPLIT, created_at=created, cairn_version=__version__)
    samples: dict[str, set[int]] = {}
    for record in run.records:
        samples.setdefault(record.case_id, set()).add(record.sample)
    extra = policy_of(base, source=str(baseline)).confirm_samples
    short = unconfirmed(base, provisional, extra=extra, samples={c: len(s) for c, s in samples.items()})
    if short:
        cases = [f"{case} ({n} of {1 + extra})" for case, n in sorted(short.items())]
        raise InfrastructureError(
            f"incomplete: the evaluation of {loaded.config.name} did not re-ask {len(short)} case(s) whose "
            f"verdict differs from the baseline's as often as its policy requires: {_first_few(cases)}",
            "a gate on one sample of a changed case would be a coin toss; rerun the job, and if it "
            "recurs " + _INTERFERES,
        )


def evaluator(
    env: Mapping[str, str], workflow: Workflow, now: Callable[[], datetime]
) -> Callable[[Path, Path, Scratch], Evaluate]:
    """`cairn eval` for the Action: the run goes to the scratch folder (copied to
    `cairn-results/<config>/run.jsonl` for upload), and the report is built without touching `reports/`
    (each mode decides what to write)."""

    def bind(workdir: Path, results_dir: Path, scratch: Scratch) -> Evaluate:
        def evaluate(loaded: LoadedConfig, baseline: Path | None = None) -> Report:
            name = loaded.config.name
            artifact = scratch.artifact(name)
            argv = ["eval", "--run-only", "--no-progress", "--split", EVAL_SPLIT, "--artifact", str(artifact)]
            argv += ["--cache-dir", str(scratch.cache)]
            if baseline is not None:  # the base branch's copy, where the evaluation's user can read it
                copy = scratch.run / f"{name}.baseline.json"
                shutil.copyfile(baseline, copy)
                copy.chmod(0o644)
                argv += ["--baseline", str(copy)]
            corpus = _sample_corpus(loaded, workdir, scratch)
            if corpus is not None:
                argv += ["--corpus", str(corpus)]
            sandboxed(
                argv,
                loaded,
                artifact,
                env=env,
                workdir=workdir,
                scratch=scratch,
                workflow=workflow,
                results_dir=results_dir,
            )
            found = read_artifact(artifact)
            if loaded.config.judge.name == "lexical":
                _check_lexical_verdicts(loaded, found.records)
            failed = [r for r in found.records if r.status == "error" and r.sample == 0]
            first_pass = [r for r in found.records if r.sample == 0]
            if first_pass and len(failed) == len(first_pass):
                raise InfrastructureError(
                    f"every case of {name} failed; the run artifact lists why",
                    "check the provider's settings and its API key secret (`env:`)",
                )
            run = LoadedRun(
                header=found.header, records=found.records, where=f"run of {name}", sources=(str(artifact),)
            )
            created = now().strftime("%Y-%m-%dT%H:%M:%SZ")
            if baseline is not None and not found.header.deterministic:
                _check_confirmed(loaded, run, baseline, created)
            written = report_from_run(
                loaded,
                run,
                which=EVAL_SPLIT,
                reports_dir=scratch.root / name / "reports",
                created_at=created,
                cairn_version=__version__,
            )
            return written.report

        return evaluate

    return bind
