"""A YAML file read with the line of every field, so errors can name it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from lab.profile.model import ProfileError


def read_text(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ProfileError(path, None, "(file)", f"cannot read: {exc.strerror}", "check the path") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(path, None, "(file)", "not UTF-8 text", "save the file as UTF-8") from exc


def line_index(node: Any, prefix: str = "", out: dict[str, int] | None = None) -> dict[str, int]:
    """Map dotted field paths to 1-based line numbers from a composed YAML node."""
    out = {} if out is None else out
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            dotted = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            out[dotted] = key_node.start_mark.line + 1
            line_index(value_node, dotted, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            out[f"{prefix}[{i}]"] = item.start_mark.line + 1
            line_index(item, f"{prefix}[{i}]", out)
    return out


