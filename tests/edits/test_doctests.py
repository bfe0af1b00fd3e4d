"""Every example in the docstrings of edits/ runs, as doctest, and none fails.

The examples of the service editors (postgres, redis, redis_json) get a running server as
``postgres_url`` / ``redis_url`` (conftest.py). Each module's examples must all be attempted (no ``+SKIP``), every
editor module must have some, and the total never falls below ``AT_LEAST``.
"""

import doctest
import importlib
import io
import pkgutil

import pytest

import edits
from edits import registry

MODULES = sorted(info.name for info in pkgutil.iter_modules(edits.__path__))
#: module -> (the fixture its examples need, the name they call it by)
SERVERS = {"postgres": ("postgres", "postgres_url"), "redis": ("redis_url", "redis_url"),
           "redis_json": ("redis_stack_url", "redis_url")}
AT_LEAST = 154  # 31 examples before issue 10, none of which ran; then every editor got a runnable one


def examples(name: str) -> list[doctest.DocTest]:
    """The doctests of ``edits.<name>`` that hold examples."""
    return [t for t in doctest.DocTestFinder().find(importlib.import_module(f"edits.{name}")) if t.examples]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_every_module_run(name, request):
    globs = {}
    if name in SERVERS:
        fixture, called = SERVERS[name]
        globs[called] = request.getfixturevalue(fixture)
    runner, out = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS), io.StringIO()
    found = 0
    for test in examples(name):
        test.globs.update(globs)
        found += len(test.examples)
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()
    assert result.attempted == found


def test_every_editor_module_has_an_example():
    modules = {b.module for b in registry.backends()}
    assert {m for m in modules if not examples(m.removeprefix("edits."))} == set()


def test_the_examples_are_not_fewer_than_they_were():
    assert sum(len(t.examples) for name in MODULES for t in examples(name)) >= AT_LEAST
