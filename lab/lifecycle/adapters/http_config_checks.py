"""Loading a shim config (``load_http_config``) and checking it field by field
(lab.lifecycle.adapters.http_config says what a config holds): the contract it speaks, its URL, paths,
headers and the variables they may name, timeouts and capabilities (``Checker``), and each contract's
config built from the checked fields (``memlab_config``, ``peer_config``); each error names the file, the
line, the field and the fix. Imports the standard library, ``lab.profile`` (names, the YAML-with-lines
reader) and the config's own module."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.lifecycle.adapters.http_config import (_BAD_URL, _CONTROL, _NAME, _VAR, CONTRACTS, DEFAULT_CAPABILITIES,
                                                 DEFAULT_PATHS, DEFAULT_TIMEOUTS, ENDPOINTS, MAX_SECONDS, MEMLAB_KEYS,
                                                 PEER_INTERVAL, PEER_KEYS, SHIM_CONFIG, HttpConfig, HttpConfigError,
                                                 is_seconds)
from lab.profile.names import bad_name
from lab.profile.yamlfile import load_yaml


def load_http_config(path: Path | str, *, base_url: str | None = None) -> HttpConfig:
    """Load and validate a shim config; ``base_url`` (e.g. a CLI ``--base-url``) overrides the file's."""
    path = Path(path)
    data, lines, _texts = load_yaml(path, SHIM_CONFIG, HttpConfigError)
    return Checker(path, data, lines).config(base_url)


class Checker:
    """One shim config's mapping checked field by field into an :class:`HttpConfig`."""

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
        return memlab_config(self, url) if contract == "memlab" else peer_config(self, url)

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
        problem = url_problem(url)
        if problem:
            raise self.fail(where, *problem)
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


def memlab_config(check: Checker, url: str) -> HttpConfig:
    """memlab's contract: a name that is a safe row name, paths, headers, timeouts, capabilities, env."""
    name = check.data.get("name", check.path.stem)
    if not isinstance(name, str) or not name.strip():
        raise check.fail("name", "must be a non-empty string", "name the service, e.g. `name: our-memory`")
    problem = bad_name(name)  # the name is a row's: a folder and file name of the result set
    if problem is not None:
        fix = problem[1] if "name" in check.data else "add `name: our-memory` (the file's stem is no safe name)"
        raise check.fail("name", problem[0], fix)
    timeouts = check.timeouts()
    return HttpConfig(name=name, base_url=url, paths=check.paths(), headers=check.headers(), timeouts=timeouts,
                      capabilities=check.capabilities(), path=check.path, contract="memlab", env=check.env(),
                      convergence={"timeout": timeouts["convergence"], "interval": PEER_INTERVAL})


def peer_config(check: Checker, url: str) -> HttpConfig:
    """memorycheck's contract: its flat keys (supports_ttl, the timeouts in seconds, auth_token_env)
    as memlab's fields, with its default paths."""
    ttl = check.data.get("supports_ttl", False)
    if not isinstance(ttl, bool):
        raise check.fail("supports_ttl", f"{ttl!r} is not true or false",
                         "write `supports_ttl: true` or `supports_ttl: false` (unquoted)")
    timeout = check.seconds("timeout_seconds", 30.0)
    converge = check.seconds("convergence_timeout_seconds", timeout)
    interval = check.seconds("convergence_interval_seconds", PEER_INTERVAL)
    headers, unset = {}, None
    env = check.data.get("auth_token_env")
    if env is not None:
        if not isinstance(env, str) or not _NAME.match(env):
            raise check.fail("auth_token_env", f"{env!r} is not an environment variable name",
                             "name a variable with letters, digits and _, e.g. MEMORYCHECK_HTTP_TOKEN")
        if os.environ.get(env):
            check.secret_ok("auth_token_env", env)
            headers["Authorization"] = "Bearer ${" + env + "}"
        else:
            unset = env
    return HttpConfig(name=check.path.stem, base_url=url, paths=dict(DEFAULT_PATHS), headers=headers,
                      timeouts={"mutation": timeout, "query": timeout, "convergence": converge},
                      capabilities={"ttl": ttl, "tenants": True}, path=check.path, contract="memorycheck",
                      convergence={"timeout": converge, "interval": interval}, unset_token=unset,
                      env=(env,) if env is not None else ())


def url_problem(url: str) -> tuple[str, str] | None:
    """What is wrong with a service's base URL, and its fix, or None: one line, http(s) with a host, a
    numeric port, and nothing but scheme, host, port and a path prefix."""
    if _BAD_URL.search(url):
        return (f"{url!r} holds whitespace or a control character",
                "write the URL on one line, without spaces, e.g. http://127.0.0.1:8765")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http(s) URL with a host", "write it as http://host:port (or https://...)"
    try:
        parts.port
    except ValueError:
        return f"{url!r} has a port that is not a number from 0 to 65535", "write it as http://host:port"
    if parts.username or parts.password or parts.query or parts.fragment:
        return ("credentials, a query or a fragment in the URL",
                "keep only scheme://host:port/prefix; put credentials in headers as ${VARIABLES}")
    return None
