"""Whether a shim's host is this machine: decided by the address it parses or resolves to, in any
spelling (``127.1``, ``2130706433``, ``[::ffff:127.0.0.1]``, ``localhost.``), so that loopback is never
sent through a proxy. Imports only the standard library."""

from __future__ import annotations

import socket
from ipaddress import IPv4Address, ip_address


#: Names that are loopback by convention (RFC 6761 ``localhost``; /etc/hosts' others) when they do not resolve.
LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")


def _address(text: str):
    """The IP address a host literal spells (any spelling the resolver takes: ``127.1``, ``2130706433``,
    ``0x7f000001``, ``::ffff:127.0.0.1``), or None for a name."""
    try:
        return ip_address(text.split("%", 1)[0])
    except ValueError:
        pass
    try:
        return IPv4Address(socket.inet_aton(text))  # the legacy IPv4 forms
    except (OSError, ValueError, UnicodeError):
        return None


def _is_loopback(address) -> bool:
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def loopback(host: str | None) -> bool:
    """Whether a host is this machine (never sent through a proxy), decided by the address it parses or
    resolves to (every address loopback), not by its spelling; a name that does not resolve is loopback
    only when it is one of ``LOOPBACK_NAMES`` or under ``.localhost``."""
    name = (host or "").strip().removeprefix("[").removesuffix("]").rstrip(".").lower()
    if not name:
        return False
    address = _address(name)
    if address is not None:
        return _is_loopback(address)
    try:
        found = {info[4][0] for info in socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return name in LOOPBACK_NAMES or name.endswith(".localhost")
    addresses = [_address(a) for a in found]
    return bool(addresses) and all(a is not None and _is_loopback(a) for a in addresses)
