"""Text from a set made safe in Markdown, a table cell included: control characters shown as escapes
(line breaks among them) and what Markdown would read as markup escaped, so it renders as itself. The
one rule of every Markdown report (at rest, composition, front door).

    >>> esc("_x_ | [link](y)")
    '\\\\_x\\\\_ \\\\| \\\\[link\\\\](y)'
"""

from __future__ import annotations

from typing import Any

from lab.report.inert import inert

_SPECIAL = str.maketrans({c: "\\" + c for c in "\\|`*_[]<>"})


def esc(value: Any) -> str:
    """``value`` as text safe in Markdown (see the module)."""
    return inert(value, markup=False).translate(_SPECIAL)
