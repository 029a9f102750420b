"""What the evaluation reads, which changed files a comment lists, and the base branch's config name."""

from __future__ import annotations

import pytest

from cairn_action.action.exam import exam_paths, touched, touched_block
from cairn_action.action.gated import name_in
from cairn_action.config import Config
from cairn_action.errors import CairnError


def test_exam__config_in_a_folder__paths_from_the_repository_root() -> None:
    config = Config.model_validate(
        {"target": "python:mypkg.rag:answer", "corpus": {"path": "../docs"}, "golden": {"path": "../golden"}}
    )
    files, folders = exam_paths(config, "configs/exp.toml")
    assert files == ["configs/exp.toml", "golden", "configs/exp.calibration.json", "configs/mypkg.py"]
    assert folders == ["docs", "golden", "configs/mypkg"]


def test_exam__changed_files__only_what_the_evaluation_reads_and_workflows() -> None:
    config = Config.model_validate({"target": "python:rag:answer", "corpus": {"path": "corpus"}})
    changed = [
        "README.md",
        "rag.py",
        "corpus/a.md",
        "golden/golden.jsonl",
        ".github/workflows/ci.yml",
        "x.py",
    ]
    listed = touched(changed, *exam_paths(config, "cairn.toml"))
    assert listed == ["rag.py", "corpus/a.md", "golden/golden.jsonl", ".github/workflows/ci.yml"]
    [line] = touched_block(listed)
    assert "golden/golden.jsonl" in line and "review these changes like code" in line
    assert touched_block([]) == ()


def test_exam__sealed_golden_set__its_key_and_recipients_listed_when_changed() -> None:
    """Anyone can reseal to the public keys: a pull request that replaces the answer key is listed."""
    config = Config.model_validate({"golden": {"path": "golden/questions.jsonl"}})
    changed = ["golden/questions.jsonl", "golden/golden.key.age", "golden/golden.recipients", "notes.md"]
    listed = touched(changed, *exam_paths(config, "cairn.toml"))
    assert listed == ["golden/questions.jsonl", "golden/golden.key.age", "golden/golden.recipients"]


def test_gated__name_at_the_base_commit__read_from_the_toml() -> None:
    assert name_in(b'name = "exp"\n[retrieval]\ntop_k = 3\n', "cairn.toml") == "exp"
    assert name_in(b"[retrieval]\ntop_k = 3\n", "cairn.toml") == "default"
    with pytest.raises(CairnError, match="not valid TOML"):
        name_in(b"name = ", "cairn.toml")
