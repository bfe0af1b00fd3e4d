"""``memlab gc``: remove what a crashed or killed run left behind, and report only what it removed. Exit 0
done, 1 something was left (a folder a live process still uses, or one it may not remove: named)."""

from __future__ import annotations

import click

from lab.cli.console import console, fail
from lab.report.inert import inert


@click.command()
def gc() -> None:
    """Remove what a crashed or killed run left behind (SUT processes, containers, scratch folders).

    Only runs whose memlab process is gone are touched. A scratch folder a live process still works in
    (a server on its data directory) is removed only once that process is ended; one that cannot be
    ended is left, named with the process, and gc exits 1; so is what it may not remove or end (another
    user's): gc reports only what it removed."""
    from lab.runtime.housekeeping import LEFT as GC_LEFT, gc as gc_run

    done = gc_run()
    left = [item for item in done if item.startswith(GC_LEFT)]
    for item in done:
        console.print(inert(item if item in left else f"removed {item}"))
    removed = len(done) - len(left)
    console.print(f"gc: {removed} item(s) removed" if removed else "gc: nothing to remove")
    if left:
        fail(f"gc: {len(left)} item(s) left: in use by a live process, or not this user's to remove (named above)", 1)
