"""Secrets memlab expanded (a token, a header value from the environment) kept out of every text it
writes: :func:`redact` for a message, :func:`scrub` for a saved JSON answer. Imports only the standard
library."""

from __future__ import annotations

import json
from typing import Any

REDACTED = "[redacted]"


def redact(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """``text`` with every secret replaced by ``[redacted]``: as it is, and as a library or a shim quotes it
    (``repr`` of the str or its bytes, JSON-escaped, stripped). Apply it before :func:`inert`."""
    if not secrets or not text:
        return text
    for secret in secrets:
        forms = {secret, secret.strip(), json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1],
                 repr(secret)[1:-1], repr(secret.encode("utf-8", "replace"))[2:-1]}
        for form in sorted((f for f in forms if f.strip()), key=len, reverse=True):
            text = text.replace(form, REDACTED)
    return text


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """A JSON value with every string (member names too) redacted."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {redact(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, secrets) for v in value]
    return value
