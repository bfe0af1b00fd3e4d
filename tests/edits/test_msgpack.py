"""The hand-written MessagePack codec: every type round-trips byte for byte; extensions whose
data is MessagePack are stepped into; what it cannot re-encode exactly, it says so."""

import struct

import pytest

from edits import msgpack
from edits.msgpack import Ext, Float32, MsgpackError, pack, roundtrips, unpack
from edits.paths import flatten, get_path, set_path

VALUES = [None, True, False, 0, 1, 127, 128, 255, 256, 65535, 65536, 2**32 - 1, 2**32, 2**64 - 1,
          -1, -32, -33, -128, -129, -32768, -32769, -2**31, -2**31 - 1, -2**63, 1.5, -0.0,
          "", "a" * 31, "é" * 16, "x" * 32, "y" * 255, "z" * 256, "w" * 65536,
          b"", b"\x00" * 255, b"\x01" * 256, b"\x02" * 65536,
          [], list(range(15)), list(range(16)), list(range(70000)),
          {}, {str(i): i for i in range(15)}, {str(i): i for i in range(16)}, {1: "int key", "k": [1, {"n": None}]}]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_every_type_round_trips(value):
    blob = pack(value)
    assert unpack(blob) == value and pack(unpack(blob)) == blob and roundtrips(blob)


def test_smallest_encodings():
    assert pack(127) == b"\x7f" and pack(-32) == b"\xe0" and pack(128) == b"\xcc\x80"
    assert pack("a" * 31)[:1] == b"\xbf" and pack("a" * 32)[:2] == b"\xd9\x20"
    assert pack(b"ab") == b"\xc4\x02ab" and pack([1])[:1] == b"\x91" and pack({})[:1] == b"\x80"


def test_float32_stays_float32_and_a_wide_int_is_not_exact():
    f32 = b"\xca" + struct.pack(">f", 1.5)
    assert isinstance(unpack(f32), Float32) and pack(unpack(f32)) == f32
    wide = b"\xcd\x00\x05"  # 5 written as uint16: valid, but not the smallest encoding
    assert unpack(wide) == 5 and not roundtrips(wide)


def test_extensions_nested_and_raw():
    message = Ext(5, value=["langchain_core.messages.human", "HumanMessage", {"content": "hi", "id": "x"}, "m"])
    raw = Ext(9, data=b"\xc1\xc1")  # not MessagePack: kept as bytes
    fixed = Ext(-1, data=b"\x00\x00\x00\x01")
    blob = pack({"messages": [message], "raw": raw, "ts": fixed})
    tree = unpack(blob)
    assert tree["messages"][0].nested and tree["messages"][0].value[2]["content"] == "hi"
    assert not tree["raw"].nested and tree["raw"].data == b"\xc1\xc1"
    assert tree["ts"].code == -1 and pack(tree) == blob
    assert get_path(tree, ("messages", "0", "2", "content")) == "hi"
    edited = set_path(tree, ("messages", "0", "2", "content"), "ho")
    assert get_path(unpack(pack(edited)), ("messages", "0", "2", "content")) == "ho"
    assert get_path(tree, ("messages", "0", "2", "content")) == "hi"  # set_path copies
    assert flatten(tree["messages"][0]) == {"0": "langchain_core.messages.human", "1": "HumanMessage",
                                             "2.content": "hi", "2.id": "x", "3": "m"}


@pytest.mark.parametrize("blob", [b"\xc1", b"\x92\x01", b"\xd9\x05ab", b"\x01\x02", b"\xa2\xff\xfe"])
def test_malformed_bytes_raise(blob):
    with pytest.raises(MsgpackError):
        unpack(blob)
    assert not roundtrips(blob)


def test_pack_refuses_unknown_types():
    with pytest.raises(TypeError):
        msgpack.pack(object())
