"""The user's own RAG system as the thing under test: `target = "python:pkg.module:function"` or a URL.

Cairn sends the question and reads back the answer, the passages the system retrieved (best first),
what it cited and how confident it is (schema `TARGET_SCHEMA`, the same for both kinds):

    request  {"question": "...", "case_id": "ret-014", "top_k": 10}
    response {"answer": "14 days" | null, "abstained": false, "confidence": 0.82,
              "passages": [{"id": "returns#3", "text": "...", "doc": "returns.md", "score": 12.1}, ...],
              "citations": [{"id": "returns#3", "quote": "..."}],
              "used": ["returns#3"],
              "usage": {"input_tokens": 812, "output_tokens": 9}, "cost_usd": 0.00013}

Only `answer` matters; everything else is optional. `used` names (by `id`) the passages of `passages`
your answerer was given: the explanation of a wrong answer ("support ranked 4, not among the 1 passage the
answerer used") reads it; without it Cairn says it does not know which passages the answerer saw, and
never assumes the config's `top_k` for a target. A passage may be a bare string. Without
`citations`, every passage counts as cited. A python function receives the question as its one
argument and may return that dict, an object with those attributes, a plain string (the answer) or
None (abstain). A function that raises, or a reply that does not fit, is that case's `error`, with the
raw reply kept.

Retrieval metrics come from the returned passages: each is located verbatim in the corpus (whitespace
aside) so it covers a character span exactly like one of Cairn's chunks; a passage that cannot be
located still covers a support quote it contains. Cairn cannot tell when your system changed, so a
target's answers are never served from the cache (an interrupted run still resumes from its artifact).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import importlib
import json
import re
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cairn_action.errors import ConfigError, InfrastructureError
from cairn_action.files import LIMIT_DOCUMENT, read_bytes
from cairn_action.providers.base import AnswerRequest, AnswerResult
from cairn_action.providers.http import HttpClient
from cairn_action.providers.prompt import parse_probability
from cairn_action.run.models import Citation, Usage

TARGET_SCHEMA = "cairn-target-1"
CONFIDENCE_SOURCE = "target-reported"
_RAW_LIMIT = 4000
_VERSION_LIMIT = 200


class _Strict(BaseModel):
    # A reply outside the schema is an error, never silently read: `{"answr": "x"}` ignored would be an
    # abstention on every case, and every unanswerable case would look perfect.
    model_config = ConfigDict(extra="forbid")


class TargetPassage(_Strict):
    id: str | int | None = None
    text: str
    doc: str | None = None
    score: float | None = None


class TargetCitation(_Strict):
    id: str | int
    quote: str = ""


class TargetUsage(_Strict):
    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cached_input_tokens: int = Field(default=0, ge=0)


class TargetResponse(_Strict):
    """What a target returns (module docstring). `answer` must be there (null to abstain) unless
    `abstained` is true."""

    answer: str | int | float | None = None
    abstained: bool = False
    confidence: float | str | None = None
    passages: list[TargetPassage | str] = Field(default_factory=list)
    citations: list[TargetCitation | str | int] | None = None
    used: list[str | int] | None = None
    """Ids of the returned passages the answerer was given (module docstring)."""
    usage: TargetUsage | None = None
    cost_usd: float | None = Field(default=None, ge=0)


class Passage(BaseModel):
    """A passage the target returned, ranked, and where it sits in the corpus when it could be found."""

    model_config = ConfigDict(extra="forbid")

    id: str
    rank: int
    text: str
    doc: str | None = None
    score: float | None = None
    located_doc: str | None = None
    start: int | None = None
    end: int | None = None


class TargetAnswer(AnswerResult):
    """An answer with the passages the target retrieved (what the retrieval metrics are computed from)."""

    passages: list[Passage] = Field(default_factory=list)
    used: list[str] | None = None
    """Ids of the passages the target's answerer used, when the target said; None when it did not."""


class PassageLocator:
    """Finds a passage's text in the corpus, its document (when named) first: exactly, then with any run
    of whitespace matching any other."""

    def __init__(self, documents: Mapping[str, str]) -> None:
        self.documents = dict(documents)

    def _groups(self, hint: str | None) -> list[list[str]]:
        """The documents the passage names first, then the rest."""
        if not hint:
            return [list(self.documents)]
        hinted = [p for p in self.documents if p == hint or p.endswith("/" + hint)]
        return [hinted, [p for p in self.documents if p not in hinted]]

    def locate(self, text: str, doc_hint: str | None = None) -> tuple[str, int, int] | None:
        """(document path, start, end) of `text` in the corpus, or None. An exact match in a group of
        documents beats a whitespace-insensitive one."""
        words = text.split()
        if not words:
            return None
        pattern = re.compile(r"\s+".join(re.escape(w) for w in words))
        for group in self._groups(doc_hint):
            for path in group:
                start = self.documents[path].find(text)
                if start >= 0:
                    return path, start, start + len(text)
            for path in group:
                match = pattern.search(self.documents[path])
                if match:
                    return path, match.start(), match.end()
        return None


def _public_url(url: str) -> str:
    """The URL without credentials or query (it goes into run records and reports)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def _plain(value: Any) -> Any:
    """A function's return value as JSON-like data."""
    if value is None or isinstance(value, str | dict):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    return value


def to_target_answer(data: Any, locator: PassageLocator | None, raw: str) -> TargetAnswer:
    """Read a target's reply (JSON-like data) into a `TargetAnswer`; a misfit is an `error` result."""
    if data is None:
        return TargetAnswer(abstained=True)
    if isinstance(data, str):
        data = {"answer": data}
    problems = _misfits(data)
    if not problems:
        try:
            response = TargetResponse.model_validate(data)
        except ValidationError as exc:
            errors = [
                e
                for e in exc.errors()  # a dict item does not fit the bare-string or id alternatives either
                if not (e["loc"] and str(e["loc"][-1]) in {"str", "int"} and isinstance(e["input"], dict))
            ]
            errors.sort(key=lambda e: e["type"] != "extra_forbidden")  # the misspelling first
            problems = [_problem(err) for err in errors]
    if problems:
        return TargetAnswer(
            error=f"target reply does not fit {TARGET_SCHEMA}: {'; '.join(problems[:5])}",
            raw_output=raw[:_RAW_LIMIT],
        )
    passages = []
    for rank, item in enumerate(response.passages, start=1):
        passage = TargetPassage(text=item) if isinstance(item, str) else item
        pid = str(passage.id) if passage.id is not None and str(passage.id) else f"passage-{rank}"
        where = locator.locate(passage.text, passage.doc) if locator is not None else None
        passages.append(
            Passage(
                id=pid,
                rank=rank,
                text=passage.text,
                doc=passage.doc,
                score=passage.score,
                located_doc=where[0] if where else None,
                start=where[1] if where else None,
                end=where[2] if where else None,
            )
        )
    used = None if response.used is None else [str(u) for u in response.used]
    unknown = sorted(set(used or ()) - {p.id for p in passages})
    if unknown:
        return TargetAnswer(
            error=f"target reply does not fit {TARGET_SCHEMA}: used: names passages it did not return: "
            f"{', '.join(unknown[:5])} (each id in `used` must be the `id` of one of `passages`)",
            raw_output=raw[:_RAW_LIMIT],
        )
    if response.citations is None:
        citations = [Citation(chunk_id=p.id) for p in passages]
    else:
        citations = [
            Citation(chunk_id=str(c.id), quote=c.quote)
            if isinstance(c, TargetCitation)
            else Citation(chunk_id=str(c))
            for c in response.citations
        ]
    answer = None if response.answer is None else str(response.answer).strip() or None
    confidence = parse_probability(response.confidence)
    usage = response.usage
    return TargetAnswer(
        answer_text=answer,
        abstained=response.abstained or answer is None,
        citations=citations if answer is not None else [],
        confidence=confidence,
        confidence_source=CONFIDENCE_SOURCE if confidence is not None else "",
        usage=Usage(**usage.model_dump()) if usage is not None else Usage(),
        cost_usd=response.cost_usd,
        passages=passages,
        used=used,
    )


_MODELS: dict[str, type[BaseModel]] = {
    "": TargetResponse,
    "passages": TargetPassage,
    "citations": TargetCitation,
    "usage": TargetUsage,
}


def _problem(err: Any) -> str:
    """One pydantic error as `where: what`, an unknown key with the closest known one."""
    loc = [str(p) for p in err["loc"] if not str(p).startswith(("TargetPassage", "TargetCitation"))]
    loc = [p for p in loc if p not in {"str", "int"}]
    where = ".".join(loc) or "(top level)"
    if err["type"] == "extra_forbidden":
        section = next((p for p in reversed(loc[:-1]) if p in _MODELS), "")
        known = list(_MODELS[section].model_fields)
        close = difflib.get_close_matches(loc[-1], known, n=1, cutoff=0.6)
        mean = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(known)})"
        return f"unknown key '{where}'{mean}"
    return f"{where}: {err['msg']}"


def _misfits(data: Any) -> list[str]:
    """What the model cannot say by itself: a reply that is not an object, or one without `answer`."""
    if not isinstance(data, dict):
        return [f"the reply is a {type(data).__name__}, not an object with 'answer'"]
    if "answer" not in data and data.get("abstained") is not True:
        unknown = [k for k in data if k not in TargetResponse.model_fields]
        close = [c for k in unknown for c in difflib.get_close_matches(str(k), ["answer"], n=1, cutoff=0.6)]
        problems = [_problem({"loc": (k,), "type": "extra_forbidden", "msg": ""}) for k in unknown]
        if not close:
            problems.append('no \'answer\' (send "answer": null, or "abstained": true, to abstain)')
        return problems
    return []


class _Target:
    """What both target kinds share: the `Answerer` protocol plus `retrieves` and `ask`."""

    name = "target"
    model: str
    retrieves = True
    """The target retrieves for itself: the run measures retrieval on the passages it returns."""
    locator: PassageLocator | None = None

    def code_hash(self) -> str:
        """16 hex digits identifying the system under test (`target_hash`): see the subclasses."""
        raise NotImplementedError

    def request_key(self, request: AnswerRequest) -> str:
        payload = {"target": self.model, "schema": TARGET_SCHEMA, "question": request.question}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    def ask(self, request: AnswerRequest) -> TargetAnswer:
        raise NotImplementedError

    def answer(self, request: AnswerRequest) -> AnswerResult:
        return self.ask(request)


class PythonTarget(_Target):
    """`python:package.module:function`, called in-process with the question."""

    def __init__(self, function: Callable[[str], Any], spec: str, *, top_k: int = 10) -> None:
        self.function = function
        self.model = spec
        self.top_k = top_k

    def code_hash(self) -> str:
        """The content of the module the spec names, or of its whole top-level package when it is in
        one (`python:rag.chain:answer` hashes every .py file of `rag/`): two different systems under one
        config never share an identity. Libraries it imports from elsewhere are not included."""
        return python_code_hash(self.function)

    def ask(self, request: AnswerRequest) -> TargetAnswer:
        try:
            value = self.function(request.question)
        except Exception as exc:
            tail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            return TargetAnswer(
                error=f"target raised {tail}"[:500], raw_output=traceback.format_exc()[-_RAW_LIMIT:]
            )
        data = _plain(value)
        try:
            raw = json.dumps(data, default=str)
        except (TypeError, ValueError):
            raw = repr(data)
        return to_target_answer(data, self.locator, raw)


class HttpTarget(_Target):
    """`http(s)://...`: POST the request JSON, read the response JSON."""

    def __init__(self, url: str, http: HttpClient, *, api_key: str | None = None, top_k: int = 10) -> None:
        self.url = url
        self.model = _public_url(url)
        self.http = http
        self.api_key = api_key
        self.top_k = top_k
        self.version: str | None = None
        """What the service's `target_version_url` reported this run (`read_version`), else None."""

    def read_version(self, url: str) -> str:
        """GET `url` once and keep the version it reports: a JSON object's `version` field, else the whole
        body (stripped). No key is sent: a version is not a secret, and the config (which a pull request
        may edit) could point this URL anywhere. InfrastructureError when the service cannot say."""
        try:
            text = self.http.get(url, {}).text.strip()
        except InfrastructureError as exc:
            raise InfrastructureError(
                f"target_version_url: {exc.message}",
                "the URL must answer a GET with the deployed version; or remove target_version_url",
            ) from None
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        value = data.get("version") if isinstance(data, dict) else None
        version = str(value).strip() if isinstance(value, (str, int, float)) else text
        if not version:
            raise InfrastructureError(
                f"target_version_url: {_public_url(url)} replied with no version",
                "reply with the version (a plain body, or JSON with a `version` field), or remove "
                "target_version_url",
            )
        # Printed in the run's log: the service's text, so no control characters (a terminal escape).
        self.version = "".join(c if c.isprintable() else "?" for c in version[:_VERSION_LIMIT])
        return self.version

    def code_hash(self) -> str:
        """The service's URL (without credentials or query), and the version it reported when the config
        has `target_version_url`: Cairn cannot see the code behind the URL, the service can say."""
        version = "" if self.version is None else f"\0version\0{self.version}"
        return hashlib.sha256(f"http\0{self.model}{version}".encode()).hexdigest()[:16]

    def ask(self, request: AnswerRequest) -> TargetAnswer:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        payload = {"question": request.question, "case_id": request.case_id, "top_k": self.top_k}
        reply = self.http.post(self.url, payload, headers)  # InfrastructureError after the retries
        try:
            data = reply.json()
        except ValueError:
            return TargetAnswer(error="target reply is not JSON", raw_output=reply.text[:_RAW_LIMIT])
        return to_target_answer(data, self.locator, reply.text)


def python_code_hash(function: Callable[..., Any]) -> str:
    """sha256 (16 hex) over the source files of `function`'s module, or of its top-level package."""
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    top = sys.modules.get((getattr(module, "__name__", "") or "").split(".")[0]) if module else None
    files: list[Path] = []
    if top is not None and getattr(top, "__path__", None):
        for folder in top.__path__:
            files += sorted(p for p in Path(folder).rglob("*.py") if "__pycache__" not in p.parts)
        base = [Path(f) for f in top.__path__]
    elif module is not None and getattr(module, "__file__", None):
        files = [Path(module.__file__)]  # type: ignore[arg-type]
        base = [files[0].parent]
    else:
        base = []
    digest = hashlib.sha256(f"python\0{getattr(function, '__qualname__', '')}\n".encode())
    for file in files:
        rel = next((file.relative_to(b).as_posix() for b in base if file.is_relative_to(b)), file.name)
        source = read_bytes(file, what="the target's source", limit=LIMIT_DOCUMENT)
        digest.update(f"{rel}\0{hashlib.sha256(source).hexdigest()}\n".encode())
    return digest.hexdigest()[:16]


def load_python_target(spec: str, search_path: Path | None = None) -> Callable[[str], Any]:
    """Import the function named by `python:package.module:function`; ConfigError when it cannot."""
    body = spec.removeprefix("python:")
    module_name, _, function_name = body.partition(":")
    hint = 'write target = "python:package.module:function" (the module importable from the config\'s folder)'
    if not module_name or not function_name:
        raise ConfigError(f"target: '{spec}' does not name a module and a function", hint)
    if search_path is not None and str(search_path) not in sys.path:
        sys.path.insert(0, str(search_path))  # like pytest's rootdir: the user's package beside the config
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # an ImportError, or the module's own code failing on import
        raise ConfigError(
            f"target: cannot import '{module_name}': {type(exc).__name__}: {exc}", hint
        ) from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ConfigError(f"target: '{module_name}' has no function '{function_name}'", hint)
    return function
