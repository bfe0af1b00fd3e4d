"""What ``memlab compose`` prints (on stdout, beside the matrix) and writes after its run: the compose rows'
lines, ``compose.md``."""

from __future__ import annotations

from pathlib import Path

from lab import safewrite
from lab.cli.console import console
from lab.report.inert import inert


def report_composition(out: Path, reports: bool) -> int:
    """Print the composition of the set at ``out`` (and write ``compose.md`` with ``reports``); 1 when it
    holds a finding, else 0."""
    from lab.resultset.composition import load_rows
    from lab.report.compose import markdown, text_lines
    from lab.report.terminal import stdout_console

    rows = load_rows(out)
    out_console = stdout_console()  # the findings are results, beside the matrix
    for line in text_lines(rows):
        out_console.print(line, highlight=False, markup=False, soft_wrap=True)
    if reports:
        path = out / "compose.md"
        safewrite.write_text(path, markdown(rows))
        console.print(f"report: {inert(path)}", highlight=False)
    return 1 if any(r.findings for r in rows) else 0
