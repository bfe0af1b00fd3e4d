"""README's "## Commands" table and ``memlab --help`` say the same: no Docker, no subprocess.

The table is read from README.md; the commands from click's own objects (``lab.cli.main``).
For every ``memlab ...`` synopsis in the table's first column: the command exists; every
option its ``--help`` lists appears in the synopsis (by one of its names); every option the
synopsis names is one of the command's; where the synopsis spells a choice (``a\\|b\\|c``) it
is the option's choices. An option named in the "does" column belongs to one of the row's
commands. Every command of the CLI has a row, and the group's own options are in the section.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from lab.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
OPTION = re.compile(r"(?<![\w/.\-])(--?[A-Za-z][\w-]*)")


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


def _cells(line: str) -> list[str]:
    """A Markdown table line split on unescaped pipes."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def table_rows() -> list[tuple[list[str], str]]:
    """``(synopses, does)`` of each row of the Commands table."""
    lines = [ln for ln in _section("Commands").splitlines() if ln.startswith("|")]
    rows = []
    for line in lines[2:]:  # header and its rule
        first, does = _cells(line)[0], " ".join(_cells(line)[1:])
        synopses = [s for s in re.findall(r"`([^`]+)`", first) if s.startswith("memlab ")]
        rows.append((synopses, does))
    return rows


def resolve(synopsis: str) -> tuple[list[str], click.Command]:
    """The command path and click command a synopsis starts with (``memlab images build ...``)."""
    words, cmd, path = synopsis.split()[1:], main, ["memlab"]
    while isinstance(cmd, click.Group) and words and words[0] in subcommands(cmd):
        cmd = subcommands(cmd)[words.pop(0)]
        path.append(cmd.name)
    return path, cmd


def subcommands(group: click.Group) -> dict[str, click.Command]:
    """A group's commands by name, as its ``--help`` finds them (a lazy group imports them now)."""
    ctx = click.Context(group, info_name=group.name)
    return {name: group.get_command(ctx, name) for name in group.list_commands(ctx)}


def options(cmd: click.Command) -> list[click.Option]:
    """The options ``cmd --help`` lists (its help option aside)."""
    ctx = click.Context(cmd, info_name=cmd.name)
    help_option = cmd.get_help_option(ctx)
    return [p for p in cmd.get_params(ctx) if isinstance(p, click.Option) and not p.hidden and p is not help_option]


def leaf_commands(cmd: click.Command = main, path: tuple[str, ...] = ("memlab",)) -> list[str]:
    """Every runnable command of the CLI, as ``memlab a b``."""
    if not isinstance(cmd, click.Group):
        return [" ".join(path)]
    return [name for sub in subcommands(cmd).values() if not sub.hidden
            for name in leaf_commands(sub, path + (sub.name,))]


SYNOPSES = [s for synopses, _ in table_rows() for s in synopses]


def test_the_table_is_there():
    assert len(SYNOPSES) >= 10 and all(synopses for synopses, _ in table_rows()), table_rows()


@pytest.mark.parametrize("synopsis", SYNOPSES)
def test_each_command_in_the_table_exists_with_exactly_its_options(synopsis):
    path, cmd = resolve(synopsis)
    assert not isinstance(cmd, click.Group), f"{synopsis!r} names no command (it stops at {' '.join(path)})"
    written = OPTION.findall(synopsis.replace("\\|", " | "))
    names = {name: opt for opt in options(cmd) for name in opt.opts + opt.secondary_opts}
    missing = [opt.opts[0] for opt in options(cmd) if not set(opt.opts + opt.secondary_opts) & set(written)]
    unknown = [w for w in written if w not in names]
    assert not missing, f"README's {' '.join(path)} row lacks {missing} (its --help lists them)"
    assert not unknown, f"README's {' '.join(path)} row names {unknown}, which its --help does not list"
    for name, spelled in re.findall(r"(--[\w-]+)[ =]([\w.*-]+(?:\\\|[\w.*-]+)+)", synopsis):
        choices = getattr(names[name].type, "choices", None)
        if choices is not None:
            assert set(spelled.split("\\|")) == set(choices), f"{' '.join(path)} {name}: {spelled} vs {choices}"


def test_options_in_the_does_column_belong_to_the_row():
    for synopses, does in table_rows():
        names = {n for s in synopses for opt in options(resolve(s)[1]) for n in opt.opts + opt.secondary_opts}
        for found in OPTION.findall(" ".join(re.findall(r"`([^`]+)`", does))):
            assert found in names, f"{synopses[0]!r}: the 'does' column names {found}, no option of the row"


def test_every_command_has_a_row():
    listed = {" ".join(resolve(s)[0]) for s in SYNOPSES}
    assert set(leaf_commands()) - listed == set(), "commands missing from README's Commands table"


def test_the_group_options_are_in_the_section():
    written = set(OPTION.findall(" ".join(re.findall(r"`([^`]+)`", _section("Commands")))))
    for opt in options(main):
        assert written & set(opt.opts + opt.secondary_opts), f"memlab {opt.opts[0]} is not in README's Commands"
