"""A scenario file read safely: its one YAML document, the line of every field, and what is odd.

Bounded before anything recurses or expands, as profiles are read: the file's size
(``MAX_BYTES``), the nesting depth and the number of aliases (from the parser's event stream,
which does not recurse), and the number of nodes once aliases and merge keys are expanded
(``MAX_NODES``: an alias bomb is an error, not gigabytes). Several documents, a tag, or a
file that is not UTF-8 text are errors (:class:`ScenarioError`, with the line).

Two things PyYAML itself lets pass are returned as :class:`Oddity` instead of raised, so the
caller decides: a key written twice in one mapping (PyYAML keeps the last) and a key that is
not text (a number, a boolean, a list). A scenario in memlab's own shape refuses them; one in
the peer's shape (``- op: write``) is read as the peer reads it, with a warning.

Example::

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "s.yaml"
    >>> _ = path.write_text("id: a\\nid: b\\nsteps: [{op: query, prompt: Hi}]\\n")
    >>> data, lines, odd = read_yaml(path)
    >>> data["id"], lines[("steps", 0, "prompt")], odd[0].where, odd[0].line
    ('b', 3, ('id',), 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from lab.lifecycle.scenario import ScenarioError
from lab.profile import yamlfile

MAX_BYTES, MAX_NODES, MAX_DEPTH, MAX_ALIASES = 1_000_000, 10_000, 10, 100
LOADER = yamlfile.SAFE_LOADER  # libyaml where PyYAML has it: the same nodes, faster
_MERGE, _STR = "tag:yaml.org,2002:merge", "tag:yaml.org,2002:str"
Where = tuple[str | int, ...]


@dataclass(frozen=True)
class Oddity:
    """A key PyYAML accepts that a strict reader would not: ``kind`` duplicate or key."""

    kind: str
    where: Where
    line: int
    first_line: int | None = None  # a duplicate: the line of the key's first occurrence


def read_text(path: Path) -> str:
    """The file's text: a regular file, at most MAX_BYTES, UTF-8."""
    return yamlfile.read_text(path, MAX_BYTES, ScenarioError, "split the scenario")


def read_yaml(path: Path) -> tuple[Any, dict[Where, int], list[Oddity]]:
    """The file's one YAML document as data, the line of every field path, and its oddities."""
    text = read_text(path)
    try:
        _check_events(path, text)
        loader = LOADER(text)
        try:
            node = loader.get_single_node()
            if node is None:
                raise ScenarioError(path, 1, "(top)", "the file is empty", "start with 'id: <name>'")
            lines, odd = _index(path, node)
            return loader.construct_document(node), lines, odd
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or exc
        fix = ("remove the !tag: a scenario holds plain values" if isinstance(exc, yaml.constructor.ConstructorError)
               else "fix the YAML syntax at that line (one document per file)")
        raise ScenarioError(path, mark.line + 1 if mark else None, "(yaml)", f"not valid YAML: {problem}",
                            fix) from None


def _check_events(path: Path, text: str) -> None:
    """Depth and alias count from the event stream, before composing (which recurses)."""
    broken = yamlfile.event_bounds(text, MAX_DEPTH, MAX_ALIASES)
    if broken and broken[0] == "depth":
        raise ScenarioError(path, broken[1], "(yaml)", f"the document is nested deeper than {MAX_DEPTH}",
                            "a scenario is a short, flat list of steps: simplify it")
    if broken:
        raise ScenarioError(path, broken[1], "(yaml)", f"more than {MAX_ALIASES} aliases",
                            "write the values out instead of repeating *aliases")


def _index(path: Path, root: yaml.Node) -> tuple[dict[Where, int], list[Oddity]]:
    """The line of every field and item (aliases and merges expanded, MAX_NODES at most) and the oddities."""
    lines: dict[Where, int] = {(): root.start_mark.line + 1}
    odd: list[Oddity] = []
    count, stack = 0, [(root, ())]
    while stack:
        node, where = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ScenarioError(path, node.start_mark.line + 1, "(yaml)", f"the document has more than {MAX_NODES} "
                                "nodes once its aliases are expanded",
                                "a scenario is a short, flat list of steps: split or simplify it")
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key, value in node.value:
                line = key.start_mark.line + 1
                if key.tag == _MERGE:  # << : its mapping's fields land in this one
                    stack.append((value, where))
                    continue
                name = key.value if key.tag == _STR else None
                if name is None:
                    odd.append(Oddity("key", where, line))
                    continue
                if name in seen:
                    odd.append(Oddity("duplicate", where + (name,), line, seen[name]))
                seen[name] = lines[where + (name,)] = line
                stack.append((value, where + (name,)))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                lines[where + (i,)] = item.start_mark.line + 1
                stack.append((item, where + (i,)))
    return lines, sorted(odd, key=lambda o: o.line)
