"""``memlab images``: build the lab's container images without a registry, and list them (every name
and tag whole, at any terminal width: lab.cli.fit; or as JSON).

Exit codes: 0 done, 2 an image could not be built or no engine answers.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from rich.console import Console

from lab.report.inert import inert
from lab.runtime import images as lab_images
from lab.runtime.dockercli import DockerError, engine

err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def _engine_or_exit() -> None:
    ok, why = engine()
    if not ok:
        err.print(f"[bold red]memlab:[/] {inert(why)}\n  fix: start an engine (.ci/docker-up does it on Debian)")
        sys.exit(2)


@click.group("images")
def images() -> None:
    """Build (missing) and list the lab's images: base, base-bullseye, postgres, redis, redis-stack, lab,
    sut-<driver> (a folder of images/ holding a driver.py, built by the lab's recipe, or its own Dockerfile)."""


@images.command("build")
@click.argument("names", nargs=-1)
@click.option("--ca-cert", "ca_certs", multiple=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A CA certificate to trust inside SUT images (repeatable). Default: the host's extra CAs "
                   f"({', '.join(str(d) for d in lab_images.HOST_CA_DIRS)}).")
@click.option("--base-from", default=None, metavar="IMAGE",
              help="Build the base FROM this registry image (e.g. debian:bookworm-slim) instead of bootstrapping "
                   "(the bookworm base; base-bullseye is always bootstrapped).")
@click.option("--force", is_flag=True, help="Rebuild the named images even if present.")
def build_cmd(names: tuple[str, ...], ca_certs: tuple[Path, ...], base_from: str | None, force: bool) -> None:
    """Build the named images that are missing (all when none named); print each build's time."""
    _engine_or_exit()
    started = time.monotonic()
    try:
        records = lab_images.build(list(names) or None, list(ca_certs) or None, force=force, base_from=base_from,
                                   progress=lambda line: err.print(inert(line, markup=False), markup=False))
    except (lab_images.ImageBuildError, DockerError) as exc:
        err.print(f"[bold red]memlab:[/] {inert(exc, lines=True)}")
        sys.exit(2)
    for line in lab_images.records_table(records):
        click.echo(inert(line, markup=False))
    click.echo(f"images: {time.monotonic() - started:.1f} s")


#: ``memlab images list --json``: one object per image tag, in the engine's order.
JSON_KEYS = {
    "name": "the lab's name of the image (what `memlab images build` takes)",
    "tag": "the image's repository:tag on the engine",
    "id": "the image's short id",
    "created": "when it was created, as the engine says it (e.g. 2 hours ago)",
    "size": "its size, as the engine says it (e.g. 172MB)",
    "versions": "the Debian package versions it is labelled with: {package: version}",
    "build_seconds": "how long its last build here took, in seconds (null: no record)",
}


@images.command("list", epilog="\b\n--json prints a list of objects, one per image tag, with the keys:\n"
                + "\n".join(f"  {k}: {v}" for k, v in JSON_KEYS.items()))
@click.option("--json", "as_json", is_flag=True, help="Print the images as JSON (the keys below), not as text.")
def list_cmd(as_json: bool) -> None:
    """The lab's images here, with their labelled package versions.

    Every name and tag is printed whole, at any width: a table when it fits the terminal, else each
    image's tag beside its name and its id, age, size, build time and versions under it. Exit 2 when no
    engine answers (nothing on standard output).
    """
    _engine_or_exit()
    rows = lab_images.listing()
    if as_json:
        import json

        from lab.cli.console import reader_may_leave

        with reader_may_leave():
            click.echo(json.dumps([_as_json(row) for row in rows], indent=2))
        return
    _print(rows)


def _as_json(row: dict[str, str]) -> dict:
    versions = dict(item.partition("=")[::2] for item in row["versions"].split())
    seconds = int(row["build_seconds"]) if row["build_seconds"] else None
    return {**{k: row[k] for k in ("name", "tag", "id", "created", "size")}, "versions": versions,
            "build_seconds": seconds}


def _print(rows: list[dict[str, str]]) -> None:
    """The images as text: a table when every cell fits side by side, else a name and tag a line (the
    rest under them)."""
    from rich.text import Text

    from lab.cli.fit import Row, lay_out, table_fits
    from lab.report.stdout import stdout_console

    def t(text: str, style: str = "") -> tuple[str, str]:
        return inert(text, markup=False), style

    b = "bold underline"
    columns = ("tag", "id", "created", "size", "versions", "build_seconds")
    table = [Row(t("name", b), tuple(t(c, b) for c in columns))]
    narrow = [Row(t("name", b), (t("tag", b),), ((t("id, created, size, build_seconds", b),), (t("versions", b),)))]
    for row in rows:
        table.append(Row(t(row["name"]), tuple(t(row[c]) for c in columns)))
        facts = [(t("id ", "dim"), t(row["id"])), (t("created ", "dim"), t(row["created"])),
                 (t("size ", "dim"), t(row["size"]))]
        if row["build_seconds"]:
            facts.append((t("build_seconds ", "dim"), t(row["build_seconds"])))
        said = tuple(piece for k, fact in enumerate(facts) for piece in ((t(", "),) if k else ()) + fact)
        details = (said,) + (((t("versions ", "dim"), t(row["versions"])),) if row["versions"] else ())
        narrow.append(Row(t(row["name"]), (t(row["tag"]),), details))
    out = stdout_console()
    if not sys.stdout.isatty():
        out.width = 200  # a pipe or a file: 200 columns, as before
    for line in lay_out(table, out.width) if table_fits(table, out.width) else lay_out(narrow, out.width):
        out.print(Text.assemble(*line), soft_wrap=True)
