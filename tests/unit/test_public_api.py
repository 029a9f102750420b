"""The curated public API: what `import cairn_action` offers, and that offering it costs nothing at import."""

from __future__ import annotations

import subprocess
import sys
import typing
from pathlib import Path

from repo_files import committed_copy

import cairn_action
from cairn_action.providers.target import TargetResponse

PUBLIC = {
    "GateResult",
    "Report",
    "TargetCitation",
    "TargetPassage",
    "TargetReply",
    "TargetRequest",
    "TargetUsage",
    "__version__",
    "exact_match",
    "run_gate",
    "token_f1",
}


def test_public_api__exported_names__exactly_the_curated_list() -> None:
    assert set(cairn_action.__all__) == PUBLIC
    assert set(dir(cairn_action)) == PUBLIC
    for name in PUBLIC:
        assert getattr(cairn_action, name) is not None


def test_public_api__unknown_name__attribute_error() -> None:
    try:
        cairn_action.nonexistent  # noqa: B018
    except AttributeError as error:
        assert "nonexistent" in str(error)
    else:
        raise AssertionError("cairn_action.nonexistent did not raise")


def test_public_api__import__loads_no_pydantic_numpy_or_scipy() -> None:
    probe = "import sys, cairn_action; print([m for m in ('pydantic', 'numpy', 'scipy') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_api__target_reply__same_keys_as_the_validating_model() -> None:
    reply = cairn_action.TargetReply
    assert set(typing.get_type_hints(reply)) == set(TargetResponse.model_fields)
    assert reply.__required_keys__ == {"answer"}
    assert set(typing.get_type_hints(cairn_action.TargetPassage)) == {"id", "text", "doc", "score"}
    assert cairn_action.TargetPassage.__required_keys__ == {"text"}
    assert cairn_action.TargetCitation.__required_keys__ == {"id"}


def test_public_api__target_reply__a_typed_reply_validates() -> None:
    reply: cairn_action.TargetReply = {
        "answer": "14 days",
        "confidence": 0.8,
        "passages": [{"id": "returns#3", "text": "A customer has 14 days", "doc": "returns.md"}],
        "citations": [{"id": "returns#3"}],
        "used": ["returns#3"],
    }
    assert TargetResponse.model_validate(reply).answer == "14 days"


def test_public_api__squad_metrics__official_v1_1_values() -> None:
    assert cairn_action.exact_match("  the DENVER\tBroncos\n", "Denver Broncos") is True
    assert cairn_action.token_f1("Denver Broncos team", "Denver Broncos") == 0.8
    assert cairn_action.exact_match("the", "A") is True and cairn_action.token_f1("the", "A") == 0


def test_public_api__run_gate__committed_baseline_against_itself_passes(tmp_path: Path) -> None:
    path = committed_copy("reports/latest/default.json", tmp_path / "default.json")
    report = cairn_action.Report.model_validate_json(path.read_bytes())
    result = cairn_action.run_gate(report, report)
    assert isinstance(result, cairn_action.GateResult)
    assert (result.decision.status, result.decision.exit_code) == ("pass", 0)
