"""Options several commands share: ``--profiles``, ``--no-fork-server``, ``--sign-key``, ``--pubkey``'s key
loading, ``--reports/--no-reports``, the CI gate's ``--fail-on`` and ``--min-level``, and a ``--json`` that
holds for errors too (``json_first`` and ``unreadable_as_json``). Their help and choices load nothing heavy: a key is
read (lab.resultset.signing) only when one is given."""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

import click

from lab import PROFILES_DIR
from lab.report.formats import DEFAULT_FILES
from lab.resultset.gate_choices import FAIL_ON, LEVELS


def _key_callback(loader: str) -> Callable[[click.Context, click.Parameter, Path | None], Any]:
    """A click callback loading a key option's PEM with ``lab.resultset.signing.<loader>``; an unusable
    key is a bad parameter."""
    def callback(ctx: click.Context, param: click.Parameter, value: Path | None) -> Any:
        if value is None:
            return None
        from lab.resultset import signing
        try:
            return getattr(signing, loader)(value)
        except signing.SigningKeyError as exc:
            if ctx.meta.get(_JSON):
                _json_error(ctx.params.get("result_dir"), f"{param.opts[0]}: {exc}")
            raise click.BadParameter(str(exc)) from None
    return callback


_JSON = "memlab.json"


def json_first(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    """``--json``'s callback (an eager option): later options and the command know JSON was asked for."""
    ctx.meta[_JSON] = value
    return value


def _json_error(result_dir: Any, error: str) -> NoReturn:
    """An input error as the JSON ``--json`` promises, then exit 2."""
    click.echo(json.dumps({"result_set": None if result_dir is None else str(result_dir), "verified": False,
                           "unreadable": True, "error": error}, indent=2))
    sys.exit(2)


def unreadable_as_json(command: Callable[..., Any]) -> Callable[..., Any]:
    """Around a ``RESULT_DIR [--json]`` command: a set that cannot be read (``Unreadable``, or an error of
    the machine: lab.cli.oserrors) exits 2 with why, as JSON when ``--json`` was given."""
    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from lab.cli.console import fail
        from lab.cli.oserrors import describe
        from lab.resultset.loading import Unreadable
        try:
            return command(*args, **kwargs)
        except (Unreadable, OSError) as exc:
            text = str(exc) if isinstance(exc, Unreadable) else describe(exc)
            if text is None:
                raise
            if kwargs.get("as_json"):
                _json_error(kwargs.get("result_dir"), text)
            fail(text)
    return wrapper


private_key = _key_callback("load_private_key")
public_key = _key_callback("load_public_key")


#: The longest timeout an option may give, in seconds: a profile's bound (lab.profile.schema.MAX_SECONDS)
#: and a shim config's (lab.lifecycle.adapters.http_config.MAX_SECONDS); a test holds them equal.
MAX_SECONDS = 3600.0


class Seconds(click.ParamType):
    """A timeout in seconds: a finite number above 0 and at most ``MAX_SECONDS`` (``nan``, ``inf`` and
    ``1e300`` are refused: a wait they set would never end or overflow)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not (0 < number <= MAX_SECONDS):  # also false for nan
            self.fail(f"{value!r} is not a number of seconds above 0 and at most {MAX_SECONDS:g}", param, ctx)
        return number

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "SECONDS"


class ByteSize(click.ParamType):
    """A size in bytes: plain, or with K, M, G, T (powers of 1024; ``500M``, ``4GiB``); above 0 and at most
    1 TiB (lab.resultset.evidence_budget.parse_size, imported only when a value is given)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value  # a default already in bytes
        from lab.resultset.evidence_budget import parse_size
        try:
            return parse_size(value)
        except ValueError as exc:
            self.fail(f"{exc}\n  fix: e.g. --evidence-budget 4G (the default is 2G)", param, ctx)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "SIZE"


#: The default evidence budget of one run: 2 GiB (lab.resultset.evidence_budget.DEFAULT_LIMIT; a test holds
#: them equal), written here so that --help loads nothing.
EVIDENCE_BUDGET = 2 * 1024 ** 3


def evidence_budget_option(f):
    """``--evidence-budget SIZE``: the bytes one run may write into its result set (docs/results.md)."""
    return click.option("--evidence-budget", "evidence_budget", type=ByteSize(), default=EVIDENCE_BUDGET,
                        show_default="2G",
                        help="The most this run may write into its result set: observations, store dumps and "
                             "the SUT's logs (e.g. 500M, 4G, 4GiB, or bytes; at most 1T). Past it the run stops "
                             "as a harness error (exit 2), keeping what it measured; --resume DIR with a bigger "
                             "budget continues it.")(f)


def default_out(prefix: str = "", results: Path = Path("results")) -> Path:
    """A new default ``--out``: ``results/<prefix><UTC timestamp>`` (e.g. ``20261205T185238Z``), or, when a
    run started in the same second took that, ``...-2``, ``-3``, ...: the folder is made here (``mkdir``
    is atomic), so two runs started at once never pick the same one."""
    from datetime import datetime, timezone

    stamp = prefix + datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    results.mkdir(parents=True, exist_ok=True)
    for n in range(1, 1000):
        path = results / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    return results / f"{stamp}-{os.getpid()}"  # a thousand runs in one second: claim() says if it is taken


def profiles_option(f):
    """``--profiles DIR``: the folder of SUT profiles (default the shipped ``sut_profiles/``)."""
    return click.option("--profiles", "profiles_dir", type=click.Path(file_okay=False, path_type=Path),
                        default=PROFILES_DIR, show_default=True, help="Folder of SUT profiles.")(f)


def no_fork_server_option(f):
    """``--no-fork-server``: every SUT start a plain interpreter or container (docs/fork-server.md)."""
    return click.option("--no-fork-server", is_flag=True,
                        help="Start every SUT as a plain new interpreter (local runtime) or a new container "
                             "(docker), not forked from a server that imported it once (docs/fork-server.md).")(f)


def sign_key_option(f):
    """``--sign-key KEY.pem``: sign the manifest once written."""
    return click.option("--sign-key", "sign_key", type=click.Path(dir_okay=False, path_type=Path),
                        callback=private_key, help="Ed25519 private key (PEM): sign manifest.json "
                                                   "into manifest.sig (`memlab keygen` makes one).")(f)


def reports_option(f):
    """``--reports/--no-reports``: write report.md, junit.xml, report.html into the set."""
    return click.option("--reports/--no-reports", default=True, show_default=True,
                        help=f"Write {', '.join(DEFAULT_FILES.values())} into the result set.")(f)


def gate_options(f):
    """``--fail-on`` and ``--min-level``: the CI gate."""
    f = click.option("--min-level", type=click.Choice(LEVELS), default=None,
                     help="Fail unless every row reaches this level (REJECTED on the read path).")(f)
    return click.option("--fail-on", type=click.Choice(FAIL_ON), default=None,
                        help="Fail on any ACCEPTED cell (accepted), or also on audit-only detection (partial).")(f)
