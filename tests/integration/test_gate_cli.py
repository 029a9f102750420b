"""`cairn gate` and `cairn demo` through `cli.main`: exit codes, messages, and the files they write."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from gate_fixtures import REPORTS, report

from cairn_action.cli import main
from cairn_action.config import LoadedConfig, embedded_default
from cairn_action.demo import run_demo, worse_variant
from cairn_action.gate.models import GateResult
from cairn_action.report.models import Report


def _gate(capsys: pytest.CaptureFixture[str], candidate: str, *extra: str) -> tuple[int, str, str]:
    code = main(
        [
            "gate",
            str(REPORTS / "baseline.json"),
            str(REPORTS / f"{candidate}.json"),
            "--history",
            str(REPORTS / "history"),
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_gate__report_against_itself__exit_0_no_change(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _gate(capsys, "baseline")
    assert code == 0
    assert out.splitlines()[0] == "pass: no change"


def test_cli_gate__critical_losses__exit_1_lists_broken_cases(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    md, js = tmp_path / "comment.md", tmp_path / "gate.json"
    code, out, _ = _gate(capsys, "critical_lost", "--markdown", str(md), "--json", str(js))
    assert code == 1
    assert out.splitlines()[0] == "regression: 2 broke, 1 fixed of 12 cases"
    assert "critical case ret-008 (safety) was right and now answers wrong" in out
    body = md.read_text(encoding="utf-8")
    assert body.startswith("<!-- cairn:gate config=default -->") and "ret-008" in body
    result = GateResult.model_validate(json.loads(js.read_text(encoding="utf-8")))
    assert result.decision.status == "regression"
    assert {c.case_id for c in result.comparison.by_outcome("broke")} == {"ret-008", "una-002"}


def test_cli_gate__golden_versions_differ__exit_2_names_both_and_what_to_do(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    md = tmp_path / "comment.md"
    code, out, err = _gate(capsys, "golden_v2", "--markdown", str(md))
    assert code == 2
    assert out == ""
    assert err.splitlines()[-2].startswith(
        "error: the reports used different golden sets: baseline golden_version "
        "'1', candidate golden_version '2'"
    )
    assert err.splitlines()[-1].startswith("hint: a new golden version is a new exam")
    assert "Traceback" not in err
    assert "refused to compare" in md.read_text(encoding="utf-8")


def test_cli_gate__override__exit_0_overridden_and_recorded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    js = tmp_path / "gate.json"
    code, out, _ = _gate(
        capsys,
        "critical_lost",
        "--json",
        str(js),
        "--override-label",
        "cairn-override",
        "--override-actor",
        "maintainer-jo",
        "--override-reason",
        "accepted, see #41",
        "--override-pr",
        "42",
        "--override-at",
        "2026-01-06T12:00:00Z",
    )
    assert code == 0
    assert out.startswith("overridden: ")
    decision = GateResult.model_validate_json(js.read_text(encoding="utf-8")).decision
    assert decision.override is not None
    assert (decision.override.actor, decision.override.reason, decision.override.at) == (
        "maintainer-jo",
        "accepted, see #41",
        "2026-01-06T12:00:00Z",
    )


def test_cli_gate__override_without_reason__exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _gate(
        capsys, "critical_lost", "--override-label", "cairn-override", "--override-actor", "jo"
    )
    assert code == 2
    assert "error: --override-label, --override-actor and --override-reason go together" in err


def test_cli_gate__missing_baseline__exit_2_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main(["gate", str(tmp_path / "nope.json"), str(REPORTS / "baseline.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"error: {tmp_path / 'nope.json'}: report not found")


def test_cli_gate__history__trend_in_comment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    md = tmp_path / "comment.md"
    _gate(capsys, "improved", "--markdown", str(md))
    assert '["01-02 08:15", "01-03 16:40", "01-05 10:00", "this PR"]' in md.read_text(encoding="utf-8")


class FakeEvaluate:
    """Stands in for `cairn eval`: returns a committed report per config name, recording what it was asked."""

    def __init__(self, reports: dict[str, Report]) -> None:
        self.reports = reports
        self.configs: list[tuple[str, int, int, int]] = []

    def __call__(self, loaded: LoadedConfig) -> Report:
        c = loaded.config
        self.configs.append((c.name, c.retrieval.top_k, c.chunking.size, c.chunking.overlap))
        return self.reports[c.name]


def test_demo__default_and_worse_variant__gated_and_comment_written(tmp_path: Path) -> None:
    worse = report("critical_lost").model_copy(update={"config_name": "worse"})
    evaluate = FakeEvaluate({"default": report("baseline"), "worse": worse})
    log = io.StringIO()
    outcome = run_demo(evaluate, base=embedded_default(tmp_path), out_dir=tmp_path / "demo", log=log)
    assert evaluate.configs == [("default", 5, 800, 160), ("worse", 1, 200, 0)]
    assert outcome.result.decision.status == "regression"
    body = outcome.comment_path.read_text(encoding="utf-8")
    assert body.startswith("<!-- cairn:gate config=worse -->")
    assert "worse against baseline default" in body
    assert outcome.json_path.is_file() and outcome.baseline_path.name == "default.json"
    assert "evaluating 'worse' (top_k 1, 200-character chunks)" in log.getvalue()


def test_worse_variant__keeps_everything_but_name_top_k_and_chunking(tmp_path: Path) -> None:
    base = embedded_default(tmp_path)
    worse = worse_variant(base)
    assert worse.config.name == "worse"
    assert worse.config.golden == base.config.golden and worse.config.corpus == base.config.corpus
    assert worse.config.gate == base.config.gate
    assert worse.base_dir == base.base_dir


def test_gate_cli__json_dash__the_decision_alone_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["gate", str(REPORTS / "baseline.json"), str(REPORTS / "critical_lost.json"), "--json", "-"])
    out, err = capsys.readouterr()
    assert code == 1
    decision = json.loads(out)["decision"]
    assert decision["status"] == "regression"
    assert err.startswith("regression: ")
