"""A YAML file read safely, with the line of every field, so errors can name it.

:func:`load_yaml` bounds what a hostile file can cost before anything recurses or expands:
the size of the file, the nesting depth (read from the parser's event stream, which does not
recurse), the number of aliases, and the number of values once aliases are expanded (an
alias bomb is an error, not gigabytes). A duplicate key, a second document or a non-scalar
key is an error too. Every failure is a :class:`ProfileError` with the line.

Example::

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "p.yaml"
    >>> _ = path.write_text("row: a\\nrow: b\\n")
    >>> load_yaml(path)
    Traceback (most recent call last):
    lab.profile.model.ProfileError: ...p.yaml:2: row: duplicate key (the first is on line 1)
      fix: keep one row: and delete the other
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from lab.profile.model import ProfileError

MAX_BYTES = 1_000_000
MAX_DEPTH = 32
MAX_ALIASES = 100
MAX_VALUES = 20_000
_MERGE = "tag:yaml.org,2002:merge"
#: libyaml's parser where PyYAML was built with it (its wheels are): the same events, nodes and
#: marks as the pure-Python one, about ten times faster (every command reads every profile).
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


#: How a file reader says what is wrong: (path, line, field, message, fix) -> the exception to raise.
ErrorFactory = Callable[[Path, "int | None", str, str, str], Exception]


@dataclass(frozen=True)
class Limits:
    """What one kind of file may cost, and what it is called in a fix (``what``: "a profile")."""

    max_bytes: int = MAX_BYTES
    depth: int = MAX_DEPTH
    aliases: int = MAX_ALIASES
    values: int = MAX_VALUES
    what: str = "a profile"


PROFILE = Limits()


def read_text(path: Path, limit: int = MAX_BYTES, error: ErrorFactory = ProfileError,
              trim: str = "a profile is a short file; trim it") -> str:
    """The file's text (a regular file, UTF-8, at most ``limit`` bytes); ``error`` builds the exception
    (a scenario's reader passes its own), ``trim`` the fix for a file too large."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read, a device never end
            raise error(path, None, "(file)", "not a regular file", "point at a plain file")
        with Path(path).open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise error(path, None, "(file)", f"cannot read: {exc.strerror}", "check the path") from exc
    if len(raw) > limit:
        raise error(path, None, "(file)", f"larger than {limit} bytes", trim)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(path, None, "(file)", "not UTF-8 text", "save the file as UTF-8") from exc


def event_bounds(text: str, max_depth: int, max_aliases: int) -> tuple[str, int] | None:
    """The first bound the YAML event stream breaks, ``("depth" | "aliases", line)``, or None. Read
    from the parser's events, before anything is composed (composing recurses and expands aliases)."""
    depth = aliases = 0
    for event in yaml.parse(text, Loader=SAFE_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > max_depth:
                return "depth", event.start_mark.line + 1
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > max_aliases:
                return "aliases", event.start_mark.line + 1
    return None


def load_yaml(path: Path, limits: Limits = PROFILE,
              error: ErrorFactory = ProfileError) -> tuple[Any, dict[str, int], dict[str, str]]:
    """The file's data, the line of every dotted field, and the source text of every scalar, within
    ``limits``; ``error`` builds the exception (a shim config's reader passes its own)."""
    text = read_text(path, limits.max_bytes, error, f"{limits.what} is a short file; trim it")
    try:
        _check_events(path, text, limits, error)
        loader = SAFE_LOADER(text)
        try:
            node = loader.get_single_node()
            if node is not None:
                _check_graph(path, node, limits, error)
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or exc
        raise error(path, mark.line + 1 if mark else None, "(yaml)", f"not valid YAML: {problem}",
                    _yaml_fix(exc, limits.what)) from None
    lines: dict[str, int] = {}
    texts: dict[str, str] = {}
    if node is not None:
        line_index(node, out=lines, texts=texts)
    return data, lines, texts


def _yaml_fix(exc: yaml.YAMLError, what: str) -> str:
    """How to mend a YAML error, for the errors a fix can be named for."""
    text = str(exc)
    if "another document" in text:
        return f"{what} is one YAML document: remove the --- and what follows it"
    if isinstance(exc, yaml.constructor.ConstructorError) and "tag" in text:
        return f"remove the !tag: {what} holds plain YAML values (text, numbers, lists, mappings)"
    return "fix the YAML syntax at that line"


def _check_events(path: Path, text: str, limits: Limits, error: ErrorFactory) -> None:
    """Depth and alias count, from the event stream (before composing, which recurses)."""
    broken = event_bounds(text, limits.depth, limits.aliases)
    if broken and broken[0] == "depth":
        raise error(path, broken[1], "(yaml)", f"nested deeper than {limits.depth} levels",
                    f"flatten the structure; no field of {limits.what} nests that deep")
    if broken:
        raise error(path, broken[1], "(yaml)", f"more than {limits.aliases} aliases",
                    "write the values out instead of repeating *aliases")


def _check_graph(path: Path, root: yaml.Node, limits: Limits, error: ErrorFactory) -> None:
    """Expanded size and depth (aliases included), scalar keys, no key twice in a mapping."""
    count, stack = 0, [(root, "", 1)]
    while stack:
        node, prefix, depth = stack.pop()
        count += 1
        if count > limits.values or depth > limits.depth:
            what = f"more than {limits.values} values" if count > limits.values else f"deeper than {limits.depth} levels"
            raise error(path, node.start_mark.line + 1, "(yaml)", f"{what} once its aliases are expanded",
                        "write the values out instead of nesting *aliases (a YAML alias bomb)")
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key, value in node.value:
                if key.tag == _MERGE:
                    stack.append((value, prefix, depth + 1))
                    continue
                if not isinstance(key, yaml.ScalarNode):
                    raise error(path, key.start_mark.line + 1, prefix or "(top)", "a key that is not a plain name",
                                "write keys as plain names (no [lists] or {mappings} as keys)")
                dotted = f"{prefix}.{key.value}" if prefix else str(key.value)
                if key.value in seen:
                    raise error(path, key.start_mark.line + 1, dotted,
                                f"duplicate key (the first is on line {seen[key.value]})",
                                f"keep one {key.value}: and delete the other")
                seen[key.value] = key.start_mark.line + 1
                stack.append((value, dotted, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, f"{prefix}[{i}]", depth + 1) for i, item in enumerate(node.value))


def line_index(node: Any, prefix: str = "", out: dict[str, int] | None = None,
               texts: dict[str, str] | None = None) -> dict[str, int]:
    """Map dotted field paths to 1-based line numbers from a composed YAML node (and, into
    ``texts``, each scalar's text as written)."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            dotted = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            out[dotted] = key_node.start_mark.line + 1
            line_index(value_node, dotted, out, texts)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[f"{prefix}[{i}]"] = item.start_mark.line + 1
            line_index(item, f"{prefix}[{i}]", out, texts)
    elif isinstance(node, yaml.ScalarNode) and texts is not None:
        texts[prefix] = node.value
    return out
