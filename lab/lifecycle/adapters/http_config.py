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

May import: the standard library, yaml and ``lab.profile`` (the error and the YAML-with-lines reader).
"""
from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.profile import ProfileError
from lab.profile.names import bad_name
from lab.profile.yamlfile import Limits, load_yaml

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
        first: what :func:`lab.lifecycle.adapters.http_transport.redact` removes from every error text."""
        values = {os.environ[var] for template in self.headers.values() for var in _VAR.findall(template)
                  if var in os.environ}
        values |= {_VAR.sub(lambda m: os.environ.get(m.group(1), ""), t) for t in self.headers.values() if _VAR.search(t)}
        return tuple(sorted((v for v in values if v.strip()), key=len, reverse=True))

    def to_json(self) -> dict[str, Any]:
        """The config as plain data for results: header names only, never their values."""
        return {"name": self.name, "contract": self.contract, "base_url": self.base_url, "paths": dict(self.paths),
                "headers": sorted(self.headers), "timeouts": dict(self.timeouts),
                "convergence": dict(self.convergence), "capabilities": dict(self.capabilities)}


def load_http_config(path: Path | str, *, base_url: str | None = None) -> HttpConfig:
    """Load and validate a shim config; ``base_url`` (e.g. a CLI ``--base-url``) overrides the file's."""
    path = Path(path)
    data, lines, _texts = load_yaml(path, SHIM_CONFIG, HttpConfigError)
    return _Checker(path, data, lines).config(base_url)


class _Checker:
    def __init__(self, path: Path, data: Any, lines: dict[str, int]):
        self.path, self.data, self.lines = path, data, lines

    def fail(self, field_name: str, message: str, fix: str) -> HttpConfigError:
        probe = field_name
        while probe not in self.lines and "." in probe:
            probe = probe.rsplit(".", 1)[0]
        return HttpConfigError(self.path, self.lines.get(probe, 1), field_name, message, fix)

    def config(self, base_url: str | None) -> HttpConfig:
        if not isinstance(self.data, dict):
            raise HttpConfigError(self.path, 1, "(top)", "the config is not a mapping",
                                  "write `base_url: http://...` and the other fields as a YAML mapping")
        contract = self.contract()
        allowed = ("contract", "base_url") + (MEMLAB_KEYS if contract == "memlab" else PEER_KEYS)
        for key in self.data:
            if key not in allowed:
                other = "memorycheck" if contract == "memlab" else "memlab"
                hint = f" (a key of {other}'s contract)" if key in (PEER_KEYS + MEMLAB_KEYS) else ""
                raise self.fail(str(key), f"unknown field in {contract}'s contract{hint}",
                                "use only " + ", ".join(allowed))
        url = self.base_url(base_url)
        return self.memlab(url) if contract == "memlab" else self.peer(url)

    def contract(self) -> str:
        """The contract: ``contract:`` when given, else by the keys (only base_url: memorycheck's)."""
        given = self.data.get("contract")
        if given is not None:
            if given not in CONTRACTS:
                raise self.fail("contract", f"{given!r} is not a contract", "write `contract: memlab` or "
                                "`contract: memorycheck`")
            return given
        mine = [k for k in self.data if k in MEMLAB_KEYS]
        theirs = [k for k in self.data if k in PEER_KEYS]
        if mine and theirs:
            raise self.fail(str(theirs[0]), f"keys of both contracts: {', '.join(mine)} (memlab's) and "
                            f"{', '.join(theirs)} (memorycheck's)",
                            "keep the keys of the contract your shim speaks, or say which with `contract: memlab` "
                            "or `contract: memorycheck`")
        return "memlab" if mine else "memorycheck"

    def memlab(self, url: str) -> HttpConfig:
        name = self.data.get("name", self.path.stem)
        if not isinstance(name, str) or not name.strip():
            raise self.fail("name", "must be a non-empty string", "name the service, e.g. `name: our-memory`")
        problem = bad_name(name)  # the name is a row's: a folder and file name of the result set
        if problem is not None:
            fix = problem[1] if "name" in self.data else "add `name: our-memory` (the file's stem is no safe name)"
            raise self.fail("name", problem[0], fix)
        timeouts = self.timeouts()
        return HttpConfig(name=name, base_url=url, paths=self.paths(), headers=self.headers(), timeouts=timeouts,
                          capabilities=self.capabilities(), path=self.path, contract="memlab", env=self.env(),
                          convergence={"timeout": timeouts["convergence"], "interval": PEER_INTERVAL})

    def peer(self, url: str) -> HttpConfig:
        ttl = self.data.get("supports_ttl", False)
        if not isinstance(ttl, bool):
            raise self.fail("supports_ttl", f"{ttl!r} is not true or false",
                            "write `supports_ttl: true` or `supports_ttl: false` (unquoted)")
        timeout = self.seconds("timeout_seconds", 30.0)
        converge = self.seconds("convergence_timeout_seconds", timeout)
        interval = self.seconds("convergence_interval_seconds", PEER_INTERVAL)
        headers, unset = {}, None
        env = self.data.get("auth_token_env")
        if env is not None:
            if not isinstance(env, str) or not _NAME.match(env):
                raise self.fail("auth_token_env", f"{env!r} is not an environment variable name",
                                "name a variable with letters, digits and _, e.g. MEMORYCHECK_HTTP_TOKEN")
            if os.environ.get(env):
                self.secret_ok("auth_token_env", env)
                headers["Authorization"] = "Bearer ${" + env + "}"
            else:
                unset = env
        return HttpConfig(name=self.path.stem, base_url=url, paths=dict(DEFAULT_PATHS), headers=headers,
                          timeouts={"mutation": timeout, "query": timeout, "convergence": converge},
                          capabilities={"ttl": ttl, "tenants": True}, path=self.path, contract="memorycheck",
                          convergence={"timeout": converge, "interval": interval}, unset_token=unset,
                          env=(env,) if env is not None else ())

    def seconds(self, key: str, default: float) -> float:
        value = self.data.get(key, default)
        if not is_seconds(value):
            raise self.fail(key, f"{value!r} is not a number of seconds above 0 and at most {MAX_SECONDS:g}",
                            f"write e.g. `{key}: 30`")
        return float(value)

    def base_url(self, override: str | None) -> str:
        url = override if override is not None else self.data.get("base_url")
        where = "--base-url" if override is not None else "base_url"
        if not isinstance(url, str) or not url:
            raise self.fail("base_url", "missing", "add `base_url: http://127.0.0.1:8765` (your service's address)")
        if _BAD_URL.search(url):
            raise self.fail(where, f"{url!r} holds whitespace or a control character",
                            "write the URL on one line, without spaces, e.g. http://127.0.0.1:8765")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.fail(where, f"{url!r} is not an http(s) URL with a host",
                            "write it as http://host:port (or https://...)")
        try:
            parts.port
        except ValueError:
            raise self.fail(where, f"{url!r} has a port that is not a number from 0 to 65535",
                            "write it as http://host:port") from None
        if parts.username or parts.password or parts.query or parts.fragment:
            raise self.fail(where, "credentials, a query or a fragment in the URL",
                            "keep only scheme://host:port/prefix; put credentials in headers as ${VARIABLES}")
        return url.rstrip("/")

    def mapping(self, key: str) -> dict[str, Any]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(key, "must be a mapping", f"write {key} as `{key}: {{field: value}}`")
        return value

    def paths(self) -> dict[str, str]:
        given = self.mapping("paths")
        for endpoint, route in given.items():
            if endpoint not in ENDPOINTS:
                raise self.fail(f"paths.{endpoint}", "unknown endpoint", "use only " + ", ".join(ENDPOINTS))
            if not isinstance(route, str) or not route.startswith("/") or _BAD_URL.search(route):
                raise self.fail(f"paths.{endpoint}", f"{route!r} is not a path",
                                f"write it starting with /, e.g. /{endpoint}")
        return {**DEFAULT_PATHS, **given}

    def headers(self) -> dict[str, str]:
        out = {}
        for header, value in self.mapping("headers").items():
            where = f"headers.{header}"
            if not isinstance(value, str) or _CONTROL.search(value):
                raise self.fail(where, "the value is not one line of text", f'quote it on one line: {header}: "..."')
            for var in _VAR.findall(value):
                if not _NAME.match(var):
                    raise self.fail(where, f"${{{var}}} is not an environment variable name",
                                    "use ${NAME} with letters, digits and _")
                if var not in self.env():
                    raise self.fail(where, f"${{{var}}} names the environment variable {var}, which the config "
                                    "does not list under env: (only listed variables are sent)",
                                    f"add `env: [{var}]` to {self.path} if the service is to receive {var}'s "
                                    "value, or take it out of the header")
                if var not in os.environ:
                    raise self.fail(where, f"environment variable {var} is not set",
                                    f"export {var}=... before running (its value is never stored in results)")
                self.secret_ok(where, var)
            out[str(header)] = value
        return out

    def env(self) -> tuple[str, ...]:
        """``env:``, the environment variables headers may expand: a list of names."""
        given = self.data.get("env", [])
        if not isinstance(given, list):
            shown = given if isinstance(given, str) and _NAME.match(given) else "NAME"
            raise self.fail("env", "must be a list of environment variable names",
                            f"write it as a list, e.g. `env: [{shown}]`")
        for var in given:
            if not isinstance(var, str) or not _NAME.match(var):
                raise self.fail("env", f"{var!r} is not an environment variable name",
                                "name variables with letters, digits and _, e.g. `env: [MEMORY_TOKEN]`")
        return tuple(given)

    def secret_ok(self, where: str, var: str) -> None:
        """A variable's value goes into a header: a control character in it (a secret file's trailing
        newline) is an error naming the variable, never showing its value."""
        if _CONTROL.search(os.environ.get(var, "")):
            raise self.fail(where, f"environment variable {var} holds a control character (a trailing newline "
                            "from a secret file?); its value is not shown",
                            f"set {var} without it, e.g. export {var}=\"$(tr -d '\\r\\n' < FILE)\"")

    def timeouts(self) -> dict[str, float]:
        given = self.mapping("timeouts")
        for key, value in given.items():
            if key not in DEFAULT_TIMEOUTS:
                raise self.fail(f"timeouts.{key}", "unknown timeout", "use only mutation, query and convergence (seconds)")
            if not is_seconds(value):
                raise self.fail(f"timeouts.{key}", f"{value!r} is not a number of seconds above 0 and at most "
                                f"{MAX_SECONDS:g}",
                                f"write e.g. `{key}: {DEFAULT_TIMEOUTS[key]:g}`")
        return {k: float(given.get(k, v)) for k, v in DEFAULT_TIMEOUTS.items()}

    def capabilities(self) -> dict[str, bool]:
        given = self.mapping("capabilities")
        for key, value in given.items():
            if key not in DEFAULT_CAPABILITIES:
                raise self.fail(f"capabilities.{key}", "unknown capability",
                                "use only ttl and tenants (correct is always a write that supersedes)")
            if not isinstance(value, bool):
                raise self.fail(f"capabilities.{key}", f"{value!r} is not true or false",
                                f"write `{key}: true` or `{key}: false`")
        return {**DEFAULT_CAPABILITIES, **given}
