"""The layout shows the data flow: a package never imports from a package later in the flow.

Order: errors, config, golden (with `sample`, the sample-corpus generator, beside it), index, retrieval,
providers, run, score, report, gate, render, attack (the adversarial probes: they run, score and render),
gh (the GitHub adapter), action (the Action's modes, over the adapter), then the entry points (cli and its
commands/, and `action.entry`, what the container runs). `squad` (the SQuAD text metrics) is shared by the
judge and the scores; `contract` (the target contract's types) by everyone. The package root re-exports the
public API from every layer (lazily: cairn_action/__init__.py), so it sits with the entry points.
Each check collects every violation in the package and reports them all at once.
Only the entry points, config and gh/ read the environment, and only files.py reads or writes files (with the
few exceptions FILE_IO_ELSEWHERE names, each with its reason).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "cairn_action"
# Three modules sit lower than their packages: `index.corpus` (reading and hashing documents), because the
# golden set resolves its quotes against a corpus while the chunk store uses the resolved spans, with
# `index.readers` (turning a document file into its rendered text) under it; and `run.models` (the run
# artifact's records), the vocabulary providers answer in.
LAYERS = [
    {"errors", "files", "startup", "squad", "contract", "index.readers"},
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
    {"action"},
    {"cli", "commands", "action.entry", "demo", "__main__", "scaffold", "__init__"},
]
ENV_READERS = {"cli", "commands", "config", "gh", "__main__"}
# The sealed golden set's key is read where it is used, from its one variable, so that no object, log or
# dataclass repr on the way ever holds it (golden/sealed.py).
# The Action reads its environment in its entry point only (action/entry.py), not in its modes.
ENV_READER_MODULES = {"golden.sealed", "action.entry"}


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


def _sources() -> dict[str, str]:
    return {_dotted(path): path.read_text(encoding="utf-8") for path in _modules()}


def _layer_violations(sources: dict[str, str]) -> list[str]:
    """Every import of a later stage, in every module (dotted name -> source)."""
    found = []
    for dotted, source in sorted(sources.items()):
        own = _layer_of(dotted)
        for name in _imports(ast.parse(source)):
            target = name.removeprefix("cairn_action.")
            if name.startswith("cairn_action.") and _layer_of(target) > own:
                found.append(f"{dotted} imports {name}, a later stage")
    return found


def _environment_violations(sources: dict[str, str]) -> list[str]:
    return [
        f"{dotted} reads the environment"
        for dotted, source in sorted(sources.items())
        if dotted.split(".")[0] not in ENV_READERS
        and dotted not in ENV_READER_MODULES
        and ("os.environ" in source or "os.getenv" in source)
    ]


def _assert_none(violations: list[str], what: str) -> None:
    """All of them in one failure, so a refactor sees every place to fix at once."""
    assert not violations, f"{len(violations)} {what}:\n" + "\n".join(violations)


def test_architecture__modules__import_only_earlier_layers() -> None:
    violations = _layer_violations(_sources())
    _assert_none(violations, "imports of a later stage")


def test_architecture__environment__read_only_by_entry_points() -> None:
    violations = _environment_violations(_sources())
    _assert_none(violations, "modules read the environment")


def test_architecture__checks__report_every_violation_not_the_first() -> None:
    planted = {
        "score.x": "from cairn_action.gate import a\nfrom cairn_action.render import b\nos.environ[1]",
        "index.y": "from cairn_action.run import c\nos.getenv('X')",
        "gate.z": "from cairn_action.score import d",
    }
    assert _layer_violations(planted) == [
        "index.y imports cairn_action.run, a later stage",
        "score.x imports cairn_action.gate, a later stage",
        "score.x imports cairn_action.render, a later stage",
    ]
    assert _environment_violations(planted) == [
        "index.y reads the environment",
        "score.x reads the environment",
    ]


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


def _pure_stage_violations(sources: dict[str, str]) -> list[str]:
    found = []
    for dotted, source in sorted(sources.items()):
        if dotted.split(".")[0] not in PURE_STAGES:
            continue
        for name in _imports(ast.parse(source)):
            target, where = name.removeprefix("cairn_action."), f"{dotted} imports {name}"
            if target.startswith("run.") and target not in PURE_MAY_IMPORT_FROM_RUN:
                found.append(f"{where}: run IO in a pure stage")
            if target.startswith("providers"):
                found.append(f"{where}: a provider in a pure stage")
    return found


def test_architecture__pure_stages__no_run_io_and_no_providers() -> None:
    violations = _pure_stage_violations(_sources())
    _assert_none(violations, "pure-stage violations")


def test_architecture__pure_stage_check__reports_every_violation() -> None:
    planted = {
        "render.a": "from cairn_action.run.journal import j\nfrom cairn_action.providers import p",
        "run.b": "from cairn_action.providers import p",
    }
    assert _pure_stage_violations(planted) == [
        "render.a imports cairn_action.run.journal: run IO in a pure stage",
        "render.a imports cairn_action.providers: a provider in a pure stage",
    ]


# Every file is read or written through files.py (its size limits, strict UTF-8, atomic writes and its
# `path: what` DataErrors). These modules do what files.py's whole-file helpers cannot, each for a reason:
FILE_IO_ELSEWHERE = {
    "files": "the helpers themselves",
    "action.child.index_folder": "opens relative to folder descriptors with O_NOFOLLOW, so a symlink planted "
    "in the index cache cannot redirect a read or a write",
    "run.artifact": "streams the run artifact: read line by line, appended record by record as cases finish",
    "run.lock": "holds the lock file open for the run's length (flock); reads and writes nothing",
    "retrieval.embedding": "hashes the embedding model (hundreds of MB) in 1 MiB blocks, never read whole",
    "commands.show": "points stdout at os.devnull once a pager has closed the pipe",
    "scaffold.my_rag": "the user's stand-in target that `cairn init` copies into a new project: user code",
}
_FILE_IO_CALLS = {"read_text", "write_text", "read_bytes", "write_bytes", "open", "fdopen"}


def _file_io_violations(sources: dict[str, str]) -> list[str]:
    """Every `open(...)`, `x.open(...)`, `x.read_text(...)` and the like outside files.py and the modules
    above; a call on the `files` module itself (`files.read_text`) is the way it should be."""
    found = []
    for dotted, source in sorted(sources.items()):
        if dotted in FILE_IO_ELSEWHERE:
            continue
        calls = sorted(
            (n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)), key=lambda n: n.lineno
        )
        for node in calls:
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.append(f"{dotted}:{node.lineno} calls open()")
            elif (
                isinstance(func, ast.Attribute)
                and func.attr in _FILE_IO_CALLS
                and not (isinstance(func.value, ast.Name) and func.value.id == "files")
            ):
                found.append(f"{dotted}:{node.lineno} calls .{func.attr}()")
    return found


def test_architecture__file_io__only_through_files_py() -> None:
    violations = _file_io_violations(_sources())
    _assert_none(violations, "file reads or writes outside files.py")


def test_architecture__file_io_check__reports_every_violation() -> None:
    planted = {
        "report.a": "def f(p):\n    return p.read_text(encoding='utf-8')\n",
        "gh.b": "with open(x) as f:\n    pass\nos.open(y, 0)\nfiles.read_text(z)\n",
        "run.lock": "os.open(y, 0)\n",
    }
    assert _file_io_violations(planted) == [
        "gh.b:1 calls open()",
        "gh.b:3 calls .open()",
        "report.a:2 calls .read_text()",
    ]
