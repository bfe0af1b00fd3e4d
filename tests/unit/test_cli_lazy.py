"""The command line imports what a command needs when it needs it: no Docker.

``memlab --help`` and ``--version`` import no command module; ``memlab COMMAND --help`` that command's
module and the light constants its options show, none of the roles; the group's help, written from the
table of short helps (lab.cli.COMMANDS), is the help click writes from the commands themselves. The
light constants the options show are those the roles use.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from lab.cli import COMMANDS, main
from lab.cli.lazy import LazyGroup

ROOT = Path(__file__).resolve().parents[2]
#: The modules outside lab.cli a command's --help may load: packages with no code, constants, the
#: one function every printed text from outside passes through (lab.report.inert), and the log that
#: imports structlog only at an event shown (lab.logs).
LIGHT = {"lab", "lab.logs", "lab.report", "lab.report.formats", "lab.report.inert", "lab.resultset",
         "lab.resultset.grounds", "lab.resultset.gate_choices", "lab.lifecycle", "lab.lifecycle.grounds",
         "lab.frontdoor", "lab.frontdoor.grounds"}
LOADED = """
import json, sys
from lab.cli import main
try:
    main(sys.argv[1:], prog_name="memlab")
except SystemExit as done:
    assert done.code in (0, None), done.code
print(json.dumps(sorted(name for name in sys.modules if name == "lab" or name.startswith("lab."))))
"""


def loaded(*args: str) -> set[str]:
    """The lab modules a new ``memlab ARGS`` process has imported when it exits."""
    done = subprocess.run([sys.executable, "-c", LOADED, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def context() -> click.Context:
    return click.Context(main, info_name="memlab")


@pytest.mark.parametrize("args", [("--help",), ("--version",)])
def test_the_group_help_and_version_import_no_command(args):
    assert loaded(*args) == {"lab", "lab.cli", "lab.cli.lazy"}


@pytest.mark.parametrize("command, module, shares", [
    ("run", "lab.cli.run", {"lab.cli.listing"}), ("verify", "lab.cli.results", set()),
    ("gate", "lab.cli.results", set()), ("report", "lab.cli.reports", {"lab.cli.results"}),
    ("list", "lab.cli.listing", set()), ("show", "lab.cli.show", set()), ("gc", "lab.cli.gc", set()),
    ("site", "lab.cli.site", {"lab.cli.results"}), ("merge", "lab.cli.merge", {"lab.cli.results"}),
    ("lifecycle", "lab.cli.lifecycle", {"lab.cli.results"}), ("frontdoor", "lab.cli.frontdoor", set())])
def test_a_command_help_imports_its_module_and_no_role(command, module, shares):
    """``shares``: the other commands' modules this one is built from (run reads profiles as list does;
    the result-set commands' helpers are in lab.cli.results)."""
    modules = loaded(command, "--help")
    assert module in modules
    light = LIGHT | ({"lab.lifecycle.scenario"} if command == "lifecycle" else set())  # BUNDLED_PACK: stdlib only
    assert {m for m in modules if not m.startswith("lab.cli")} <= light, sorted(modules)
    others = {path.partition(":")[0] for path, _ in COMMANDS.values()} - {module}
    assert modules & others == shares


def test_the_table_says_each_command_s_own_short_help():
    for name, (path, short) in COMMANDS.items():
        command = main.get_command(context(), name)
        assert command.name == name, path
        assert command.get_short_help_str(limit=10**6) == short, f"{name}: the table's short help is not {path}'s"


@pytest.mark.parametrize("width", [50, 80, 120, 200])
def test_the_group_help_is_the_one_click_writes_from_the_commands(width):
    lazy, eager = click.HelpFormatter(width=width), click.HelpFormatter(width=width)
    main.format_commands(context(), lazy)
    click.Group.format_commands(main, context(), eager)  # click's own: every command loaded, its own help
    assert lazy.getvalue() == eager.getvalue() and len(eager.getvalue().splitlines()) > len(COMMANDS)


def test_an_entry_that_is_no_command_is_said():
    group = LazyGroup(name="g", lazy_subcommands={"x": ("lab:__version__", "A version.")})
    with pytest.raises(TypeError, match="lab:__version__ is a str, not a click command"):
        group.get_command(click.Context(group), "x")


def test_the_light_constants_are_the_roles_own():
    from lab.judge.scoring import LADDER
    from lab.report.files import LIFECYCLE_RENDERERS, RENDERERS
    from lab.report.formats import DEFAULT_FILES
    from lab.resultset.gate_choices import LEVELS

    assert LEVELS == ("L0",) + tuple(name for name, _ in LADDER)
    assert list(DEFAULT_FILES) == list(RENDERERS) == list(LIFECYCLE_RENDERERS)
