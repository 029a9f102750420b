"""The layout shows the data flow: a package never imports from a package later in the flow.

Order: errors, config, golden (with `sample`, the sample-corpus generator, beside it), index, retrieval,
providers, run, score, report, gate, render, attack (the adversarial probes: they run, score and render), gh,
then the entry points (cli and its commands/, action). `squad` (the SQuAD text metrics) is shared by the judge
and the scores.
Only the entry points, config and gh/ read the environment.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "cairn_action"
# Three modules sit lower than their packages: `index.corpus` (reading and hashing documents), because the
# golden set resolves its quotes against a corpus while the chunk store uses the resolved spans, with
# `index.readers` (turning a document file into its rendered text) under it; and `run.models` (the run
# artifact's records), the vocabulary providers answer in.
LAYERS = [
    {"errors", "files", "squad", "__init__", "index.readers"},
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
    {"attack"},
    {"gh"},
    {"cli", "commands", "action", "release", "demo", "__main__", "scaffold"},
]
ENV_READERS = {"cli", "commands", "action", "config", "gh", "__main__"}
# The sealed golden set's key is read where it is used, from its one variable, so that no object, log or
# dataclass repr on the way ever holds it (golden/sealed.py).
ENV_READER_MODULES = {"golden.sealed"}


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
    if _dotted(path).split(".")[0] in ENV_READERS or _dotted(path) in ENV_READER_MODULES:
        return
    source = path.read_text(encoding="utf-8")
    assert "os.environ" not in source and "os.getenv" not in source, f"{path} reads the environment"


# The pure stages read run records (run.models) and nothing else of the expensive half: no artifact or
# shard IO, no provider, no budget guard.
PURE_STAGES = {"score", "report", "gate", "render"}
PURE_MAY_IMPORT_FROM_RUN = {"run.models"}


def _module_names() -> set[str]:
    names = set()
    for path in _modules():
        dotted = _dotted(path)
        names.add(dotted.removesuffix(".__init__") if dotted != "__init__" else "__init__")
    return names


def _edges(path: Path, known: set[str]) -> set[str]:
    """The cairn_action modules `path` imports; `from pkg import mod` runs pkg/__init__ too, so it counts."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cairn_action."):
            base = node.module.removeprefix("cairn_action.")
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name.removeprefix("cairn_action.") for a in node.names if a.name.startswith("cairn_")}
    return found & known


def _import_graph() -> dict[str, set[str]]:
    known = _module_names()
    graph = {}
    for path in _modules():
        dotted = _dotted(path)
        name = dotted.removesuffix(".__init__") if dotted != "__init__" else "__init__"
        graph[name] = _edges(path, known) - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_architecture__no_import_cycles() -> None:
    cycles = [sorted(c) for c in _cycles(_import_graph())]
    assert not cycles, f"import cycles: {cycles}"


def test_architecture__cycle_finder__finds_a_planted_cycle() -> None:
    graph = {"run.pipeline": {"run.target_case"}, "run.target_case": {"run.pipeline"}, "score": set()}
    assert _cycles(graph) == [{"run.pipeline", "run.target_case"}]


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if _dotted(p).split(".")[0] in PURE_STAGES],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_architecture__pure_stages__no_run_io_and_no_providers(path: Path) -> None:
    for name in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        target, where = name.removeprefix("cairn_action."), f"{_dotted(path)} imports {name}"
        if target.startswith("run."):
            assert target in PURE_MAY_IMPORT_FROM_RUN, f"{where}: run IO in a pure stage"
        assert not target.startswith("providers"), f"{where}: a provider in a pure stage"
