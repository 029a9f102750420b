"""The docs say what the code does: generated pages match the code now, every example workflow is included
(not copied) by a page, and the README stays short and keeps the Quickstart that CI runs."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel, Field

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", REPO / "scripts" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_docs", module)
    spec.loader.exec_module(module)
    return module


GEN = _gen_docs()


@pytest.mark.parametrize("rel", sorted(GEN.PAGES))
def test_docs__generated_page__equals_what_the_code_gives_now(rel: str) -> None:
    committed = (REPO / rel).read_text(encoding="utf-8")
    assert committed == GEN.PAGES[rel](), f"{rel} is stale: run scripts/gen-docs and commit the result"


class _Planted(BaseModel):
    """A section for the test."""

    size: int = Field(default=800, ge=100, le=20000)
    """Target chunk length in characters."""
    mode: str = "bm25"


def test_docs__model_tables__row_carries_type_default_bounds_and_docstring() -> None:
    lines = GEN._model_tables(_Planted, lambda path, _m: "Planted", "", set())
    assert lines[0] == "## Planted"
    assert "| `size` | int | `800` | ≥ 100, ≤ 20000 | Target chunk length in characters. |" in lines
    assert '| `mode` | str | `"bm25"` |  |  |' in lines


def test_docs__cli_page__every_subcommand_has_its_help() -> None:
    page = GEN.cli_page()
    for name in ("cairn eval", "cairn gate", "cairn golden quote", "cairn corpus generate", "cairn view"):
        assert f"## `{name}`" in page
    assert "usage: cairn eval" in page


def test_docs__example_workflows__each_included_by_a_page_not_copied() -> None:
    pages = {p: p.read_text(encoding="utf-8") for p in DOCS.rglob("*.md")}
    included = {
        m for text in pages.values() for m in re.findall(r'--8<-- "examples/workflows/([\w.-]+)"', text)
    }
    shipped = {p.name for p in (REPO / "examples" / "workflows").glob("*.yml")}
    assert included == shipped
    for path, text in pages.items():  # a pasted copy would drift: the jobs' keys appear only by inclusion
        assert "runs-on: ubuntu-latest" not in text, f"{path} copies a workflow instead of including it"


def test_docs__nav__lists_every_page() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r":\s+([\w/-]+\.md)\s*$", nav, flags=re.M))
    assert listed == {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}


def test_readme__short__and_keeps_the_quickstart_ci_runs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) <= 12 * 1024
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = re.search(r'stage "quickstart: venv, dev extra, pytest" bash -c \\\n\s+"(.+)"', ci)
    assert command is not None
    assert f"\n{command.group(1)}\n" in readme
    assert "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/cairn eval" in readme


def test_readme__inline_workflow__is_the_shipped_pull_request_gate() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, flags=re.S)
    shipped = (REPO / "examples" / "workflows" / "cairn-pr.yml").read_text(encoding="utf-8")
    assert blocks == [shipped], "README's workflow is not examples/workflows/cairn-pr.yml: copy it again"


def test_readme__links__every_relative_target_exists() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme)
    assert targets
    missing = [t for t in targets if not (REPO / t).exists()]
    assert not missing, f"README links to missing files: {missing}"
