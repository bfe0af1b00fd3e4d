"""The ``memlab`` command line. Logging is configured here, once.

Each command lives in a module of its own and is imported only when it is asked for (the group is a
:class:`lab.cli.lazy.LazyGroup` over :data:`COMMANDS`): ``memlab --help`` and ``memlab --version``
import no command, and ``memlab COMMAND --help`` only that command's module, whose heavy imports wait
until it runs (``images`` aside: its help names the host's CA folders, from the runtime).

Exit codes: 0 the command completed (whatever the verdicts), 2 bad input or a harness failure (an
error of the machine too: a full disk, a read-only or forbidden folder, ..., said with its path and
the fix by lab.cli.oserrors, never a traceback), 130 interrupted (what was measured is kept); each
command's module says its own (``run``: lab.cli.run; ``list``: lab.cli.listing; the result-set
commands: lab.cli.results).

May import: every role (it is the top).
"""

from __future__ import annotations

import click

from lab import METHOD_REVISION, __version__
from lab.cli.lazy import LazyGroup

#: Every command: name -> (where it is defined, its short help as ``memlab --help`` shows it).
#: tests/unit/test_cli_lazy.py holds each short help equal to the command's own.
COMMANDS = {
    "analyze": ("lab.cli.reports:analyze_cmd",
                "Re-derive every row from RESULT_DIR's saved observations into a new result set."),
    "compare": ("lab.cli.reports:compare_cmd",
                'Cell for cell, where the conditions of docs/method.md "Reporting" match; other rows side by side.'),
    "compose": ("lab.cli.compose:compose",
                "Sequences of moves that land where no single move does: an edit, a pair of edits, or a restore case's "
                "rollback or resurrection, with the SUT's own activity around it."),
    "frontdoor": ("lab.cli.frontdoor:frontdoor",
                  "The front door: what an attacker plants through a store's write API, and what another context "
                  "reads."),
    "gate": ("lab.cli.results:gate_cmd", "Gate a saved result set for CI, after verifying it."),
    "gc": ("lab.cli.gc:gc",
           "Remove what a crashed or killed run left behind (SUT processes, containers, scratch folders)."),
    "images": ("lab.cli.images:images",
               "Build (missing) and list the lab's images: base, base-bullseye, postgres, redis, redis-stack, "
               "lab, sut-<driver> (a folder of images/ holding a driver.py, built by the lab's recipe, or its "
               "own Dockerfile)."),
    "keygen": ("lab.cli.results:keygen_cmd", "Make an Ed25519 key pair: KEY.pem (private, mode 0600) and KEY.pub.pem."),
    "lifecycle": ("lab.cli.lifecycle:lifecycle",
                  "The lifecycle gate: do write, correct, rescope, expire and delete change what is served?"),
    "list": ("lab.cli.listing:list_cmd", "Every profile, and whether it can run here (or why not)."),
    "merge": ("lab.cli.merge:merge_cmd",
              "Merge the result sets of a sharded run (`memlab run --shard K/N --run-id ID`) into one set."),
    "report": ("lab.cli.reports:report_cmd",
               "Render a result set: terminal matrix, Markdown, JUnit XML or one static HTML page."),
    "run": ("lab.cli.run:run", "Run the matrix: every selected row, ten edits, three controls; write a result set."),
    "show": ("lab.cli.show:show", "Print the verdict matrix (or the lifecycle table) of a saved result set."),
    "sign": ("lab.cli.results:sign_cmd", "Sign a result set's manifest (manifest.sig), once it verifies."),
    "site": ("lab.cli.site:site_cmd",
             "One HTML page per SUT with its at-rest matrix, lifecycle gate and front door together, and an index "
             "of every row with a lifecycle column."),
    "sweep": ("lab.cli.sweep:sweep_cmd",
              "Measure a row against releases of its SUT package the registry serves: one verified result set per "
              "release, each its own row, and the releases lined up cell by cell with the release where each cell "
              "changed."),
    "verify": ("lab.cli.results:verify_cmd", "Recompute a result set from its pinned bytes."),
}


def encoding_proof() -> None:
    """Standard output and error write any text, whatever their encoding (``PYTHONIOENCODING=ascii``, a
    ``C`` locale, latin-1): a character the encoding lacks (a ``×``, a ``━`` of the progress bar, a
    name a SUT sent) is written as its escape (``\\u2501``), never a ``UnicodeEncodeError`` that would
    end a passing run with a traceback and exit 1, or stop it between two writes of its result set."""
    import sys
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        if encoding.startswith("utf") or getattr(stream, "errors", "strict") != "strict":
            continue
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a text stream of the io module, or closed
            pass


class _Group(LazyGroup):
    """The lab's group: output in any encoding (:func:`encoding_proof`); an error of the machine a
    command meets (lab.cli.oserrors), or a scratch folder refused, exits 2 with its path and the fix; an
    interrupt no command handled exits 130 (Ctrl-C) or 143 (SIGTERM), never 1, which CI reads as a verdict."""

    def main(self, *args, **kwargs):
        encoding_proof()
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        from lab.cli.signals import exit_code, terminate_as_interrupt
        try:
            with terminate_as_interrupt():  # SIGTERM as Ctrl-C, for every command
                return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # a command that keeps nothing to say of it: 130, or 143 for SIGTERM
            from lab.cli.console import fail
            fail("interrupted: what this command had not finished is left as it was before it", exit_code(exc))
        except OSError as exc:
            from lab.cli.oserrors import describe
            text = describe(exc)
            if text is None:
                raise
            from lab.cli.console import fail
            fail(text)
        except click.exceptions.Exit:  # click's own way out (--help among them): a RuntimeError too
            raise
        except RuntimeError as exc:
            from lab.runtime.scratch import ScratchRefused  # only once something failed: --help stays light
            if not isinstance(exc, ScratchRefused):
                raise
            from lab.cli.console import fail
            fail(str(exc))


def configure_logging(verbose: int, quiet: bool = False) -> None:
    """structlog to stderr (lab.cli.progress): -v info, -vv debug; -q errors only and no progress bar."""
    from lab.cli import progress
    progress.configure(verbose, quiet)


@click.group(cls=_Group, lazy_subcommands=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="memlab", message=f"%(prog)s %(version)s (method {METHOD_REVISION})")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no log output but errors (for CI logs).")
def main(verbose: int, quiet: bool) -> None:
    """memlab: does an agent memory subsystem notice edits to its store at rest?

    Seeds memory through each SUT's own write path, stops it, edits the store with
    generic editors, proves each edit landed (C3), restarts it, reads, and classifies.
    """
    if verbose and quiet:
        raise click.UsageError("-v and -q contradict each other: give one of them")
    configure_logging(verbose, quiet)
