"""The user's own RAG function as the target (`python:module:function`), end to end to a report."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eval_kit import REPO, TINY_CASES, Evaluated, evaluate, write_config

from cairn_action.gate import run_gate
from cairn_action.render.markdown import render_comment
from cairn_action.render.terminal import why
from cairn_action.report.models import PerCase, Report


def test_python_target__tiny_rag__evaluated_end_to_end_to_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny-python", 'target = "python:tiny_rag:answer"')
    run = evaluate(tmp_path, "tiny-python", capsys, monkeypatch)
    assert run.code == 0, run.err

    report = run.report
    assert report["n_cases"] == TINY_CASES
    notes = report["notes"]
    assert (notes["provider"], notes["retrieval_mode"], notes["models_seen"]) == (
        "target",
        "target",
        ["python:tiny_rag:answer"],
    )
    # Retrieval is measured on the passages the function returned: every answerable case's support
    # quote sits in its first passage.
    assert report["retrieval"]["n_with_support"] == 6
    assert report["retrieval"]["recall_at_k"]["1"] == 1.0
    # The function reports $0.0001 a question; Cairn adds it up rather than inventing a price.
    assert report["operational"]["cost_usd_total"] == pytest.approx(TINY_CASES * 0.0001)
    statuses = {c["case_id"]: c["status"] for c in report["per_case"]}
    assert statuses["t-07"] == "abstained" and statuses["t-01"] == "answered"
    first = next(r for r in run.records if r.case_id == "t-01")
    assert first.retrieved[0].chunk_id == "returns.md#1" and first.retrieved[0].doc == "returns.md"
    assert first.confidence_source == "target-reported"
    assert first.claims and all(c.verified for c in first.claims)


def test_python_target__function_raises_on_one_case__that_case_is_an_error_the_rest_are_scored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny-buggy", 'target = "python:tiny_rag:failing_answer"')
    run = evaluate(tmp_path, "tiny-buggy", capsys, monkeypatch)
    assert run.code == 0, run.err

    failed = [r for r in run.records if r.status == "error"]
    assert [r.case_id for r in failed] == ["t-04"]
    assert failed[0].error == "target raised KeyError: 'drivers'"
    assert failed[0].raw_output is not None and "Traceback" in failed[0].raw_output
    assert run.report["notes"]["counts"]["error"] == 1
    assert "rerun the same command" in run.out


def test_python_target__reply_misspells_answer__run_fails_loudly_no_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "typo_rag.py").write_text(
        "def answer(question):\n    return {'answr': 'I think 14 days'}\n", encoding="utf-8"
    )
    write_config(tmp_path, "typo", 'target = "python:typo_rag:answer"')
    run = evaluate(tmp_path, "typo", capsys, monkeypatch)
    assert run.code == 3
    assert (
        f"error: every case failed ({TINY_CASES} of {TINY_CASES}); {TINY_CASES} of them: target reply does "
        "not fit cairn-target-1: unknown key 'answr' (did you mean 'answer'?)"
    ) in run.err
    assert "rerun the same command" in run.err
    assert not (tmp_path / "reports" / "latest").exists() and not (tmp_path / "reports" / "all").exists()


def test_python_target__most_cases_error__run_fails_loudly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "flaky_rag.py").write_text(
        "def answer(question):\n"
        "    if 'chief' in question or 'Why' in question:\n"
        "        return {'answer': None}\n"
        "    raise RuntimeError('index not loaded')\n",
        encoding="utf-8",
    )
    write_config(tmp_path, "flaky", 'target = "python:flaky_rag:answer"')
    run = evaluate(tmp_path, "flaky", capsys, monkeypatch)
    assert run.code == 3
    assert (
        "error: most cases failed (" in run.err and "target raised RuntimeError: index not loaded" in run.err
    )


def test_python_target__module_missing__exit_2_with_one_line_and_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny-missing", 'target = "python:no_such_rag_module:answer"')
    run = evaluate(tmp_path, "tiny-missing", capsys, monkeypatch)
    assert run.code == 2
    assert ".toml:2: target: cannot import 'no_such_rag_module': ModuleNotFoundError" in run.err
    assert "hint: " in run.err and "Traceback" not in run.err


def test_python_target__module_beside_the_config__importable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_rag.py").write_text(
        "def answer(question):\n    return 'I cannot say' if 'chief' in question else None\n",
        encoding="utf-8",
    )
    write_config(tmp_path, "beside", 'target = "python:my_rag:answer"')
    run = evaluate(tmp_path, "beside", capsys, monkeypatch)
    assert run.code == 0, run.err
    counts = run.report["notes"]["counts"]
    assert (counts["answered"], counts["abstained"]) == (1, TINY_CASES - 1)
    # A bare-string answer carries no passages: retrieval never surfaced the support, honestly 0.
    assert run.report["retrieval"]["recall_at_k"]["10"] == 0.0


@pytest.mark.slow
def test_eval__ctrl_c__says_rerun_to_resume_and_keeps_finished_cases(tmp_path: Path) -> None:
    (tmp_path / "slow_rag.py").write_text(
        "import time\n\ndef answer(question):\n    time.sleep(1.0)\n    return {'answer': None}\n",
        encoding="utf-8",
    )
    write_config(tmp_path, "slow", 'target = "python:slow_rag:answer"\n\n[run]\nmax_concurrency = 1')
    artifact = tmp_path / "run.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "cairn_action", "eval", "--no-progress", "--artifact", str(artifact)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # A shell's background job (`cmd &`) starts with SIGINT ignored, and a Python started so never
        # installs its Ctrl-C handler: give the child the default disposition, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60  # the header and one finished case, then Ctrl-C
    while time.monotonic() < deadline and not (artifact.exists() and artifact.read_bytes().count(b"\n") >= 2):
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted: rerun the same command to resume" in err and "Traceback" not in err


def _row(
    tmp_path: Path, function: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[Evaluated, Report, PerCase]:
    """`cairn eval` of the tiny_rag variant `function`, its report, and case t-01's row."""
    write_config(tmp_path, "tiny-context", f'target = "python:tiny_rag:{function}"')
    run = evaluate(tmp_path, "tiny-context", capsys, monkeypatch)
    assert run.code == 0, run.err
    report = Report.model_validate(run.report)
    return run, report, next(c for c in report.per_case if c.case_id == "t-01")


def test_python_target__reports_the_passages_its_answerer_used__why_reads_them_not_top_k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run, report, row = _row(tmp_path, "answer_from_the_last_passage", capsys, monkeypatch)
    record = next(r for r in run.records if r.case_id == "t-01")
    assert record.context_ids == [record.retrieved[-1].chunk_id] and len(record.retrieved) > 1
    assert record.support_in_context is False  # the support is the first passage, the answerer got the last
    assert (row.context_size, row.support_in_context) == (1, False)
    assert "support ranked 1, not among the 1 passage the answerer used" in why(row, report)
    assert "of top 5" not in why(row, report)  # the config's top_k is not what a target's answerer saw


def test_python_target__used_every_passage__support_seen_in_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report, row = _row(tmp_path, "answer_using_passages", capsys, monkeypatch)
    assert row.support_in_context is True
    assert f"support seen (in the {row.context_size} passages the answerer used)" in why(row, report)


def test_python_target__does_not_say_what_its_answerer_used__why_says_it_does_not_know(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, report, row = _row(tmp_path, "answer", capsys, monkeypatch)
    assert row.context_size is None
    assert "it did not say which its answerer used" in why(row, report)


def test_python_target__code_edited__target_hash_changes_config_hash_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "team_rag.py"
    corpus = REPO / "tests" / "data" / "tiny_rag" / "corpus"
    source = (REPO / "tests" / "fakes" / "tiny_rag.py").read_text(encoding="utf-8")
    source = source.replace(
        'Path(__file__).resolve().parents[1] / "data" / "tiny_rag" / "corpus"', f"Path({str(corpus)!r})"
    )
    module.write_text(source, encoding="utf-8")
    write_config(tmp_path, "team", 'target = "python:team_rag:answer"')
    first = evaluate(tmp_path, "team", capsys, monkeypatch)
    assert first.code == 0, first.err
    module.write_text(source + "\n# the LLM-backed rewrite\n", encoding="utf-8")
    sys.modules.pop("team_rag", None)  # a new process would import the edited file
    time.sleep(1.1)  # reports are named by the second
    second = evaluate(tmp_path, "team", capsys, monkeypatch)
    assert second.code == 0, second.err
    a, b = first.report, second.report
    assert a["config_hash"] == b["config_hash"]
    assert a["target_hash"] and b["target_hash"] and a["target_hash"] != b["target_hash"]
    assert len(a["target_hash"]) == 16


def test_python_target__returns_nothing_for_every_case__warned_with_causes_and_in_the_comment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny-empty", 'target = "python:tiny_rag:returns_nothing"')
    run = evaluate(tmp_path, "tiny-empty", capsys, monkeypatch)
    assert run.code == 0, run.err
    assert f"warning: the system returned no passages for any of the {TINY_CASES} cases" in run.out
    assert "only some suffixes" in run.out
    assert f"warning: the system answered none of the {TINY_CASES} cases" in run.out
    report = Report.model_validate(run.report)
    assert len(report.notes.nothing_returned) == 2
    working = Report.model_validate(evaluate(tmp_path, "tiny-empty", capsys, monkeypatch).report)
    body = render_comment(
        run_gate(
            working.model_copy(update={"notes": working.notes.model_copy(update={"nothing_returned": []})}),
            report,
        )
    )
    assert "this PR's system: the system returned no passages for any of" in body


def test_python_target__a_working_system__no_nothing_returned_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny-ok", 'target = "python:tiny_rag:answer"')
    run = evaluate(tmp_path, "tiny-ok", capsys, monkeypatch)
    assert "warning: the system" not in run.out and run.report["notes"]["nothing_returned"] == []
