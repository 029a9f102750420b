"""The layout shows the data flow: a package never imports from a package later in the flow.

Order: errors, config, golden (with `sample`, the sample-corpus generator, beside it), index, retrieval,
providers, run, score, report, gate, render, gh, then the entry points (cli and its commands/, action).
`squad` (the SQuAD text metrics) is shared by the judge and the scores.
Only the entry points, config and gh/ read the environment.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cairn_action"
# Two modules sit lower than their packages: `index.corpus` (reading and hashing documents), because the
# golden set resolves its quotes against a corpus while the chunk store uses the resolved spans; and
# `run.models` (the run artifact's records), the vocabulary providers answer in.
LAYERS = [
    {"errors", "squad", "__init__"},
    {"config", "index.corpus", "run.models"},
    {"golden", "sample"},
    {"index"},
    {"retrieval"},
    {"providers"},
    {"run"},
    {"score"},
    {"report"},
    {"gate"},
    {"render"},
    {"gh"},
    {"cli", "commands", "action", "release", "demo", "__main__"},
]
ENV_READERS = {"cli", "commands", "action", "config", "gh", "__main__"}


def _layer_of(dotted: str) -> int:
    """Layer of `pkg.module` (a module named in LAYERS wins over its package)."""
    parts = dotted.split(".")
    for key in (".".join(parts[:2]), parts[0]):
        for i, names in enumerate(LAYERS):
            if key in names:
                return i
    raise AssertionError(f"cairn_action.{dotted} is in no layer: add it to LAYERS in {__file__}")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "_embedded_golden" not in p.parts)


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE).with_suffix("").parts)


def _imports(tree: ast.AST) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_architecture__module__imports_only_earlier_layers(path: Path) -> None:
    own = _layer_of(_dotted(path))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for name in _imports(tree):
        if not name.startswith("cairn_action."):
            continue
        target = name.removeprefix("cairn_action.")
        assert _layer_of(target) <= own, f"{_dotted(path)} imports {name}, a later stage"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_architecture__environment__read_only_by_entry_points(path: Path) -> None:
    if _dotted(path).split(".")[0] in ENV_READERS:
        return
    source = path.read_text(encoding="utf-8")
    assert "os.environ" not in source and "os.getenv" not in source, f"{path} reads the environment"
