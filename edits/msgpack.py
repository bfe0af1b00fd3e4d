"""MessagePack, decoded and re-encoded by hand (stdlib only), byte for byte.

Generic storage tooling for payloads a SUT keeps as MessagePack (LangGraph
checkpoints, for one). No SUT code and no third-party library: the format is
small and public (https://github.com/msgpack/msgpack/blob/master/spec.md).

- :func:`unpack` turns bytes into Python values: nil/bool/int/float/str/bin as
  ``None``/``bool``/``int``/``float``/``str``/``bytes``, arrays as ``list``, maps
  as ``dict`` (insertion order kept), extension types as :class:`Ext`. An
  extension whose data is itself one complete MessagePack value (as LangGraph's
  ext types are) is decoded too (``Ext.value``), so paths can step through it.
- :func:`pack` writes values back with the smallest encoding of each (what
  MessagePack encoders do), floats as float64 unless they came in as float32
  (:class:`Float32`). :func:`roundtrips` says whether re-encoding a blob gives
  its exact bytes back: an editor re-encodes only blobs for which it does, so an
  edit never changes bytes it did not mean to.

Example::

    >>> blob = pack({"messages": [Ext(5, value=["m", "Human", {"content": "hi"}, "v"])]})
    >>> tree = unpack(blob)
    >>> tree["messages"][0].value[2]["content"]
    'hi'
    >>> pack(tree) == blob
    True
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Ext", "Float32", "MsgpackError", "pack", "unpack", "roundtrips"]

class _RawSentinel:
    """Marks an extension whose data is not MessagePack; survives copies as the same object."""

    def __repr__(self) -> str:
        return "RAW"

    def __copy__(self) -> "_RawSentinel":
        return self

    def __deepcopy__(self, memo: dict) -> "_RawSentinel":
        return self


_RAW = _RawSentinel()


class MsgpackError(ValueError):
    """Bytes that are not (one complete) MessagePack value."""


class Float32(float):
    """A float that was stored as float32 and is written back as float32."""


@dataclass
class Ext:
    """An extension value: type ``code``; ``value`` is its decoded content when the data is
    one complete MessagePack value, else ``data`` holds the raw bytes."""

    code: int
    data: bytes = b""
    value: Any = field(default=_RAW)

    @property
    def nested(self) -> bool:
        """True when the data decoded as MessagePack (``value`` is set)."""
        return self.value is not _RAW

    def payload(self) -> bytes:
        """The extension's data as it is written: the packed value, or the raw bytes."""
        return pack(self.value) if self.nested else self.data


def unpack(data: bytes) -> Any:
    """The one MessagePack value in ``data``; MsgpackError if it is not exactly one value."""
    value, end = _Reader(bytes(data)).read(0)
    if end != len(data):
        raise MsgpackError(f"{len(data) - end} trailing bytes after the value")
    return value


def roundtrips(data: bytes) -> bool:
    """True when ``pack(unpack(data))`` gives ``data`` back exactly."""
    try:
        return pack(unpack(data)) == bytes(data)
    except (MsgpackError, TypeError, ValueError, OverflowError):
        return False


class _Reader:
    def __init__(self, data: bytes):
        self.data = data

    def take(self, pos: int, n: int) -> bytes:
        if pos + n > len(self.data):
            raise MsgpackError(f"truncated at byte {pos}")
        return self.data[pos:pos + n]

    def num(self, pos: int, fmt: str) -> tuple[Any, int]:
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.take(pos, size))[0], pos + size

    def read(self, pos: int) -> tuple[Any, int]:  # noqa: C901 - one branch per type byte
        b = self.take(pos, 1)[0]
        pos += 1
        if b <= 0x7F:
            return b, pos
        if b >= 0xE0:
            return b - 0x100, pos
        if 0x80 <= b <= 0x8F:
            return self.map(pos, b & 0x0F)
        if 0x90 <= b <= 0x9F:
            return self.array(pos, b & 0x0F)
        if 0xA0 <= b <= 0xBF:
            return self.str(pos, b & 0x1F)
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in simple:
            return simple[b], pos
        sized = {0xC4: ">B", 0xC5: ">H", 0xC6: ">I", 0xD9: ">B", 0xDA: ">H", 0xDB: ">I",
                 0xDC: ">H", 0xDD: ">I", 0xDE: ">H", 0xDF: ">I", 0xC7: ">B", 0xC8: ">H", 0xC9: ">I"}
        if b in sized:
            n, pos = self.num(pos, sized[b])
            if b <= 0xC6:
                return self.take(pos, n), pos + n
            if b in (0xD9, 0xDA, 0xDB):
                return self.str(pos, n)
            if b in (0xDC, 0xDD):
                return self.array(pos, n)
            if b in (0xDE, 0xDF):
                return self.map(pos, n)
            return self.ext(pos, n)
        ints = {0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q", 0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
        if b in ints:
            return self.num(pos, ints[b])
        if b == 0xCA:
            value, pos = self.num(pos, ">f")
            return Float32(value), pos
        if b == 0xCB:
            return self.num(pos, ">d")
        fixext = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
        if b in fixext:
            return self.ext(pos, fixext[b])
        raise MsgpackError(f"type byte 0x{b:02x} at {pos - 1} is never used")

    def str(self, pos: int, n: int) -> tuple[str, int]:
        raw = self.take(pos, n)
        try:
            return raw.decode("utf-8"), pos + n
        except UnicodeDecodeError as exc:
            raise MsgpackError(f"str at {pos} is not UTF-8") from exc

    def array(self, pos: int, n: int) -> tuple[list, int]:
        out = []
        for _ in range(n):
            value, pos = self.read(pos)
            out.append(value)
        return out, pos

    def map(self, pos: int, n: int) -> tuple[dict, int]:
        out: dict = {}
        for _ in range(n):
            key, pos = self.read(pos)
            value, pos = self.read(pos)
            out[_hashable(key)] = value
        if len(out) != n:
            raise MsgpackError("a map repeats a key")
        return out, pos

    def ext(self, pos: int, n: int) -> tuple[Ext, int]:
        code, pos = self.num(pos, ">b")
        data = self.take(pos, n)
        try:
            return Ext(code, b"", unpack(data)), pos + n
        except MsgpackError:
            return Ext(code, data), pos + n


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_hashable(k) for k in key)
    if isinstance(key, (dict, Ext)):
        raise MsgpackError("a map key is a map or an extension")
    return key


def pack(value: Any) -> bytes:
    """``value`` as MessagePack, each item in its smallest encoding."""
    out = bytearray()
    _write(out, value)
    return bytes(out)


def _write(out: bytearray, v: Any) -> None:  # noqa: C901 - one branch per type
    if v is None:
        out.append(0xC0)
    elif v is True or v is False:
        out.append(0xC3 if v else 0xC2)
    elif isinstance(v, int):
        _int(out, v)
    elif isinstance(v, Float32):
        out += b"\xca" + struct.pack(">f", v)
    elif isinstance(v, float):
        out += b"\xcb" + struct.pack(">d", v)
    elif isinstance(v, str):
        raw = v.encode("utf-8")
        _head(out, len(raw), 0xA0, 31, (0xD9, 0xDA, 0xDB))
        out += raw
    elif isinstance(v, (bytes, bytearray)):
        _head(out, len(v), None, -1, (0xC4, 0xC5, 0xC6))
        out += v
    elif isinstance(v, (list, tuple)):
        _head(out, len(v), 0x90, 15, (None, 0xDC, 0xDD))
        for item in v:
            _write(out, item)
    elif isinstance(v, dict):
        _head(out, len(v), 0x80, 15, (None, 0xDE, 0xDF))
        for key, item in v.items():
            _write(out, key)
            _write(out, item)
    elif isinstance(v, Ext):
        data = v.payload()
        fixed = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}
        if len(data) in fixed:
            out.append(fixed[len(data)])
        else:
            _head(out, len(data), None, -1, (0xC7, 0xC8, 0xC9))
        out += struct.pack(">b", v.code) + data
    else:
        raise TypeError(f"cannot write {type(v).__name__} as MessagePack")


def _int(out: bytearray, v: int) -> None:
    if 0 <= v <= 0x7F:
        out.append(v)
    elif -32 <= v < 0:
        out.append(v + 0x100)
    elif v >= 0:
        for code, fmt, top in ((0xCC, ">B", 0xFF), (0xCD, ">H", 0xFFFF), (0xCE, ">I", 0xFFFFFFFF),
                               (0xCF, ">Q", 0xFFFFFFFFFFFFFFFF)):
            if v <= top:
                out += bytes([code]) + struct.pack(fmt, v)
                return
        raise OverflowError(f"{v} does not fit MessagePack")
    else:
        for code, fmt, low in ((0xD0, ">b", -0x80), (0xD1, ">h", -0x8000), (0xD2, ">i", -0x80000000),
                               (0xD3, ">q", -0x8000000000000000)):
            if v >= low:
                out += bytes([code]) + struct.pack(fmt, v)
                return
        raise OverflowError(f"{v} does not fit MessagePack")


def _head(out: bytearray, n: int, fix: int | None, fix_max: int, codes: tuple) -> None:
    """A length header: fix form up to ``fix_max``, then 8-, 16- and 32-bit lengths (None = absent)."""
    if fix is not None and n <= fix_max:
        out.append(fix | n)
        return
    for code, fmt, top in zip(codes, (">B", ">H", ">I"), (0xFF, 0xFFFF, 0xFFFFFFFF)):
        if code is not None and n <= top:
            out += bytes([code]) + struct.pack(fmt, n)
            return
    raise OverflowError(f"length {n} does not fit MessagePack")
