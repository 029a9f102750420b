"""Running `cairn eval` end to end in a scratch folder, reading what it wrote, scanning it for secrets."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cairn_action.cli import main
from cairn_action.run.artifact import read_artifact
from cairn_action.run.models import CaseRecord

REPO = Path(__file__).resolve().parents[2]
TINY = REPO / "tests" / "data" / "tiny_rag"
TINY_CASES = 8


def write_config(folder: Path, name: str, body: str) -> Path:
    """A cairn.toml over the tiny corpus and golden set, plus `body` (more keys and sections).

    Unless `body` has a [gate] section, every case is asked once (`baseline_samples = 1`), so a test
    of a provider or target counts one call per case; tests/integration/test_eval_samples.py pins the
    sampling itself."""
    gate = "" if "[gate]" in body else "\n[gate]\nbaseline_samples = 1\n"
    text = (
        f'name = "{name}"\n{body.strip()}\n\n'
        f'[corpus]\npath = "{TINY / "corpus"}"\n\n[golden]\npath = "{TINY / "golden.jsonl"}"\n{gate}'
    )
    path = folder / "cairn.toml"
    path.write_text(text, encoding="utf-8")
    return path


@dataclass(frozen=True)
class Evaluated:
    code: int
    out: str
    err: str
    folder: Path
    name: str

    @property
    def report(self) -> dict[str, Any]:
        """The report this run wrote (the path `cairn eval` printed; `--split all` never writes latest/)."""
        shown = next(line for line in self.out.splitlines() if line.startswith("report: "))
        path = shown.removeprefix("report: ").split(" (")[0]
        return json.loads((self.folder / path).read_text(encoding="utf-8"))

    @property
    def records(self) -> list[CaseRecord]:
        """The records of this run's artifact (the path `cairn eval` printed)."""
        shown = next(line for line in self.out.splitlines() if line.startswith("run artifact: "))
        return list(read_artifact(self.folder / shown.removeprefix("run artifact: ")).records)


def evaluate(
    folder: Path, name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *extra: str
) -> Evaluated:
    """`cairn eval --split all` in `folder` (its cairn.toml), as a user would run it."""
    monkeypatch.chdir(folder)
    capsys.readouterr()
    code = main(["eval", "--split", "all", "--no-progress", *extra])
    captured = capsys.readouterr()
    return Evaluated(code=code, out=captured.out, err=captured.err, folder=folder, name=name)


def files_containing(folder: Path, secret: str) -> list[Path]:
    """Every file under `folder` whose bytes contain `secret` (reports, artifacts, cache entries...)."""
    needle = secret.encode()
    return [p for p in folder.rglob("*") if p.is_file() and needle in p.read_bytes()]
