"""What an offline `cairn eval` on the sample must not import (issue 27, the offline floor).

Each of these modules cost every start without serving the command (`python -X importtime`): scipy.stats
(~0.9 s, once pulled in by the judge check's Wilson interval), the HTTP stack and chat clients, the
templating and GitHub libraries, the dense encoder's runtime. The eval runs in a fresh interpreter, since
this test process has imported most of them already; the child reports its `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from repo_files import sample_project

# Never needed by a BM25 run of the stub answerer with the lexical judge, cold or warm.
NEVER = (
    "scipy.stats",
    "requests",
    "jinja2",
    "github",
    "onnxruntime",
    "tokenizers",
    "cairn_action.providers.build",
    "cairn_action.providers.target",
    # The query rewriter and reranker (no rewriter or reranker configured), the dense half of retrieval.
    "cairn_action.providers.query_llm",
    "cairn_action.retrieval.build_dense",
    "cairn_action.retrieval.dense",
    "cairn_action.retrieval.embedding",
    "cairn_action.golden.agreement",  # the judge check's kappa: `cairn judge check`, not a report
    # The LLM judge and what it brings (the lexical judge is configured): run/graded.py.
    "cairn_action.providers.llm_judge",
    "cairn_action.providers.llm_answerer",
    "cairn_action.providers.chat",
    "cairn_action.providers.prompt",
)
# The sample's generator: the first run writes the corpus, a later one only checks its digest.
ONLY_TO_GENERATE = ("cairn_action.sample.draw", "cairn_action.sample.facts", "cairn_action.sample.documents")
# Needed only to build a BM25 index: a warm run reads the cached one without them, and the first run of the
# sample copies the package's prebuilt one (`sample/index/`).
# numpy.ma comes with scipy; a report's latency percentiles (score/operational.py) no longer pull it in
# through np.percentile.
ONLY_TO_BUILD = ("bm25s", "scipy", "numpy.ma")

# The child also refuses to read model classes' attribute docstrings (pydantic's `use_attribute_docstrings`):
# they are read only when a JSON schema is exported (report/schema.py), never on a run's start.
_CHILD = """
import json, sys
import pydantic._internal._fields as fields
def refuse(cls, use_inspect=False):
    raise AssertionError(f"{cls.__name__}: attribute docstrings read at run time")
fields.extract_docstrings_from_cls = refuse
from cairn_action.cli import main
code = main(["eval"])
json.dump({"code": code, "modules": sorted(sys.modules)}, open(sys.argv[1], "w"))
"""


def _eval_modules(project: Path, out: Path) -> set[str]:
    subprocess.run(
        [sys.executable, "-c", _CHILD, str(out)], cwd=project, check=True, capture_output=True, timeout=300
    )
    result = json.loads(out.read_text())
    assert result["code"] == 0
    return set(result["modules"])


def _offenders(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


def test_offline_eval__sample_cold_then_warm__imports_nothing_it_does_not_use(tmp_path: Path) -> None:
    project = sample_project(tmp_path / "project")

    cold = _eval_modules(project, tmp_path / "cold.json")
    assert _offenders(cold, NEVER + ONLY_TO_BUILD) == []
    assert "cairn_action.report.models" in cold  # the child did run the eval through to the report
    assert "cairn_action.sample.facts" in cold  # the first run generated the sample corpus

    warm = _eval_modules(project, tmp_path / "warm.json")
    assert _offenders(warm, NEVER + ONLY_TO_BUILD + ONLY_TO_GENERATE) == []

    # Other chunks than the shipped ones: this run builds its BM25 index (bm25s), and still needs no more.
    config = project / "cairn.toml"
    config.write_text(config.read_text().replace("size = 800", "size = 700"))
    built = _eval_modules(project, tmp_path / "built.json")
    assert "bm25s" in built
    assert _offenders(built, NEVER + ONLY_TO_GENERATE) == []
