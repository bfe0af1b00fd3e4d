"""The YAML config of an HTTP shim, in either contract, loaded and validated strictly.

Two contracts (docs/lifecycle-http.md): memlab's own, and the peer gate's (memorycheck's), whose
users' configs and shims are taken unchanged. A config says which it speaks by its keys, or by
``contract: memlab | memorycheck``:

memlab's own::

    name: our-memory                       # optional; default: the file's stem
    base_url: http://127.0.0.1:8765        # http(s); no credentials in the URL
    paths: {query: /v1/query}              # per endpoint; defaults /reset /write /delete /query /advance_time
    env: [TOKEN]                           # the only environment variables headers may name
    headers: {Authorization: "Bearer ${TOKEN}"}   # ${VAR}: from the environment, never stored
    timeouts: {mutation: 5, query: 30, convergence: 5}   # seconds
    capabilities: {ttl: true, tenants: true}

memorycheck's (every key but base_url optional; the peer's defaults)::

    base_url: "http://127.0.0.1:8808"
    supports_ttl: false
    timeout_seconds: 30                    # every request
    convergence_timeout_seconds: 30        # how long a mutation may take to show (default: timeout_seconds)
    convergence_interval_seconds: 0.25     # the longest pause between two confirming queries
    auth_token_env: MEMORYCHECK_HTTP_TOKEN # a bearer token from this variable, when it is set

Keys of both contracts together, without ``contract:``, are an error; a config with only
``base_url`` (and ``contract``-neutral keys) is memorycheck's, the contract such a minimal file
comes from. Every error names the file, the line, the field and the fix
(:class:`HttpConfigError`, a :class:`lab.profile.ProfileError`, so it prints and is caught like a
bad profile). A header's ``${VAR}`` must name a variable the config lists (``env:``, or
``auth_token_env``), set, whose value holds no control character (the error names the variable,
never its value). Numbers must be finite and positive; a URL holds no whitespace or control
characters.

May import: the standard library and ``lab.profile`` (the error and the YAML limits); a config is loaded and
checked field by field by ``http_config_checks`` (``load_http_config``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lab.profile import ProfileError
from lab.profile.yamlfile import Limits

CONTRACTS = ("memlab", "memorycheck")
ENDPOINTS = ("reset", "write", "delete", "query", "advance_time")
DEFAULT_PATHS = {name: "/" + name for name in ENDPOINTS}
DEFAULT_TIMEOUTS = {"mutation": 5.0, "query": 30.0, "convergence": 5.0}
DEFAULT_CAPABILITIES = {"ttl": False, "tenants": True}
MEMLAB_KEYS = ("name", "paths", "headers", "env", "timeouts", "capabilities")
PEER_KEYS = ("supports_ttl", "timeout_seconds", "convergence_timeout_seconds", "convergence_interval_seconds",
             "auth_token_env")
#: A shim config is a few lines: the profile's bounds on size, depth, aliases and expanded values.
SHIM_CONFIG = Limits(what="a shim config")
PEER_INTERVAL = 0.25  # memorycheck's default pause between two confirming queries
_VAR = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_BAD_URL = re.compile(r"[\x00-\x20\x7f-\x9f]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


#: The longest timeout a config may give, in seconds (the bound of a profile's timeouts,
#: lab.profile.schema.MAX_SECONDS, and of ``memlab lifecycle doctor --timeout``).
MAX_SECONDS = 3600.0


def is_seconds(value: Any) -> bool:
    """A timeout a config may give: a number (not a bool), finite, above 0 and at most ``MAX_SECONDS``."""
    return (not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
            and 0 < value <= MAX_SECONDS)


class HttpConfigError(ProfileError):
    """A shim config is malformed: file, line, field, what is wrong and the fix."""


@dataclass(frozen=True)
class HttpConfig:
    """A validated shim config. ``headers`` keep their ``${VAR}`` templates as written;
    ``convergence`` is {timeout, interval} in seconds; ``unset_token`` names an ``auth_token_env``
    that is not set (requests then go without Authorization, as memorycheck sends them)."""

    name: str
    base_url: str
    paths: dict[str, str]
    headers: dict[str, str]
    timeouts: dict[str, float]
    capabilities: dict[str, bool]
    path: Path | None = None
    contract: str = "memlab"
    convergence: dict[str, float] = field(default_factory=lambda: {"timeout": 5.0, "interval": PEER_INTERVAL})
    unset_token: str | None = None
    #: The environment variables the config names (``env:``, or memorycheck's ``auth_token_env``):
    #: the only ones a header may expand.
    env: tuple[str, ...] = ()

    def url(self, endpoint: str) -> str:
        """The full URL of one endpoint."""
        return self.base_url + self.paths[endpoint]

    def resolved_headers(self) -> dict[str, str]:
        """The headers with every ``${VAR}`` replaced from the environment (never store these);
        KeyError (the variable's name) when one is not set or not named by the config; ValueError (the
        name, never the value) when its value holds a control character."""
        out = {}
        for header, template in self.headers.items():
            for var in _VAR.findall(template):
                if var not in self.env or var not in os.environ:
                    raise KeyError(var)
                if _CONTROL.search(os.environ[var]):
                    raise ValueError(var)
            out[header] = _VAR.sub(lambda m: os.environ[m.group(1)], template)
        return out

    def secrets(self) -> tuple[str, ...]:
        """Every value memlab expands from the environment (each variable's, each header's whole), longest
        first: what :func:`lab.lifecycle.adapters.http_secrets.redact` removes from every error text."""
        values = {os.environ[var] for template in self.headers.values() for var in _VAR.findall(template)
                  if var in os.environ}
        values |= {_VAR.sub(lambda m: os.environ.get(m.group(1), ""), t) for t in self.headers.values() if _VAR.search(t)}
        return tuple(sorted((v for v in values if v.strip()), key=len, reverse=True))

    def to_json(self) -> dict[str, Any]:
        """The config as plain data for results: header names only, never their values."""
        return {"name": self.name, "contract": self.contract, "base_url": self.base_url, "paths": dict(self.paths),
                "headers": sorted(self.headers), "timeouts": dict(self.timeouts),
                "convergence": dict(self.convergence), "capabilities": dict(self.capabilities)}
