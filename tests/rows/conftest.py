"""Start the slow lifecycle re-measurements ahead, beside the other tests (tests/background.py), and
print how long each re-measured row took (its environment build and its whole run) after the tests."""

from background import AHEAD as BACKGROUND
from integrity_rows import TIMINGS


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
