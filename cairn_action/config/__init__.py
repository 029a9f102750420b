"""The experiment configuration: a TOML file with a name, validated by pydantic.

`models` holds the sections and `Config`, `loading` reads a file (or the embedded default) with every
problem at its `file:line`, `digest` says what identifies the experiment (`config_hash`). The names below
are the package's public surface: `from cairn_action.config import X` works for each.
"""

from cairn_action.config.digest import UNHASHED, config_hash, experiment_settings, prune_retrieval_defaults
from cairn_action.config.loading import (
    LoadedConfig,
    embedded_default,
    embedded_golden_path,
    is_shipped_golden,
    load_config,
    parse_config,
)
from cairn_action.config.models import (
    ATTACK_FAMILIES,
    DEFAULT_CONFIG_FILE,
    DEFAULT_CONFIG_NAME,
    SAMPLE_CORPUS_DIR,
    AttackConfig,
    AttackFamily,
    BudgetConfig,
    CalibrationConfig,
    ChunkingConfig,
    Config,
    CorpusConfig,
    GateConfig,
    GoldenConfig,
    HttpUrl,
    JudgeConfig,
    NonBlank,
    PriceConfig,
    ProviderConfig,
    RetrievalConfig,
    RunConfig,
    TargetSpec,
)

__all__ = [
    "ATTACK_FAMILIES",
    "DEFAULT_CONFIG_FILE",
    "DEFAULT_CONFIG_NAME",
    "SAMPLE_CORPUS_DIR",
    "UNHASHED",
    "AttackConfig",
    "AttackFamily",
    "BudgetConfig",
    "CalibrationConfig",
    "ChunkingConfig",
    "Config",
    "CorpusConfig",
    "GateConfig",
    "GoldenConfig",
    "HttpUrl",
    "JudgeConfig",
    "LoadedConfig",
    "NonBlank",
    "PriceConfig",
    "ProviderConfig",
    "RetrievalConfig",
    "RunConfig",
    "TargetSpec",
    "config_hash",
    "embedded_default",
    "embedded_golden_path",
    "experiment_settings",
    "is_shipped_golden",
    "load_config",
    "parse_config",
    "prune_retrieval_defaults",
]
