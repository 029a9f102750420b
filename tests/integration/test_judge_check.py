"""`cairn judge check LABELS` end to end: the shipped example with the lexical judge, an LLM judge against the
loopback fake OpenAI server, the result recorded in reports and the comment, and `[judge] min_kappa`."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from eval_kit import REPO, evaluate, write_config
from fakes.loopback import Step
from fakes.openai_server import FakeOpenAIServer

from cairn_action.cli import main

KEY = "sk-judge-check-5b1e0c7a9d"
TINY_LABELS = [
    {"case_id": "t-01", "answer": "14 days.", "human": True},
    {"case_id": "t-01", "answer": "Not within 14 days", "human": False},
    {"case_id": "t-02", "answer": "Within 5 working days.", "human": True},
    {"case_id": "t-02", "answer": "30 days", "human": False},
    {"case_id": "t-03", "answer": "By 15:30.", "human": True},
    {"case_id": "t-03", "answer": "Noon", "human": False},
]


def _labels(folder: Path) -> Path:
    path = folder / "labels.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in TINY_LABELS), encoding="utf-8")
    return path


def test_judge_check__shipped_sample_labels__lexical_judge_measured_and_written_beside_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no cairn.toml here: the embedded default (the sample's golden set)
    assert main(["judge", "check", str(REPO / "examples" / "judge" / "labels.jsonl")]) == 0
    out = capsys.readouterr().out
    # The lexical judge accepts "Not 15%" for "15%" (it contains the answer): the check shows it.
    assert "TPR (right when a human says right): 100.0% (30 of 30; 95% Wilson 88.6% to 100.0%)" in out
    assert "TNR (wrong when a human says wrong): 73.3% (22 of 30" in out
    assert "raw agreement 86.7%, Cohen's kappa 0.73" in out
    # Each disagreement by file:line, so the rubric (or the label) can be fixed.
    assert "the judge disagrees with 8 label(s):" in out
    assert "labels.jsonl:6: com-003: a human says wrong, the judge right: 'Not 15%' (the answer" in out
    check = json.loads((tmp_path / "cairn.judge-check.json").read_text())
    assert (check["judge"], check["n"], check["false_positive"]) == ("lexical", 60, 8)


def test_judge_check__llm_judge__graded_by_a_majority_of_draws_as_evaluations_grade__recorded_in_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    with FakeOpenAIServer(api_key=KEY) as server:
        judge = (
            f'[judge]\nname = "llm"\nprovider = "openai"\nmodel = "judge-m"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "JUDGE_KEY"\n[run]\nmax_concurrency = 1\n'
        )
        write_config(tmp_path, "tiny-llm", judge)
        monkeypatch.chdir(tmp_path)
        # One label at a time, so the scripted slip is the first label's first draw ("14 days." is right):
        # outvoted by the next two.
        server.script(Step(content=json.dumps({"score": 0.0, "correct": False, "rationale": "a slip"})))
        assert main(["judge", "check", str(_labels(tmp_path))]) == 0
        out = capsys.readouterr().out
        graded = len(server.requests)
        run = evaluate(tmp_path, "tiny-llm", capsys, monkeypatch)
    assert run.code == 0, run.err
    # Every label graded by the model (none decided without it) till two draws agree: 2 each, 3 for the first.
    assert graded == 2 * len(TINY_LABELS) + 1
    assert "each answer's verdict the majority of up to 3 draws" in out
    check = json.loads((tmp_path / "cairn.judge-check.json").read_text())
    # The fake grades "contains every word of the reference": "Not within 14 days" passes, the rest agree.
    # One draw would have counted the slip as a false negative (2 true positives).
    assert (check["true_positive"], check["true_negative"], check["false_positive"]) == (3, 2, 1)
    assert check["judge"].startswith("llm") and check["draws"] == 3
    assert run.report["notes"]["judge_check"]["kappa"] == pytest.approx(check["kappa"])


def test_judge_check__llm_judge__labels_graded_at_the_runs_concurrency(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_KEY", KEY)
    latency = 0.3
    with FakeOpenAIServer(api_key=KEY, latency_s=latency) as server:
        judge = (
            f'[judge]\nname = "llm"\nprovider = "openai"\nmodel = "judge-m"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "JUDGE_KEY"\n[run]\nmax_concurrency = 3\n'
        )
        write_config(tmp_path, "tiny-llm", judge)
        monkeypatch.chdir(tmp_path)
        assert main(["judge", "check", str(_labels(tmp_path))]) == 0
        arrived = sorted(r.at for r in server.requests)
    err = capsys.readouterr().err
    assert "grading 6 labels with llm (openai judge-m, rubric llm-rubric-1), 3 at a time" in err
    # One at a time, each request would arrive after the last reply (latency after its arrival); here a
    # request arrives while another is still waiting for its reply.
    assert len(arrived) == 2 * len(TINY_LABELS)
    assert any(later < earlier + latency for earlier, later in itertools.pairwise(arrived))
    check = json.loads((tmp_path / "cairn.judge-check.json").read_text())
    assert (check["true_positive"], check["true_negative"], check["false_positive"]) == (3, 2, 1)


def test_gate__baseline_sets_min_kappa__unvalidated_judge_refused_exit_2_then_validated_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(tmp_path, "tiny", "[judge]\nmin_kappa = 0.6\n")
    baseline = evaluate(tmp_path, "tiny", capsys, monkeypatch)
    assert baseline.code == 0, baseline.err
    base_path = sorted((tmp_path / "reports" / "all").glob("tiny-*.json"))[-1]
    moved = tmp_path / "baseline.json"
    base_path.rename(moved)
    candidate = evaluate(tmp_path, "tiny", capsys, monkeypatch)
    cand_path = sorted((tmp_path / "reports" / "all").glob("tiny-*.json"))[-1]
    capsys.readouterr()
    assert main(["gate", str(moved), str(cand_path)]) == 2
    err = capsys.readouterr().err
    assert "[judge] min_kappa is 0.6, and the judge lexical that judged this PR is not validated" in err
    assert "cairn judge check LABELS" in err and "Traceback" not in err

    assert main(["judge", "check", str(_labels(tmp_path))]) == 0
    candidate = evaluate(tmp_path, "tiny", capsys, monkeypatch)
    assert candidate.report["notes"]["judge_check"]["kappa"] == pytest.approx(1 / 3 * 2, abs=0.01)
    cand_path = sorted((tmp_path / "reports" / "all").glob("tiny-*.json"))[-1]
    out = tmp_path / "decision.json"
    assert main(["gate", str(moved), str(cand_path), "--json", str(out)]) == 0
    notes = json.loads(out.read_text())["comparison"]["notes"]
    assert any(n.startswith("judge: lexical, kappa 0.67 on 6 labels") for n in notes)
