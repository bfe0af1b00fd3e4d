"""The YAML config of an HTTP shim (docs/lifecycle-http.md), loaded and validated strictly.

Every error names the file, the line, the field and the fix (:class:`HttpConfigError`, a
:class:`lab.profile.ProfileError`, so it prints and is caught like a bad profile)::

    name: our-memory                       # optional; default: the file's stem
    base_url: http://127.0.0.1:8765        # http(s); no credentials in the URL
    paths: {query: /v1/query}              # per endpoint; defaults /reset /write /delete /query /advance_time
    headers: {Authorization: "Bearer ${TOKEN}"}   # ${VAR}: from the environment, never stored
    timeouts: {mutation: 5, query: 30}     # seconds
    capabilities: {ttl: true, tenants: true}

May import: the standard library, yaml and ``lab.profile`` (the error and the YAML-with-lines reader).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from lab.profile import ProfileError
from lab.profile.yamlfile import line_index, read_text

ENDPOINTS = ("reset", "write", "delete", "query", "advance_time")
DEFAULT_PATHS = {name: "/" + name for name in ENDPOINTS}
DEFAULT_TIMEOUTS = {"mutation": 5.0, "query": 30.0}
DEFAULT_CAPABILITIES = {"ttl": False, "tenants": True}
TOP_FIELDS = ("name", "base_url", "paths", "headers", "timeouts", "capabilities")
_VAR = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class HttpConfigError(ProfileError):
    """A shim config is malformed: file, line, field, what is wrong and the fix."""


@dataclass(frozen=True)
class HttpConfig:
    """A validated shim config. ``headers`` keep their ``${VAR}`` templates as written."""

    name: str
    base_url: str
    paths: dict[str, str]
    headers: dict[str, str]
    timeouts: dict[str, float]
    capabilities: dict[str, bool]
    path: Path | None = None

    def url(self, endpoint: str) -> str:
        """The full URL of one endpoint."""
        return self.base_url + self.paths[endpoint]

    def resolved_headers(self) -> dict[str, str]:
        """The headers with every ``${VAR}`` replaced from the environment (never store these)."""
        return {k: _VAR.sub(lambda m: os.environ[m.group(1)], v) for k, v in self.headers.items()}

    def to_json(self) -> dict[str, Any]:
        """The config as plain data for results: header names only, never their values."""
        return {"name": self.name, "base_url": self.base_url, "paths": dict(self.paths),
                "headers": sorted(self.headers), "timeouts": dict(self.timeouts),
                "capabilities": dict(self.capabilities)}


def load_http_config(path: Path | str, *, base_url: str | None = None) -> HttpConfig:
    """Load and validate a shim config; ``base_url`` (e.g. a CLI ``--url``) overrides the file's."""
    path = Path(path)
    text = read_text(path)
    try:
        node, data = yaml.compose(text), yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise HttpConfigError(path, mark.line + 1 if mark else None, "(yaml)",
                              f"not valid YAML: {getattr(exc, 'problem', exc)}",
                              "fix the YAML syntax at that line") from exc
    return _Checker(path, data, line_index(node)).config(base_url)


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
        for key in self.data:
            if key not in TOP_FIELDS:
                raise self.fail(str(key), "unknown field", "use only " + ", ".join(TOP_FIELDS))
        name = self.data.get("name", self.path.stem)
        if not isinstance(name, str) or not name.strip():
            raise self.fail("name", "must be a non-empty string", "name the service, e.g. `name: our-memory`")
        return HttpConfig(name=name, base_url=self.base_url(base_url), paths=self.paths(),
                          headers=self.headers(), timeouts=self.timeouts(),
                          capabilities=self.capabilities(), path=self.path)

    def base_url(self, override: str | None) -> str:
        url = override if override is not None else self.data.get("base_url")
        where = "--url" if override is not None else "base_url"
        if not isinstance(url, str) or not url:
            raise self.fail("base_url", "missing", "add `base_url: http://127.0.0.1:8765` (your service's address)")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.fail(where, f"{url!r} is not an http(s) URL with a host",
                            "write it as http://host:port (or https://...)")
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
            if not isinstance(route, str) or not route.startswith("/"):
                raise self.fail(f"paths.{endpoint}", f"{route!r} is not a path",
                                f"write it starting with /, e.g. /{endpoint}")
        return {**DEFAULT_PATHS, **given}

    def headers(self) -> dict[str, str]:
        out = {}
        for header, value in self.mapping("headers").items():
            where = f"headers.{header}"
            if not isinstance(value, str):
                raise self.fail(where, "the value is not a string", f'quote it: {header}: "{value}"')
            for var in _VAR.findall(value):
                if not _NAME.match(var):
                    raise self.fail(where, f"${{{var}}} is not an environment variable name",
                                    "use ${NAME} with letters, digits and _")
                if var not in os.environ:
                    raise self.fail(where, f"environment variable {var} is not set",
                                    f"export {var}=... before running (its value is never stored in results)")
            out[str(header)] = value
        return out

    def timeouts(self) -> dict[str, float]:
        given = self.mapping("timeouts")
        for key, value in given.items():
            if key not in DEFAULT_TIMEOUTS:
                raise self.fail(f"timeouts.{key}", "unknown timeout", "use only mutation and query (seconds)")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise self.fail(f"timeouts.{key}", f"{value!r} is not a positive number of seconds",
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
