"""What the typed-record tests share (the at-rest row and manifest, the run records, the lifecycle row):
any JSON value, a sample record with one field set to it, and whether it is of a kind the field takes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

#: Any JSON value, small.
JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                    | st.text(max_size=5), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)


def with_field(sample: dict, field: tuple, value: Any) -> dict:
    """A copy of ``sample`` with the field at path ``field`` (keys, then the last key) set to ``value``."""
    out = json.loads(json.dumps(sample))
    *parents, last = field
    holder = out
    for key in parents:
        holder = holder[key]
    holder[last] = value
    return out


def fits(value: Any, kinds: tuple[type, ...]) -> bool:
    """Whether ``value`` is of one of the JSON ``kinds`` (a boolean is no number unless bool is named)."""
    return isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
