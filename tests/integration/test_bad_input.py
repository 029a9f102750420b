"""Bad input through the real CLI: one line naming the file, exit 2, no traceback, nothing written.

One test per traceback group and per silently accepted input found by the fault-injection sweep of
issue 14 (each of them crashed with exit 1, or exited 0, before the file boundary and strict types).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bad_input_kit import Ran, Workspace, as_unprivileged, assert_user_error, cli, give_to_nobody, snapshot

from cairn_action.run.artifact import read_artifact


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


def _artifact(ws: Workspace, name: str = "run.jsonl") -> Path:
    path = ws.root / name
    ran = cli(ws.eval_args("--run-only", "--artifact", str(path)), ws.root)
    assert ran.code == 0, ran.err
    return path


def _write_report(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _gate(ws: Workspace, *extra: str) -> Ran:
    return cli(["gate", str(ws.baseline), str(ws.candidate), *extra], ws.root)


# 1. Deeply nested JSON ----------------------------------------------------------------------------------


def test_golden__line_nested_100000_deep__exit_2_naming_the_line_not_a_recursion_error(ws: Workspace) -> None:
    with ws.golden.open("a", encoding="utf-8") as handle:
        handle.write("[" * 100_000 + "]" * 100_000 + "\n")
    before = snapshot(ws.root)
    ran = cli(["golden", "check", "--config", str(ws.config)], ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert f"{ws.golden}:9: nested more than 64 levels deep" in ran.out + ran.err
    assert snapshot(ws.root) == before


def test_report__nested_100000_deep__gate_exit_2_naming_the_report(ws: Workspace) -> None:
    report = ws.report()
    ws.candidate.write_text(
        json.dumps(report)[:-1] + ', "extra": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8"
    )
    ran = _gate(ws)
    assert_user_error(ran, ws.candidate)
    assert "nested more than 64 levels" in ran.error_line


# 2. Integers of thousands of digits ---------------------------------------------------------------------


def test_golden__integer_of_5000_digits__exit_2_naming_the_line(ws: Workspace) -> None:
    with ws.golden.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "big", "question": "q?", "answerable": ' + "9" * 5000 + "}\n")
    ran = cli(["golden", "check", "--config", str(ws.config)], ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert f"{ws.golden}:9: an integer of 5000 digits" in ran.out + ran.err


# 3. NaN in a report -------------------------------------------------------------------------------------


def test_report__nan_token_f1__gate_refuses_it_before_writing_the_decision(ws: Workspace) -> None:
    text = ws.candidate.read_text(encoding="utf-8")
    ws.candidate.write_text(text.replace('"token_f1": 1.0', '"token_f1": NaN', 1), encoding="utf-8")
    assert "NaN" in ws.candidate.read_text(encoding="utf-8")
    ran = _gate(ws, "--json", str(ws.root / "decision.json"))
    assert_user_error(ran, ws.candidate)
    assert "NaN is not a JSON number" in ran.error_line
    assert not (ws.root / "decision.json").exists()


def test_report__nan_token_f1__bench_refuses_it(ws: Workspace) -> None:
    latest = ws.root / "reports" / "latest"
    latest.mkdir(parents=True)
    text = ws.candidate.read_text(encoding="utf-8").replace('"token_f1": 1.0', '"token_f1": NaN', 1)
    (latest / "default.json").write_text(text, encoding="utf-8")
    ran = cli(["bench"], ws.root)
    assert_user_error(ran, latest / "default.json")
    assert not (ws.root / "reports" / "leaderboard.md").exists()


# 4. Output paths that cannot be written -----------------------------------------------------------------


def test_bench__out_is_a_folder__exit_2_before_reading(ws: Workspace) -> None:
    (ws.root / "reports" / "latest").mkdir(parents=True)
    (ws.root / "board").mkdir()
    assert_user_error(cli(["bench", "--out", "board"], ws.root), "board")


def test_gate__markdown_is_a_folder__exit_2_naming_it(ws: Workspace) -> None:
    (ws.root / "comment").mkdir()
    ran = _gate(ws, "--markdown", str(ws.root / "comment"))
    assert_user_error(ran, ws.root / "comment")
    assert "is a folder" in ran.error_line


def test_merge__out_under_a_file__exit_2_naming_it(ws: Workspace) -> None:
    art = _artifact(ws)
    (ws.root / "afile").write_text("x", encoding="utf-8")
    ran = cli(["merge", str(art), "--out", str(ws.root / "afile" / "merged.jsonl")], ws.root)
    assert_user_error(ran, ws.root / "afile")
    assert "is a file, not a folder" in ran.error_line


def test_eval__artifact_is_a_folder__exit_2_before_any_provider_call(ws: Workspace) -> None:
    (ws.root / "art").mkdir()
    ran = cli(ws.eval_args("--artifact", "art"), ws.root)
    assert_user_error(ran, "art")
    assert not list((ws.root / ".cairn").rglob("*.json"))  # no answer was computed, let alone cached


def test_eval__cache_dir_is_a_file__exit_2_before_the_run_starts(ws: Workspace) -> None:
    ws.write_config('[run]\ncache_dir = "cachefile"')
    (ws.root / "cachefile").write_text("not a folder", encoding="utf-8")
    ran = cli(ws.eval_args(), ws.root)
    assert_user_error(ran, "cachefile")
    assert not (ws.root / "reports" / "runs").exists() or not list((ws.root / "reports" / "runs").iterdir())


def test_score__reports_is_a_file__exit_2_naming_it(ws: Workspace) -> None:
    art = _artifact(ws)
    (ws.root / "rep").write_text("x", encoding="utf-8")
    ran = cli(["score", "--config", str(ws.config), "--split", "all", str(art), "--reports", "rep"], ws.root)
    assert_user_error(ran, "rep")


def test_demo__out_is_a_file__exit_2_before_evaluating(ws: Workspace) -> None:
    (ws.root / "demo").write_text("x", encoding="utf-8")
    ran = cli(["demo", "--out", "demo"], ws.root)
    assert_user_error(ran, "demo")
    assert "evaluating" not in ran.err


# 5. Input paths that are folders, loops or too long ----------------------------------------------------


def test_merge__input_is_a_folder__exit_2_naming_it(ws: Workspace) -> None:
    (ws.root / "shard").mkdir()
    ran = cli(["merge", str(ws.root / "shard"), "--out", str(ws.root / "m.jsonl")], ws.root)
    assert_user_error(ran, ws.root / "shard")
    assert "is a folder" in ran.error_line


def test_score__input_is_a_symlink_loop__exit_2_naming_it(ws: Workspace) -> None:
    loop = ws.root / "loop.jsonl"
    loop.symlink_to(loop)
    ran = cli(["score", "--config", str(ws.config), str(loop)], ws.root)
    assert_user_error(ran, loop)
    assert "symlink loop" in ran.error_line


def test_eval__golden_path_too_long__exit_2_naming_it(ws: Workspace) -> None:
    ran = cli([*ws.eval_args(), "--golden", "g" * 5000], ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert "ggggg" in ran.error_line


# 6. Provider values the config accepted and requests rejected -------------------------------------------


@pytest.mark.parametrize(
    ("body", "located"),
    [
        ('target = "https://"', ":2: 'target'"),
        ('[provider]\nname = "openai"\nbase_url = "not a url"', ":4: 'provider.base_url'"),
        ("[provider]\ntimeout_s = 0", ":3: 'provider.timeout_s'"),
        ("[provider]\ntimeout_s = -1", ":3: 'provider.timeout_s'"),
        ("[provider]\ntimeout_s = nan", ":3: 'provider.timeout_s'"),
        ('[judge]\nname = "llm"\nbase_url = "http://:80"', ":4: 'judge.base_url'"),
    ],
    ids=["target-no-host", "base-url-not-a-url", "timeout-0", "timeout-negative", "timeout-nan", "judge-url"],
)
def test_config__provider_value_requests_would_reject__exit_2_at_load_with_file_and_line(
    ws: Workspace, body: str, located: str
) -> None:
    ws.write_config(body)
    ran = cli(ws.eval_args(), ws.root)
    assert_user_error(ran, f"{ws.config}{located}")


# 7. Unreadable files and read-only folders, as an unprivileged user -------------------------------------


def _permission_cases(ws: Workspace) -> dict[str, tuple[list[str], str]]:
    """name → (argv, the path its error must name); each case's damage is done in `_break`."""
    r = ws.root
    return {
        "golden-unreadable": (ws.eval_args(), str(ws.golden)),
        "config-unreadable": (ws.eval_args(), str(ws.config)),
        "document-unreadable": (ws.eval_args(), str(ws.corpus / "hours.md")),
        "corpus-folder-unreadable": (ws.eval_args(), str(ws.corpus / "sub")),
        "artifact-unreadable": (
            ["score", "--config", str(ws.config), "--split", "all", str(r / "run.jsonl")],
            "run.jsonl",
        ),
        "reports-read-only": (ws.eval_args(), str(r / "reports")),
        "reports-latest-read-only": (ws.eval_args(), str(r / "reports" / "latest")),
        "reports-runs-read-only": (ws.eval_args(), str(r / "reports" / "runs")),
        "init-folder-unreadable": (["init", str(r / "project")], str(r / "project")),
        "generate-folder-unlistable": (["corpus", "generate", "--out", str(r / "out")], str(r / "out")),
    }


def _break(ws: Workspace, case: str) -> None:
    r = ws.root
    if case == "golden-unreadable":
        ws.golden.chmod(0)
    elif case == "config-unreadable":
        ws.config.chmod(0)
    elif case == "document-unreadable":
        (ws.corpus / "hours.md").chmod(0)
    elif case == "corpus-folder-unreadable":
        (ws.corpus / "sub").mkdir()
        (ws.corpus / "sub" / "more.md").write_text("# More\n\nMore text.\n", encoding="utf-8")
        (ws.corpus / "sub").chmod(0)
    elif case == "artifact-unreadable":
        (r / "run.jsonl").chmod(0)
    elif case == "reports-read-only":
        (r / "reports").mkdir()
        (r / "reports").chmod(0o555)
    elif case == "reports-latest-read-only":
        (r / "reports" / "latest").mkdir(parents=True)
        (r / "reports" / "latest").chmod(0o555)
    elif case == "reports-runs-read-only":
        (r / "reports" / "runs").mkdir(parents=True)
        (r / "reports" / "runs").chmod(0o555)
    elif case == "init-folder-unreadable":
        (r / "project").mkdir()
        (r / "project").chmod(0)
    elif case == "generate-folder-unlistable":
        (r / "out").mkdir()
        (r / "out" / "notes.md").write_text("mine\n", encoding="utf-8")
        (r / "out").chmod(0o644)  # readable, not searchable: its files cannot even be looked at


CASES = [
    "golden-unreadable",
    "config-unreadable",
    "document-unreadable",
    "corpus-folder-unreadable",
    "artifact-unreadable",
    "reports-read-only",
    "reports-latest-read-only",
    "reports-runs-read-only",
    "init-folder-unreadable",
    "generate-folder-unlistable",
]


@pytest.fixture
def shared_tmp() -> Path:
    """A scratch folder an unprivileged user can enter (pytest's tmp_path is root's, mode 0700)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="cairn-perm-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["chmod", "-R", "u+rwx", str(folder)], check=False)
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def test_permissions__unreadable_inputs_and_read_only_folders__exit_2_naming_the_path_as_nobody(
    shared_tmp: Path,
) -> None:
    spaces: dict[str, Workspace] = {}
    for case in CASES:
        ws = Workspace(shared_tmp / case)
        if case == "artifact-unreadable":
            _artifact(ws)
        spaces[case] = ws
        give_to_nobody(ws.root)

    def run_all() -> dict[str, list[object]]:
        results: dict[str, list[object]] = {}
        for case in CASES:
            ws = spaces[case]
            _break(ws, case)
            argv, names = _permission_cases(ws)[case]
            before = snapshot(ws.root)
            ran = cli(argv, ws.root)
            results[case] = [ran.code, ran.err, names, snapshot(ws.root) == before]
        return results

    for case, (code, err, name, unchanged) in as_unprivileged(run_all).items():
        ran = Ran(code=int(code), out="", err=str(err))
        assert_user_error(ran, str(name))
        assert unchanged, f"{case}: a file changed"
        assert "permission denied" in ran.error_line or "read-only" in ran.error_line, (case, ran.err)


def test_permissions__unreadable_cache_entry__is_a_miss_and_the_run_succeeds(shared_tmp: Path) -> None:
    ws = Workspace(shared_tmp / "cache")
    _artifact(ws, "first.jsonl")
    entries = [p for p in (ws.root / ".cairn" / "cache").rglob("*.json")]
    assert entries
    give_to_nobody(ws.root)
    for entry in entries:
        entry.chmod(0)

    def rerun() -> list[object]:
        ran = cli(ws.eval_args("--run-only", "--artifact", str(ws.root / "second.jsonl")), ws.root)
        return [ran.code, ran.err]

    code, err = as_unprivileged(rerun)
    assert code == 0, err
    assert "permission denied" in str(err) and "recomputed" in str(err)


# Inputs that used to be accepted with exit 0 --------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "located"),
    [
        ('[retrieval]\ntop_k = "5"', "'retrieval.top_k': Input should be a valid integer"),
        ("[retrieval]\ntop_k = true", "'retrieval.top_k': Input should be a valid integer"),
        ("[gate.floors]\nanswer_rate = nan", "'gate.floors.answer_rate': Input should be a finite number"),
        ('[corpus]\npath = ""', "'corpus.path': must not be empty"),
        ('[provider]\nmodel = ""', "'provider.model': must not be empty"),
        ('[provider]\nname = "gpt"', "'provider.name': Input should be 'stub', 'openai' or 'anthropic'"),
        ('[judge]\nname = "human"', "'judge.name': Input should be 'lexical' or 'llm'"),
        ('[prices."m"]\ninput = "1"\noutput = 2.0', "'prices.m.input': Input should be a valid number"),
        ('[prices."m"]\ninput = 1.0', "'prices.m.output': Field required"),
    ],
    ids=[
        "top-k-string",
        "top-k-bool",
        "floor-nan",
        "corpus-path-empty",
        "model-empty",
        "provider-name",
        "judge-name",
        "price-string",
        "price-missing",
    ],
)
def test_config__value_once_coerced_or_accepted__exit_2_with_file_and_line(
    ws: Workspace, body: str, located: str
) -> None:
    text = f'name = "tiny"\n{body}\n'
    if "[corpus]" not in body:
        text += '\n[corpus]\npath = "corpus"\n'
    text += '\n[golden]\npath = "golden"\n'
    ws.config.write_text(text, encoding="utf-8")
    ran = cli(ws.eval_args(), ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err, ran.err
    assert f"{ws.config}:" in ran.error_line and located in ran.err, ran.err
    line = ran.err.split(f"{ws.config}:", 1)[1].split(":", 1)[0]
    assert line.isdigit(), ran.err


def test_config__unknown_gate_metric__error_names_file_and_line(ws: Workspace) -> None:
    ws.write_config("[gate.max_drop]\nrecall_at_5 = 0.05\nrecal_at_10 = 0.05")
    ran = cli(ws.eval_args(), ws.root)
    assert_user_error(ran, f"{ws.config}:4: [gate] max_drop names unknown metric(s): recal_at_10")


def test_config__target_module_missing__error_names_file_and_line(ws: Workspace) -> None:
    ws.write_config('target = "python:no_such_module_here:answer"')
    ran = cli(ws.eval_args(), ws.root)
    assert_user_error(ran, f"{ws.config}:2: target: cannot import 'no_such_module_here'")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("v" * 1_000_000, "larger than 4 KiB"),
        ("v1\0", "not a version string"),
        (None, "is a folder"),
    ],
    ids=["one-megabyte", "nul", "folder"],
)
def test_golden__version_file_not_a_version__exit_2_naming_it(
    ws: Workspace, content: str | None, problem: str
) -> None:
    version = ws.golden_dir / "golden.version"
    version.unlink()
    if content is None:
        version.mkdir()
    else:
        version.write_text(content, encoding="utf-8")
    ran = cli(ws.eval_args(), ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert f"{version}" in ran.err and problem in ran.err, ran.err


def test_golden__question_only_a_nul__blank_exit_2_naming_the_line(ws: Workspace) -> None:
    with ws.golden.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "nul", "question": "\u0000", "answerable": False}) + "\n")
    ran = cli(ws.eval_args(), ws.root)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert f"{ws.golden}:9: case nul: 'question' is blank" in ran.err


def _duplicate_ids(report: dict) -> None:
    report["per_case"] = report["per_case"] + report["per_case"][:1] * 50


def _correct_is_yes(report: dict) -> None:
    report["per_case"][0]["correct"] = "yes"


def _no_schema_version(report: dict) -> None:
    del report["schema_version"]


@pytest.mark.parametrize(
    ("damage", "side", "problem"),
    [
        (_duplicate_ids, "candidate", "repeats case"),
        (_correct_is_yes, "candidate", "per_case.0.correct"),
        (_no_schema_version, "baseline", "'schema_version' is missing"),
    ],
    ids=["duplicate-case-ids-once-a-pass", "correct-is-yes", "no-schema-version"],
)
def test_report__damage_once_accepted__refused_naming_the_report(
    ws: Workspace, damage: object, side: str, problem: str
) -> None:
    report = ws.report()
    damage(report)  # type: ignore[operator]
    path = ws.candidate if side == "candidate" else ws.baseline
    _write_report(path, report)
    ran = _gate(ws)
    assert_user_error(ran, path)
    assert problem in ran.error_line


def test_gate__baseline_with_empty_per_case__refused_not_a_pass(ws: Workspace) -> None:
    report = ws.report()
    report["per_case"] = []
    report["n_cases"] = 0
    _write_report(ws.baseline, report)
    ran = _gate(ws)
    assert ran.code == 2 and "Traceback" not in ran.err
    assert "the baseline report has no cases" in ran.error_line


def test_gate__history_is_a_file__refused_not_ignored(ws: Workspace) -> None:
    (ws.root / "hist.json").write_text("{}", encoding="utf-8")
    ran = _gate(ws, "--history", str(ws.root / "hist.json"))
    assert_user_error(ran, ws.root / "hist.json")


def test_eval__empty_shard__refused_not_run_in_full(ws: Workspace) -> None:
    ran = cli(ws.eval_args("--run-only", "--shard", ""), ws.root)
    assert_user_error(ran, "--shard")
    assert not (ws.root / "reports").exists()


def test_eval__shard_with_a_unicode_digit__refused(ws: Workspace) -> None:
    assert_user_error(cli(ws.eval_args("--run-only", "--shard", "\u00b2/3"), ws.root), "--shard")


def _edit_header(path: Path, **fields: object) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header.update(fields)
    lines[0] = json.dumps(header) + "\n"
    path.write_text("".join(lines), encoding="utf-8")


def test_score__header_n_cases_wrong__refused(ws: Workspace) -> None:
    art = _artifact(ws)
    _edit_header(art, n_cases=3)
    ran = cli(["score", "--config", str(ws.config), "--split", "all", str(art)], ws.root)
    assert_user_error(ran, art)
    assert "n_cases 3, but the artifact holds 8" in ran.error_line
    assert not (ws.root / "reports").exists()


def test_score__header_corpus_hash_edited__refused_not_carried_into_the_report(ws: Workspace) -> None:
    art = _artifact(ws)
    _edit_header(art, corpus_hash="0" * 64)
    ran = cli(["score", "--config", str(ws.config), "--split", "all", str(art)], ws.root)
    assert_user_error(ran, art)
    assert "corpus_hash 0000000000000000 is not that of" in ran.error_line


def test_score__record_answerable_flipped__refused(ws: Workspace) -> None:
    art = _artifact(ws)
    text = art.read_text(encoding="utf-8").replace('"answerable":true', '"answerable":false', 1)
    art.write_text(text, encoding="utf-8")
    ran = cli(["score", "--config", str(ws.config), "--split", "all", str(art)], ws.root)
    assert_user_error(ran, art)


# Two runs at once, and a bug -----------------------------------------------------------------------------

_HOLDER = """
import sys, time
from pathlib import Path
from cairn_action.run.lock import RunLock
with RunLock(Path(sys.argv[1]), what="x"):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_eval__same_config_and_split_already_running__refused_naming_the_other_process(ws: Workspace) -> None:
    lock = ws.root / "reports" / "runs" / ".tiny-all.lock"
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(lock)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        before = snapshot(ws.root)
        ran = cli(ws.eval_args("--run-only"), ws.root)
        assert_user_error(ran, lock)
        assert f"already running (pid {holder.pid} on " in ran.error_line
        assert {k: v for k, v in snapshot(ws.root).items() if ".cairn" not in k} == {
            k: v for k, v in before.items() if ".cairn" not in k
        }
    finally:
        holder.communicate("")
    deadline = time.monotonic() + 5
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    ran = cli(ws.eval_args("--run-only"), ws.root)  # the lock went with its holder
    assert ran.code == 0, ran.err
    runs = list((ws.root / "reports" / "runs").glob("*.jsonl"))
    assert len(runs) == 1 and len(read_artifact(runs[0]).records) == 8


def test_cli__uncaught_bug__exit_70_keeps_the_traceback_and_says_where_to_report(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cairn_action.commands import evaluate

    def broken(args: object) -> int:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(evaluate, "cmd_bench", broken)  # a stand-in bug: nothing real is left to trigger
    ran = cli(["bench"], ws.root)
    assert ran.code == 70
    assert "Traceback" in ran.err and "ZeroDivisionError: a bug" in ran.err
    assert "internal error: this is a bug in Cairn" in ran.err and "/issues" in ran.err


def test_action__uncaught_bug__step_fails_as_internal_error_never_regression(tmp_path: Path) -> None:
    import io

    from cairn_action.action.entry import internal_error
    from cairn_action.gh.workflow import Workflow

    stream, outputs = io.StringIO(), tmp_path / "outputs"
    outputs.touch()
    try:
        raise KeyError("missing")
    except KeyError as exc:
        code = internal_error(Workflow(stream, output_file=outputs, summary_file=None), exc)
    assert code == 70
    assert (
        "::error title=Cairn%3A internal error::internal error: this is a bug in Cairn" in stream.getvalue()
    )
    written = outputs.read_text(encoding="utf-8")
    assert "internal-error" in written and "regression" not in written


def test_eval__valid_workspace__still_exit_0(ws: Workspace) -> None:
    ran = cli(ws.eval_args(), ws.root)
    assert ran.code == 0, ran.err
    # split all is never a baseline: its report goes to reports/all/, not reports/latest/
    assert list((ws.root / "reports" / "all").glob("tiny-*.json"))


def test_config__llm_judge_without_a_chat_api__error_names_file_and_judge_line(ws: Workspace) -> None:
    ws.write_config('[judge]\nname = "llm"')  # the stub provider is no chat API for the judge to use
    ran = cli(ws.eval_args(), ws.root)
    assert_user_error(ran, f"{ws.config}:2: judge.provider: the LLM judge needs a chat API")


# 12. The sweep of issue 24 (benchmarks/bad_input_sweep.py): each class it found ------------------------


@pytest.mark.parametrize(
    ("config", "located"),
    [
        (
            'name = "tiny"\n[corpus]\npath = "corpus"\n[golden]\npath = "golden"\n[retrieval]\nmode = "bm',
            ":7: ",
        ),
        ('name = "tiny"\n[corpus]\npath = "corpus"\n[golden', ":4: "),
        ('name = "tiny"\n[corpus]\npath = "corpus"\n[golden]\npath = "golden"\n[chunking]\nsize', ":7: "),
    ],
    ids=["in-a-string", "in-a-table-header", "after-a-key"],
)
def test_config__cut_short__exit_2_naming_the_last_line_not_end_of_document(
    ws: Workspace, config: str, located: str
) -> None:
    ws.config.write_text(config, encoding="utf-8")
    ran = cli(["golden", "check", "--config", str(ws.config)], ws.root)
    assert_user_error(ran, f"{ws.config}{located}invalid TOML:")
    assert "end of document" not in ran.error_line


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            "",
            "cairn.toml: corpus.path = 'data/sample' (the default: not set in the file): corpus folder "
            "not found",
        ),
        ('[corpus]\npath = "corpse"\n', "cairn.toml:2: corpus.path = 'corpse': corpus folder not found"),
        (
            '[golden]\npath = "golden/golden.jsnl"\n',
            "cairn.toml:2: golden.path = 'golden/golden.jsnl': golden set not found",
        ),
    ],
    ids=["empty-config", "corpus-typo", "golden-typo"],
)
@pytest.mark.parametrize("command", ["golden-check", "eval"])
def test_config__names_a_path_that_is_not_there__exit_2_naming_the_config_and_its_line(
    ws: Workspace, config: str, message: str, command: str
) -> None:
    ws.config.write_text(config, encoding="utf-8")
    argv = ws.eval_args() if command == "eval" else ["golden", "check", "--config", str(ws.config)]
    ran = cli(argv, ws.root)
    assert_user_error(ran, message)
    # the same missing folder given on the command line is the command line's: named as it is
    ran = cli([*argv, "--corpus", str(ws.root / "corpse")], ws.root)
    if "corpus" in message:
        assert_user_error(ran, f"error: {ws.root / 'corpse'}: corpus folder not found")


def test_import__csv_field_over_the_csv_limit__exit_2_naming_the_line_not_a_crash(ws: Workspace) -> None:
    source = ws.root / "values.csv"
    source.write_text(
        f'question,answer,doc,quote\n"q","a","returns.md","{"x" * 200_000}"\n', encoding="utf-8"
    )
    ran = cli(
        ["golden", "import", "--format", "values", "--out", str(ws.root / "new.jsonl"), str(source)], ws.root
    )
    assert_user_error(ran, f"{source}:2: not a CSV row Cairn can read: field larger than field limit")


def test_permissions__folder_not_searchable__says_it_cannot_be_reached_not_that_it_is_missing(
    shared_tmp: Path,
) -> None:
    ws = Workspace(shared_tmp / "unsearchable")
    give_to_nobody(ws.root)
    ws.golden_dir.chmod(0o644)  # listable, not searchable: golden.jsonl is there but cannot be opened

    def run() -> list[object]:
        ran = cli(["golden", "check", "--config", str(ws.config)], ws.root)
        return [ran.code, ran.err]

    code, err = as_unprivileged(run)
    ran = Ran(code=int(code), out="", err=str(err))
    assert_user_error(ran, f"{ws.golden}: cannot be reached: permission denied on a folder on its path")
