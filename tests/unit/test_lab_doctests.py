"""The runnable examples in lab/'s docstrings run (edits/ has its own: tests/edits/test_doctests.py)."""

import doctest
import importlib
from pathlib import Path

LAB = Path(__file__).resolve().parents[2] / "lab"
WITH_EXAMPLES = sorted(p for p in LAB.rglob("*.py") if ">>> " in p.read_text())


def test_every_example_in_lab_runs():
    assert WITH_EXAMPLES, "lab/ has no runnable example left"
    attempted = 0
    for path in WITH_EXAMPLES:
        name = ".".join(path.relative_to(LAB.parent).with_suffix("").parts)
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{name}: {result.failed} example(s) failed"
        attempted += result.attempted
    assert attempted >= 6
