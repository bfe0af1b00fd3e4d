"""Start the slow lifecycle re-measurements ahead, beside the other tests (tests/background.py), and
print how long each re-measured row took (its environment build and its whole run) after the tests.

A module of one row (its ``ROW``) gets it re-measured once through the fixtures ``at_rest`` and
``lifecycle``; a module of several rows uses ``at_rest_of`` and ``lifecycle_of``."""

import functools

import pytest
from background import AHEAD as BACKGROUND
from integrity_rows import TIMINGS, at_rest_once, lifecycle_once


@pytest.fixture(scope="module")
def at_rest_of(tmp_path_factory):
    """``run(row)``: a row re-measured at rest, once per row: (the comparison's failure or None, rows by point)."""
    return functools.cache(lambda row: at_rest_once(row, tmp_path_factory.mktemp(row) / "set"))


@pytest.fixture(scope="module")
def at_rest(request, at_rest_of):
    """The module's ROW re-measured at rest once: (the comparison's failure or None, rows by point)."""
    return at_rest_of(request.module.ROW)


@pytest.fixture(scope="module")
def lifecycle_of(tmp_path_factory):
    """``run(row)``: a row's lifecycle records by position, from one run of both positions per row
    (``--fail-on p1``, as published)."""
    return functools.cache(lambda row: lifecycle_once(row, tmp_path_factory.mktemp(f"{row}-lifecycle") / "set"))


@pytest.fixture(scope="module")
def lifecycle(request, lifecycle_of):
    """The module's ROW through the lifecycle gate once: its row record by position."""
    return lifecycle_of(request.module.ROW)


def pytest_collection_finish(session):
    """Queue the selected lifecycle tests whose run the test module starts ahead (its ``AHEAD``)."""
    if session.config.option.collectonly:
        return
    for item in session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        module = getattr(item, "module", None)
        key = (params.get("row"), params.get("position"))
        if item.originalname == "test_lifecycle_row_matches_its_published_set" and key in getattr(module, "AHEAD", ()):
            module.start_ahead(*key)


def pytest_sessionfinish(session):
    """Interrupt what still runs in the background and remove its folders."""
    BACKGROUND.close()


def pytest_terminal_summary(terminalreporter):
    """A "row timings" section listing every row re-measured in this session."""
    if TIMINGS:
        terminalreporter.section("row timings (runtime: environment build, whole run)")
        for line in TIMINGS:
            terminalreporter.write_line(line)
