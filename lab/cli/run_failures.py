"""How ``memlab run`` ends when it cannot finish: interrupted (Ctrl-C, or SIGTERM: lab.cli.signals),
an error of the machine (lab.cli.oserrors), or a fault of the lab itself. Each says what is kept in
the result set and how to complete it; none leaves a file in the set that is not part of it (the
traceback of a lab fault is kept in the lab's cache, ``$MEMLAB_CACHE/harness-errors/``).
"""

from __future__ import annotations

import traceback
from datetime import datetime, timezone
from pathlib import Path
from typing import NoReturn

from lab.cli.console import console, fail
from lab.cli.oserrors import describe
from lab.cli.signals import exit_code, signal_of
from lab.report.inert import inert


def kept(out: Path) -> str:
    """What is left of a run that did not finish, and how to complete it."""
    return (f"what was measured is kept in {out} (`memlab verify {out}` says PARTIAL); "
            f"`memlab run --resume {out}` completes it")


def interrupted(exc: BaseException, out: Path, measured: bool = False) -> NoReturn:
    """Ctrl-C (exit 130) or SIGTERM (exit 143): the SUTs were killed, the set says interrupted (or,
    ``measured``, the set was complete and only its reports or signature were cut short)."""
    said = str(exc) or f"interrupted ({signal_of(exc)})"
    rest = f"the result set in {out} is complete; its reports or signature may be missing" if measured else kept(out)
    console.print(f"[yellow]{inert(said)}[/]; {inert(rest)}", soft_wrap=True)
    raise SystemExit(exit_code(exc))


def machine(exc: OSError, out: Path, when: str) -> NoReturn:
    """An error of the machine (exit 2): its path and fix, and what is kept ``when`` it came: ``before``
    the run wrote its run.json, ``during`` the run, or ``after`` its set was complete (a report or
    the signature not written)."""
    text = describe(exc) or f"{exc}"
    if when == "during":
        text += f"\n  {kept(out)}"
    elif when == "after":
        text += (f"\n  the result set in {out} is complete (`memlab verify {out}`); its reports or signature were "
                 f"not written: `memlab report {out} --format FORMAT --out FILE` and `memlab sign {out} --key KEY` "
                 "write them")
    fail(text)


def harness(exc: BaseException, out: Path, measured: bool = False) -> NoReturn:
    """A fault of the lab itself (exit 2): one line, the traceback kept in the lab's cache; what is kept
    (``measured``: the set was complete, only what follows it was cut short, never called PARTIAL)."""
    from lab import safewrite
    from lab.runtime.housekeeping import cache_dir

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    where = cache_dir() / "harness-errors" / f"{stamp}-{out.name or 'run'}.txt"
    try:
        safewrite.write_text(where, f"memlab run --out {out}\n{traceback.format_exc()}")
        said = f"the traceback is in {where}"
    except OSError as err:
        said = f"the traceback could not be kept ({err}); run again with -v to see it logged"
    fail(f"harness failure: {type(exc).__name__}: {exc}\n  {complete(out) if measured else kept(out)}; {said}")


def complete(out: Path) -> str:
    """What is left of a run whose set was complete when it failed: its reports or signature."""
    return (f"the result set in {out} is complete (`memlab verify {out}`); its reports or signature may not be "
            f"written: `memlab report {out} --format FORMAT --out FILE` and `memlab sign {out} --key KEY` write them")
