"""Print how long each re-measured row took (its environment build and its whole run) after the tests."""

from integrity_rows import TIMINGS


def pytest_terminal_summary(terminalreporter):
    """A "row timings" section listing every row re-measured in this session."""
    if TIMINGS:
        terminalreporter.section("row timings (runtime: environment build, whole run)")
        for line in TIMINGS:
            terminalreporter.write_line(line)
