"""Whether two JSON values are the same as written: equal, and of the same types throughout.

Python's ``==`` holds ``1``, ``1.0`` and ``true`` equal (and ``0.0`` and ``-0.0``); a saved file, a
record's signature and C3 tell them apart. The records the lab saves and compares are compared so.

    >>> same({"n": 1}, {"n": 1}), same({"n": 1}, {"n": True}), same([1.0], [1]), same(-0.0, 0.0)
    (True, False, False, False)
"""

from __future__ import annotations

from typing import Any


def same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same as written: equal, and of the same types throughout."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is dict:
        return list(a) == list(b) and all(same(v, b[k]) for k, v in a.items())
    if kind is list:
        return len(a) == len(b) and all(map(same, a, b))
    if kind is float:
        return a == b and repr(a) == repr(b)  # 0.0 and -0.0 are equal, and written apart
    return a == b
