"""The experiment configuration: a TOML file with a name, validated by pydantic.

Several configs can live side by side (`cairn.toml`, `configs/*.toml`); the leaderboard ranks them by
name. `config_hash` identifies what was measured: it leaves out paths and run mechanics (cache folder,
concurrency), so two machines with different checkouts agree on it.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cairn_action.errors import ConfigError

DEFAULT_CONFIG_FILE = "cairn.toml"
DEFAULT_CONFIG_NAME = "default"
SAMPLE_CORPUS_DIR = "data/sample"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CorpusConfig(_Section):
    path: str = SAMPLE_CORPUS_DIR
    """Folder of documents, relative to the config file's folder (or absolute)."""


class GoldenConfig(_Section):
    path: str = "golden/golden.jsonl"
    """golden.jsonl (with golden.version beside it) or a folder holding it."""


class ChunkingConfig(_Section):
    size: int = Field(default=800, ge=100, le=20000)
    """Target chunk length in characters."""
    overlap: int = Field(default=160, ge=0)
    """Characters shared by neighbouring chunks."""

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingConfig:
        if self.overlap >= self.size:
            raise ValueError(f"overlap ({self.overlap}) must be smaller than size ({self.size})")
        return self


class RetrievalConfig(_Section):
    mode: Literal["bm25"] = "bm25"
    top_k: int = Field(default=5, ge=1, le=100)
    """Chunks handed to the answerer."""
    depth: int = Field(default=10, ge=10, le=1000)
    """Chunks ranked for the retrieval metrics (at least 10, for recall@10 and nDCG@10)."""


class ProviderConfig(_Section):
    name: str = "stub"
    model: str = "stub-extractive-v1"
    base_url: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the API key; the key itself never goes in a file."""
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 60.0
    max_retries: int = Field(default=4, ge=0, le=20)
    requests_per_minute: int | None = Field(default=None, ge=1)


class JudgeConfig(_Section):
    name: str = "lexical"
    model: str | None = None
    f1_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Lexical judge: an answer is correct when it contains the expected answer or reaches this token F1."""


class RunConfig(_Section):
    max_concurrency: int = Field(default=4, ge=1, le=256)
    cache_dir: str = ".cairn/cache"


class CalibrationConfig(_Section):
    alpha: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Target error rate among answered cases."""
    delta: float = Field(default=0.1, gt=0.0, lt=1.0)
    """Allowed probability that the guarantee fails."""
    seed: int = 0
    fraction: float = Field(default=0.4, gt=0.0, lt=1.0)
    """Share of the golden set in the calibration slice."""
    path: str | None = None
    """Where `cairn calibrate` writes the threshold; default `<config stem>.calibration.json` beside the config."""


class GateConfig(_Section):
    critical_tags: list[str] = Field(default_factory=lambda: ["safety", "unanswerable", "false_premise"])
    max_p_value: float = Field(default=0.05, gt=0.0, lt=1.0)
    """Fail when correctness drops with a one-sided exact McNemar p-value below this."""
    max_drop: dict[str, float] = Field(default_factory=lambda: {"recall_at_5": 0.05})
    """Largest allowed fall of a higher-is-better metric (or rise of a lower-is-better one), in its unit."""
    floors: dict[str, float] = Field(default_factory=dict)
    """Absolute bounds a metric must stay on the right side of."""
    override_label: str = "cairn-override"


class BudgetConfig(_Section):
    max_cost_usd: float | None = Field(default=None, ge=0.0)


class Config(_Section):
    name: str = Field(default=DEFAULT_CONFIG_NAME, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
    description: str = ""
    target: str | None = None
    """The user's own system: `python:package.module:function` or `http(s)://...`; None uses `provider`."""
    corpus: CorpusConfig = Field(default_factory=CorpusConfig)
    golden: GoldenConfig = Field(default_factory=GoldenConfig)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    provider: ProviderConfig = Field(default_factory=ProviderConfig)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    calibration: CalibrationConfig = Field(default_factory=CalibrationConfig)
    gate: GateConfig = Field(default_factory=GateConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)


class LoadedConfig(BaseModel):
    """A config with where it came from; paths in it resolve against `base_dir`."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    config: Config
    source: Path | None
    """The TOML file, or None for the embedded default."""
    base_dir: Path
    embedded: bool = False

    def resolve(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.base_dir / p

    @property
    def corpus_dir(self) -> Path:
        return self.resolve(self.config.corpus.path)

    @property
    def golden_path(self) -> Path:
        return self.resolve(self.config.golden.path)

    @property
    def cache_dir(self) -> Path:
        return self.resolve(self.config.run.cache_dir)

    @property
    def calibration_path(self) -> Path:
        if self.config.calibration.path:
            return self.resolve(self.config.calibration.path)
        stem = self.source.stem if self.source else self.config.name
        return self.base_dir / f"{stem}.calibration.json"


# Fields that say where things are or how fast to run, not what is measured.
_UNHASHED = {"corpus": {"path"}, "golden": {"path"}, "run": True, "calibration": {"path"}, "description": True}


def config_hash(config: Config) -> str:
    """16 hex digits identifying the experiment; paths and run mechanics excluded."""
    data = config.model_dump(mode="json", exclude=_UNHASHED)
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _format_validation_error(source: Path, exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        if err["type"] == "extra_forbidden":
            problems.append(f"unknown key '{where}'")
        else:
            problems.append(f"'{where}': {err['msg']}")
    return f"{source}: " + "; ".join(problems)


def parse_config(data: dict, source: Path) -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            _format_validation_error(source, exc),
            "see the README's configuration section for the keys each section takes",
        ) from None


def load_config(path: Path | None, *, cwd: Path | None = None) -> LoadedConfig:
    """Load `path`, or `cairn.toml` in `cwd` if present, or the embedded default.

    An explicit path that does not exist is an error; a missing default file means the embedded
    default (the seed-7 sample corpus and the shipped golden set).
    """
    cwd = cwd or Path.cwd()
    if path is None:
        candidate = cwd / DEFAULT_CONFIG_FILE
        if not candidate.is_file():
            return embedded_default(cwd)
        path = candidate
    if not path.is_file():
        raise ConfigError(f"{path}: config file not found", "pass --config FILE, or omit it for the default")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}", "check the file's syntax") from None
    config = parse_config(data, path)
    return LoadedConfig(config=config, source=path, base_dir=path.parent.resolve())


def embedded_golden_path() -> Path:
    """The shipped golden set: inside the installed wheel, or at the repository root in a checkout."""
    package = Path(__file__).resolve().parent
    for candidate in (package / "_embedded_golden", package.parent / "golden"):
        if (candidate / "golden.jsonl").is_file():
            return candidate / "golden.jsonl"
    raise ConfigError("the shipped golden set is missing from this installation", "reinstall cairn-action")


def embedded_default(cwd: Path) -> LoadedConfig:
    """The config named `default`: the seed-7 sample corpus in data/sample and the shipped golden set."""
    config = Config(
        name=DEFAULT_CONFIG_NAME,
        corpus=CorpusConfig(path=SAMPLE_CORPUS_DIR),
        golden=GoldenConfig(path=str(embedded_golden_path())),
    )
    return LoadedConfig(config=config, source=None, base_dir=cwd.resolve(), embedded=True)
