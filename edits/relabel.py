"""What each place of a metadata field stores when ``set_meta`` relabels the field consistently.

A store may keep one metadata field in several places (:class:`edits.layout_fields.FieldRef`),
each in its own encoding: LangChain's serialized message says its role in ``kwargs.type``
("human") *and* in its class path (``HumanMessage``), a record its time as ISO text and as epoch
seconds. An adversary who relabels a record writes every place in that place's own encoding, so
the record stays well-formed. The lab reads the field at its first place, as a *word*: a place's
``values`` map the lab's words to what the place stores (a stored value outside them reads as
itself), a place without ``values`` stores the word itself.

When the read word goes from ``old`` to ``new``, a place gets: its ``values`` encoding of
``new``; ``new`` itself where it held what the read place held; a timestamp in another format
moved by the same time (:func:`edits.values.shift_moment`); else ``new`` (one value everywhere).

Example::

    >>> from edits.layout_fields import FieldRef
    >>> kind = FieldRef(None, ("kwargs", "type"), values=(("user", "human"), ("assistant", "ai")))
    >>> cls = FieldRef(None, ("id", "3"), values=(("user", "HumanMessage"), ("assistant", "AIMessage")))
    >>> decode(kind, "human")
    'user'
    >>> place_value("role", cls, "HumanMessage", "user", "assistant")
    'AIMessage'
    >>> place_value("timestamp", FieldRef("doc", ("ts",)), 1796015809.5, "2026-11-30T05:16:49Z",
    ...             "2026-12-01T05:16:49Z")
    1796102209.5
"""

from __future__ import annotations

from typing import Any

from edits import paths
from edits.layout_fields import FieldRef
from edits.model import EditError
from edits.values import moment_seconds, shift_moment


def decode(ref: FieldRef, stored: Any) -> Any:
    """The lab's word for what ``ref`` stores (the stored value itself when no word maps to it)."""
    return next((word for word, value in ref.values if value == stored), stored)


def encode(ref: FieldRef, word: Any) -> Any:
    """What ``ref`` stores for ``word``; an EditError when its ``values`` have no such word."""
    if not ref.values:
        return word
    for known, value in ref.values:
        if known == word:
            return value
    raise EditError(f"set_meta: {ref.name()} declares no stored value for {word!r} "
                    f"(its values: {dict(ref.values)}); add the word to the place's values")


def place_value(name: str, ref: FieldRef, here: Any, old: Any, new: Any) -> Any:
    """What place ``ref`` (holding ``here``) stores once metadata ``name`` reads ``new`` instead of ``old``."""
    if ref.values or here == old:
        return encode(ref, new)
    if name == "timestamp":
        moments = [moment_seconds(v) for v in (here, old, new)]
        if None not in moments:
            return shift_moment(here, moments[2] - moments[1])
    return new


def relabelled(name: str, refs: tuple[FieldRef, ...], held: list[Any], old: Any, new: Any) -> list[Any]:
    """What each place of ``refs`` (holding ``held`` before, in order) stores after the relabel."""
    return [place_value(name, ref, here, old, new) for ref, here in zip(refs, held)]


def written(name: str, refs: tuple[FieldRef, ...], fields: dict[str, Any], old: Any, new: Any) -> dict[str, Any]:
    """The new value of every field that holds a place of ``refs``, from a record's ``fields``: each
    place in its own encoding, a place at a path written inside its field."""
    values: dict[str, Any] = {}
    for ref in refs:
        current = values.get(ref.field, fields.get(ref.field))
        here = paths.read(current, ref.path, ref.format)
        value = place_value(name, ref, None if here is paths.MISSING else here, old, new)
        values[ref.field] = paths.write(current, ref.path, value, ref.format)
    return values
