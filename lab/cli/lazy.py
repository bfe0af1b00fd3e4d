"""A click group whose commands are imported only when one is asked for (click's documented
``LazyGroup``: ``list_commands`` and ``get_command`` over a table of import paths).

Its own ``--help`` lists every command with its short help from the same table, so that it imports
no command module at all; tests/unit/test_cli_lazy.py holds each short help equal to the command's own.

    @click.group(cls=LazyGroup, lazy_subcommands={"run": ("lab.cli.run:run", "Run the matrix: ...")})
    def main(): ...
"""

from __future__ import annotations

import importlib

import click


class LazyGroup(click.Group):
    """A group of commands named by ``lazy_subcommands``: name -> (``module:attribute``, short help)."""

    def __init__(self, *args, lazy_subcommands: dict[str, tuple[str, str]] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return self.load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def load(self, cmd_name: str) -> click.Command:
        """The command ``cmd_name``, its module imported now (once: Python keeps it)."""
        path = self.lazy_subcommands[cmd_name][0]
        module, _, attribute = path.partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{path} is a {type(command).__name__}, not a click command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The Commands section as click writes it, the lazy commands' short help from the table."""
        entries = {name: self.commands.get(name) or click.Command(name, help=self.lazy_subcommands[name][1])
                   for name in self.list_commands(ctx)}  # a table entry shortened as click shortens a help
        entries = {name: command for name, command in entries.items() if not command.hidden}
        if not entries:
            return
        limit = formatter.width - 6 - max(len(name) for name in entries)
        with formatter.section("Commands"):
            formatter.write_dl([(name, command.get_short_help_str(limit)) for name, command in entries.items()])
