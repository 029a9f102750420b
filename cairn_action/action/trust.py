"""What only the trusted side decides: which variables reach the evaluation, and where a secret may go.

Everything in the pull request's checkout, `cairn.toml` included, is data about the system under test.
Nothing in it decides which secrets exist, where they are sent, who judges or who may override. So:

- The evaluation child receives exactly the variables the workflow lists in the `env` input (and what
  Python and HTTP need: sandbox.py). A config's `api_key_env` may only name one of them. Names of the
  runner's own families (`GITHUB_*`, `ACTIONS_*`, `INPUT_*`, `RUNNER_*`) are refused even when listed,
  and so is any listed variable that holds the GitHub token or a runner token.
- A secret goes only where the base branch already sends it: each (secret, endpoint) pair a config makes
  Cairn's own HTTP clients use (the answering provider, its query rewriter and reranker, an HTTP target)
  must be one the base branch's config of the same file has, or the endpoint must be on the
  `allowed-endpoints` input. A pull request that moves a key to a new host is refused before anything runs.
- The judge is the trusted config's (the base branch's in PR mode), and it runs in this process
  (action/judging.py), never beside the target's code.

Outside the Action (`cairn eval` on a laptop) none of this applies: the user is the trusted side.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from cairn_action.config import Config, LoadedConfig
from cairn_action.errors import CairnError
from cairn_action.golden.sealed import KEY_ENV
from cairn_action.providers.anthropic import messages_url
from cairn_action.providers.openai_compat import DEFAULT_BASE_URL as OPENAI_BASE_URL

RESERVED_PREFIXES = ("GITHUB_", "ACTIONS_", "INPUT_", "RUNNER_")
"""The runner's own variables: tokens, file commands and inputs. Never passed to the evaluation."""
_RUNNER_SECRET = re.compile(r"(?i)token|secret|key|password")
_CHAT = ("openai", "anthropic")
_DEFAULT_PORTS = {"http": 80, "https": 443}
ENV_INPUT = "env"
ENDPOINTS_INPUT = "allowed-endpoints"


@dataclass(frozen=True, kw_only=True)
class Grants:
    """What the workflow grants the evaluation: its `env` variables and `allowed-endpoints`."""

    variables: Mapping[str, str] = field(default_factory=dict, repr=False)
    allowed_endpoints: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Trusted:
    """The config that decides for one evaluated config: the base branch's copy of the same file in PR
    mode (None when the pull request adds the file), the checkout's own in baseline mode."""

    config: Config | None
    where: str
    """Where it was read, for messages: `cairn.toml at 1a2b3c4d5e6f`."""
    left_out: Mapping[str, str] = field(default_factory=dict)
    """Case id -> why this process leaves it out of the scores whatever the run recorded (a critical case
    confirmed only by the pull request's author: action/golden_review.py)."""


def is_reserved(name: str) -> bool:
    return name.upper().startswith(RESERVED_PREFIXES)


def endpoint(url: str) -> str:
    """`scheme://host:port/path` with the default port spelled out, lower-cased scheme and host, no
    user, query or fragment, and no trailing slash: two spellings of one endpoint compare equal."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme, 0)
    except ValueError:
        port = 0
    # Dot segments resolved: `/v1/../../elsewhere` is not below `/v1`.
    path = posixpath.normpath(parts.path) if parts.path else ""
    return f"{scheme}://{host}:{port}{path.rstrip('/').removeprefix('.')}"


def allows(prefix: str, url: str) -> bool:
    """`url` is `prefix`'s endpoint or below its path (at a `/` boundary: /v1 does not allow /v10)."""
    allowed, given = endpoint(prefix), endpoint(url)
    return given == allowed or given.startswith(allowed + "/")


@dataclass(frozen=True)
class Route:
    """A secret that Cairn's own code sends to an endpoint, and which setting makes it do so."""

    role: str
    """`provider` (answerer, query rewriter, reranker) or `target` (an HTTP target)."""
    secret: str
    """The variable's name (never its value)."""
    url: str
    key: tuple[str, ...]
    """The config key that chose the endpoint, for `file:line`."""

    @property
    def endpoint(self) -> str:
        return endpoint(self.url)


def chat_url(name: str, base_url: str | None) -> str:
    """Where a chat provider's calls go: what providers/build_providers.py will call."""
    if name == "openai":
        return (base_url or OPENAI_BASE_URL).rstrip("/")
    return messages_url(base_url)


def routes(config: Config) -> list[Route]:
    """Every (secret, endpoint) pair the evaluation's built-in clients would use under `config`.

    A `python:` target is not here: it is the system under test itself, and whatever `env` gives the
    evaluation, its code can read (the README's security model says so)."""
    provider, retrieval = config.provider, config.retrieval
    secret = provider.api_key_env
    if not secret:
        return []
    found: list[Route] = []
    target = (config.target or "").strip()
    if target.startswith(("http://", "https://")):
        found.append(Route("target", secret, target, ("target",)))
    chat = provider.name in _CHAT and (not target or "llm" in (retrieval.rewrite, retrieval.rerank))
    if chat:
        key = ("provider", "base_url") if provider.base_url else ("provider", "name")
        found.append(Route("provider", secret, chat_url(provider.name, provider.base_url), key))
    return found


def passed_variables(names: Sequence[str], env: Mapping[str, str], token: str) -> dict[str, str]:
    """The listed variables that are set, refused (exit 2) when one is the runner's or holds a token."""
    for name in names:
        if is_reserved(name):
            raise CairnError(
                f"input '{ENV_INPUT}': {name} is one of the runner's own variables "
                f"({', '.join(p + '*' for p in RESERVED_PREFIXES)}), which never reach the evaluation",
                "pass a provider key under a name of its own, e.g. `OPENAI_API_KEY: ${{ secrets.OPENAI }}`",
            )
    if KEY_ENV in names or (env.get(KEY_ENV) and any(env.get(KEY_ENV) == env.get(n) for n in names)):
        raise CairnError(
            f"input '{ENV_INPUT}': {KEY_ENV} (the sealed golden set's key) never reaches the evaluation, "
            "which runs the system under test",
            f"give {KEY_ENV} to the Cairn step's `env:` only; the Action opens the key in its own process",
        )
    tokens = [token] + [v for k, v in env.items() if is_reserved(k) and _RUNNER_SECRET.search(k)]
    tokens = [t for t in tokens if len(t) >= 8]
    passed = {n: env[n] for n in names if n in env}
    for name, value in passed.items():
        if any(t in value for t in tokens):
            raise CairnError(
                f"input '{ENV_INPUT}': {name} holds the GitHub token (or a runner token), which never "
                "reaches the evaluation",
                "give the evaluation only the secrets its system needs",
            )
    return passed


def check_key_names(loaded: LoadedConfig, passed: Sequence[str]) -> None:
    """The config's `api_key_env` must name a variable the workflow passes (input `env`)."""
    name = loaded.config.provider.api_key_env
    if not name or name in passed:
        return
    reserved = is_reserved(name)
    why = "is one of the runner's own variables" if reserved else "is not in the action's `env` input"
    raise CairnError(
        f"{loaded.where(('provider', 'api_key_env'))}: provider.api_key_env names {name}, which {why}: "
        "a config chooses nothing about which variables the evaluation receives",
        f"list it in the workflow: `with: {ENV_INPUT}: {name}` and `env: {name}: ${{{{ secrets.... }}}}`"
        if not reserved
        else "name a variable of your own that holds the provider's key",
    )


def check_routes(
    loaded: LoadedConfig, trusted: Config | None, allowed: Sequence[str], *, trusted_where: str
) -> None:
    """Refuse (exit 2) a secret sent to an endpoint the trusted config does not send it to."""
    known = {(r.secret, r.endpoint) for r in routes(trusted)} if trusted is not None else set()
    for route in routes(loaded.config):
        if (route.secret, route.endpoint) in known or any(allows(a, route.url) for a in allowed):
            continue
        before = sorted(r.url for r in routes(trusted) if r.secret == route.secret) if trusted else []
        old = " or ".join(before) if before else "nowhere"
        raise CairnError(
            f"{loaded.where(route.key)}: the {route.role} would send {route.secret} to {route.url}; "
            f"{trusted_where} sends it to {old}",
            f"land the endpoint change on the base branch first, or add {route.url} to the action's "
            f"`{ENDPOINTS_INPUT}` input",
        )
